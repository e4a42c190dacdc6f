package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/officialsuite"
	"github.com/mcpcheck/mcpcheck/reports"
)

// officialAuthScenarios are the official client suite's authorization
// scenarios its "auth" suite leaves out: the 2025-03-26 ones and those
// new in 2026-07-28 (the suite itself runs the other fourteen).
var officialAuthScenarios = []string{
	"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
	"auth/authorization-server-migration", "auth/iss-supported", "auth/iss-not-advertised",
	"auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
	"auth/metadata-issuer-mismatch",
}

// TestOfficialAuthScenariosWithTheReferenceClient: the official
// conformance suite's client authorization scenarios (the auth suite and
// every other auth/ scenario of a dated version) pass with mcpcheck's
// reference client, which acts out each one. It needs the lab (Node 22
// and the suite, ../shared/lab/setup.sh) and skips without it.
//
// The fourteen runs of the suite share the machine three at a time
// (started from goroutines, in order, whatever go test's -parallel): a
// run mostly waits on the scenario's flow and its timeouts, and two at a
// time took 85 s of a loaded two-core machine.
//
// Slow tier (make test-slow): fifteen runs of the Node suite. In make
// test the reference client's authorization code is judged by the
// client suite's proofs (internal/scenarios/internal/client TestProofs/client/authorization
// against the reference client with and without its auth faults).
func TestOfficialAuthScenariosWithTheReferenceClient(t *testing.T) {
	slowTier(t)
	t.Parallel()
	s, err := officialsuite.Find()
	if err != nil {
		t.Skip(err)
	}
	// The reference client waits up to 30 s for an answer and the suite
	// up to two minutes for a scenario (its default is 30 s): a busy
	// machine is slow, and that is no failure of the client (the auth
	// suite runs its fourteen scenarios at once, and at load 33 its
	// servers left an initialize unanswered for more than 10 s).
	client := mcpcheckBin(t) + " reference client --timeout 30s conformance"
	runs := [][]string{{"--suite", "auth"}}
	for _, sc := range officialAuthScenarios {
		runs = append(runs, []string{"--scenario", sc})
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	sem := make(chan struct{}, 3)
	for _, args := range runs {
		sem <- struct{}{} // here, so that the runs start in order
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t.Run(args[1], func(t *testing.T) {
				out := t.TempDir()
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				log, err := s.Command(ctx, out, append([]string{"client", "--command", client, "--timeout", "120000"}, args...)...).CombinedOutput()
				v := officialsuite.Statuses(out)
				if v["SUCCESS"] == 0 || v["FAILURE"] > 0 || v["WARNING"] > 0 {
					t.Errorf("%v: the official suite judged %v (exit %v), want successes only\n%s", args, v, err, tailString(string(log), 4000))
				}
				t.Logf("%v: %v", args, v)
			})
		}()
	}
}

// tailString is the last n bytes of s.
func tailString(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// labSDK returns the lab's Node 22 directory and TypeScript SDK, or skips.
func labSDK(t *testing.T) (nodeDir, sdk string) {
	t.Helper()
	s, err := officialsuite.Find()
	if err != nil {
		t.Skip(err)
	}
	sdk = filepath.Join(s.Lab, "npm", "node_modules", "@modelcontextprotocol", "sdk")
	if _, err := os.Stat(filepath.Join(sdk, "package.json")); err != nil {
		t.Skipf("the lab has no TypeScript SDK: %v", err)
	}
	return filepath.Dir(s.Node), sdk
}

// TestTSOAuthClientAgainstTheAuthserver: the TypeScript SDK's OAuth client
// (auth()) discovers, registers, authorizes with PKCE and redeems a code
// at 'mcpcheck authserver' for the reference server in --auth-issuer
// mode, and lists its tools with the token it got
// (internal/reference/authserver/testdata/ts-oauth-client/run.sh, which exits 0
// only then).
func TestTSOAuthClientAgainstTheAuthserver(t *testing.T) {
	t.Parallel()
	nodeDir, sdk := labSDK(t)
	bin := mcpcheckBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", filepath.Join("..", "..", "internal", "reference", "authserver", "testdata", "ts-oauth-client", "run.sh"))
	cmd.Env = append(os.Environ(), "MCPCHECK="+bin, "MCP_SDK_DIR="+sdk, "PATH="+nodeDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The script starts the authserver and the reference server in the
	// background: they share its process group, which ends with the test
	// however the script ended (a script killed at the deadline left its
	// authserver running).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	defer func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"ok":true`) {
		t.Fatalf("the TypeScript OAuth client's flow: %v\n%s", err, tailString(string(out), 4000))
	}
	t.Logf("%s", tailString(string(out), 1000))
}

// TestTSBearerRecipe: the README's TypeScript SDK recipe
// (internal/reference/authserver/testdata/ts-bearer-server) passes every
// authorization check that applies to it with tokens of the authserver it
// starts; token passthrough is untestable (it calls no upstream).
func TestTSBearerRecipe(t *testing.T) {
	t.Parallel()
	nodeDir, sdk := labSDK(t)
	bin := mcpcheckBin(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	tokFile := filepath.Join(t.TempDir(), "token")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := exec.CommandContext(ctx, filepath.Join(nodeDir, "node"), filepath.Join("..", "..", "internal", "reference", "authserver", "testdata", "ts-bearer-server", "server.mjs"),
		"--port", strconv.Itoa(port), "--mcpcheck", bin, "--token-out", tokFile)
	srv.Env = append(os.Environ(), "MCP_SDK_DIR="+sdk)
	// server.mjs starts 'mcpcheck authserver' as its child, which it stops
	// only on a signal it can catch: the whole group ends with the test
	// (a SIGKILL to node alone left the authserver running).
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	srv.Cancel = func() error { return syscall.Kill(-srv.Process.Pid, syscall.SIGKILL) }
	stderrPipe, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = srv.Wait(); _ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL) }()
	// The server prints its line once it listens and the token is written.
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderrPipe)
		var seen strings.Builder
		for sc.Scan() {
			if seen.Len() < 1<<16 {
				seen.WriteString(sc.Text() + "\n")
			}
			if strings.HasPrefix(sc.Text(), "ts-bearer-server: ") {
				ready <- ""
				_, _ = io.Copy(io.Discard, stderrPipe)
				return
			}
		}
		ready <- seen.String()
	}()
	select {
	case msg := <-ready:
		if msg != "" {
			t.Fatalf("the recipe server ended before listening: %s", msg)
		}
	case <-time.After(time.Minute):
		t.Fatal("the recipe server did not listen within a minute")
	}
	tok, err := os.ReadFile(tokFile)
	if err != nil || len(tok) == 0 {
		t.Fatalf("the recipe server wrote no token: %v", err)
	}
	setenvOwn(t, "MCPCHECK_TS_BEARER", string(tok))
	u := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	_, stderr, got, _ := authRunChecks(t, "--url", u, "--header-env", "Authorization:MCPCHECK_TS_BEARER", "--protocol", "2025-11-25", "--label-filter", "area:authorization")
	n := 0
	for id, o := range got {
		want := reports.Pass
		switch id {
		case "authorization/token-passthrough":
			want = reports.Untestable
		case "authorization/authorization-server-2025-03-26":
			want = reports.NA
		}
		if o != want {
			t.Errorf("%s: %s, want %s", id, o, want)
		}
		n++
	}
	if n < 12 {
		t.Errorf("%d authorization verdicts, want at least 12 (%s)", n, stderr)
	}
}
