package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// readmeServiceExamples returns the mcpcheck lines of README.md's ```text
// blocks in the Authorization section: the commands that start a service
// and keep running, which TestREADMEExamplesRun (```sh blocks, commands
// that end) does not run.
func readmeServiceExamples(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	section, in := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = line == "## Authorization"
			continue
		}
		if strings.HasPrefix(line, "```") {
			in = line == "```text"
			continue
		}
		if section && in && strings.HasPrefix(strings.TrimSpace(line), "mcpcheck ") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// startUntilReady starts argv (with env added to the environment) in its
// own process group, waits at most a minute for a stderr line matching
// each of wants (in any order), and returns their first submatches; the
// process group ends with the test.
func startUntilReady(t *testing.T, env, argv []string, wants ...*regexp.Regexp) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The whole group goes, also when its leader ended first: a peer
	// that started a child of its own (gosdk-bearer starts an mcpcheck
	// authserver) and exited left that child running otherwise, because
	// Cancel only signals a leader still running.
	t.Cleanup(func() { cancel(); _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	found := make(chan []string, 1)
	go func() {
		got := make([]string, len(wants))
		n := 0
		var seen strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if seen.Len() < 1<<14 {
				seen.WriteString(sc.Text() + "\n")
			}
			for i, re := range wants {
				if m := re.FindStringSubmatch(sc.Text()); m != nil && got[i] == "" {
					got[i] = m[len(m)-1]
					n++
				}
			}
			if n == len(wants) {
				found <- got
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
		}
		found <- []string{"it ended: " + seen.String()}
	}()
	select {
	case got := <-found:
		if len(got) != len(wants) {
			t.Fatalf("%s: %s", strings.Join(argv, " "), got[0])
		}
		return got
	case <-time.After(time.Minute):
		t.Fatalf("%s: no ready line within a minute", strings.Join(argv, " "))
	}
	return nil
}

// startService runs the mcpcheck binary with the words of line (after
// "mcpcheck") until its ready lines (see startUntilReady).
func startService(t *testing.T, bin, line string, wants ...*regexp.Regexp) []string {
	t.Helper()
	return startUntilReady(t, nil, append([]string{bin}, strings.Fields(strings.TrimPrefix(line, "mcpcheck "))...), wants...)
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	_, port, err := net.SplitHostPort(freeLoopbackAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// TestREADMEAuthServices runs the Authorization section's long-running
// examples as written, their fixed ports (9000, 3000, 9100) replaced by
// free ones, and the README's check commands against them:
// 'mcpcheck authserver --listen 127.0.0.1:9000' prints the issuer it
// listens at, and a reference server trusting it passes the README's
// 'mcpcheck server --url ... --auth-issuer ...'; 'mcpcheck reference
// server --http 127.0.0.1:3000 --auth --auth-upstream ...' prints its
// endpoint and the issuer it embeds, and passes the README's token
// passthrough command (the passthrough check passing, not untestable).
// An Authorization example in a ```text block the test does not know
// fails it, so the README cannot gain or change one no test runs.
func TestREADMEAuthServices(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	const (
		authserverLine = "mcpcheck authserver --listen 127.0.0.1:9000"
		referenceLine  = "mcpcheck reference server --http 127.0.0.1:3000 --auth --auth-upstream http://127.0.0.1:9100/api"
		checkLine      = "mcpcheck server --url http://127.0.0.1:3000/mcp --auth-issuer http://127.0.0.1:9000"
		upstreamLine   = "mcpcheck server --url http://127.0.0.1:3000/mcp --auth-issuer http://127.0.0.1:9000 --auth-upstream 127.0.0.1:9100"
	)
	known := map[string]bool{authserverLine: true, referenceLine: true}
	examples := readmeServiceExamples(t)
	for _, ex := range examples {
		if !known[ex] {
			t.Errorf("README Authorization example %q is run by no test: add it to TestREADMEAuthServices", ex)
		}
	}
	for l := range known {
		if !strings.Contains(strings.Join(examples, "\n"), l) {
			t.Errorf("README's Authorization section no longer shows %q: update TestREADMEAuthServices", l)
		}
	}
	sh := readmeExamples(t)
	for _, l := range []string{checkLine, upstreamLine} {
		if !strings.Contains(strings.Join(sh, "\n"), l) {
			t.Errorf("README no longer shows %q: update TestREADMEAuthServices", l)
		}
	}
	bound := []string{"--label-filter", "area:authorization", "--protocol", "2025-11-25", "--format", "json"}
	run := func(t *testing.T, line string) (int, map[string]reports.Outcome) {
		t.Helper()
		out := t.TempDir()
		code, _, stderr := runCLI(append(append(strings.Fields(strings.TrimPrefix(line, "mcpcheck ")), bound...), "--out", out)...)
		got := map[string]reports.Outcome{}
		for _, c := range readRunJSON(t, filepath.Join(out, "mcpcheck-server.json")).Checks {
			got[authCheckName(c.ID)] = c.Outcome
		}
		if code != 0 {
			t.Errorf("%s: exit %d, want 0: %s", line, code, stderr)
		}
		return code, got
	}

	t.Run("authserver", func(t *testing.T) {
		port := freePort(t)
		issuer := startService(t, bin, strings.ReplaceAll(authserverLine, "9000", port), regexp.MustCompile(`issuer (http://\S+?),? `))[0]
		if want := "http://127.0.0.1:" + port; issuer != want {
			t.Errorf("the authserver's issuer is %q, want %q", issuer, want)
		}
		u := startService(t, bin, "mcpcheck reference server --http 127.0.0.1:0 --auth-issuer "+issuer, listenURL)[0]
		_, got := run(t, strings.NewReplacer("http://127.0.0.1:3000/mcp", u, "http://127.0.0.1:9000", issuer).Replace(checkLine))
		if got["token-audience"] != reports.Pass {
			t.Errorf("against a reference server trusting the README's authserver: token-audience %q, want pass (the minted tokens are accepted and judged)", got["token-audience"])
		}
	})
	t.Run("reference-auth", func(t *testing.T) {
		port, up := freePort(t), freePort(t)
		got := startService(t, bin, strings.NewReplacer("3000", port, "9100", up).Replace(referenceLine),
			listenURL, regexp.MustCompile(`authorization server .*at (http://127\.0\.0\.1:\d+)`))
		u, issuer := got[0], got[1]
		if want := "http://127.0.0.1:" + port + "/mcp"; u != want {
			t.Errorf("the reference server listens on %q, want %q", u, want)
		}
		_, out := run(t, strings.NewReplacer("http://127.0.0.1:3000/mcp", u, "http://127.0.0.1:9000", issuer, "127.0.0.1:9100", "127.0.0.1:"+up).Replace(upstreamLine))
		if out["token-passthrough"] != reports.Pass {
			t.Errorf("token-passthrough %q, want pass (the server calls the upstream the README names with its own credential)", out["token-passthrough"])
		}
	})
}
