package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/shard"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestPeerListIsValid checks the committed peer list: every peer names an
// implementation, a known transport and a command; HTTP peers a loopback
// URL with the port placeholder; and every ${GOBIN:NAME} a listed package.
func TestPeerListIsValid(t *testing.T) {
	b, err := os.ReadFile("../../reports/interop/peers.json")
	if err != nil {
		t.Fatal(err)
	}
	var list peerList
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		t.Fatalf("peers.json: %v", err)
	}
	gos := map[string]bool{}
	for _, g := range list.Go {
		if g.Dir != "" {
			if _, err := os.Stat(filepath.Join("..", "..", g.Dir, "go.mod")); err != nil || g.Package != "" || g.Version != "" {
				t.Errorf("go module %+v: want a module of this checkout (its go.mod: %v) and no package or version", g, err)
			}
		} else if g.Name == "" || g.Package == "" || !strings.HasPrefix(g.Version, "v") {
			t.Errorf("go package %+v: want a name, a package and a pinned version", g)
		}
		gos[g.Name] = true
	}
	for _, n := range list.NPM {
		if at := strings.LastIndex(n, "@"); at <= 0 || at == len(n)-1 {
			t.Errorf("npm package %q is not pinned (NAME@VERSION)", n)
		}
	}
	seen := map[string]bool{}
	for _, p := range list.Peers {
		if seen[p.id()] {
			t.Errorf("peer %s is listed twice", p.id())
		}
		seen[p.id()] = true
		if p.Implementation == "" || len(p.Command) == 0 {
			t.Errorf("peer %s: want an implementation and a command", p.id())
		}
		switch p.Transport {
		case "stdio":
			if p.URL != "" {
				t.Errorf("peer %s: a stdio peer has no URL", p.id())
			}
		case "streamable", "sse":
			// localhost for a peer that names itself so in its metadata
			// (the TS SDK's OAuth example): loopback all the same.
			if !strings.HasPrefix(p.URL, "http://127.0.0.1:${PORT}/") && !strings.HasPrefix(p.URL, "http://localhost:${PORT}/") {
				t.Errorf("peer %s: URL %q must be on 127.0.0.1:${PORT} or localhost:${PORT}", p.id(), p.URL)
			}
		default:
			t.Errorf("peer %s: unknown transport %q", p.id(), p.Transport)
		}
		for _, w := range p.Command {
			// A path under ${CLIENTS} (cmd/interop/clients, resolved from the
			// module root) must exist in this checkout: a peer whose program
			// moved would become an error column only in a real run.
			if rest, ok := strings.CutPrefix(w, "${CLIENTS}/"); ok {
				if _, err := os.Stat(filepath.Join("..", "..", clientsDir, filepath.FromSlash(rest))); err != nil {
					t.Errorf("peer %s runs %s, which is not in this checkout: %v", p.id(), w, err)
				}
			}
			if i := strings.Index(w, "${GOBIN:"); i >= 0 {
				name := strings.TrimSuffix(strings.SplitN(w[i+len("${GOBIN:"):], "}", 2)[0], "}")
				if !gos[name] {
					t.Errorf("peer %s uses ${GOBIN:%s}, which no go package installs", p.id(), name)
				}
			}
		}
	}
}

// TestServerThatDoesNotStartIsAnErrorColumn: an HTTP peer whose program
// exits at once becomes a run with one problem, noticed from the exit
// (not waited out), never a hang.
func TestServerThatDoesNotStartIsAnErrorColumn(t *testing.T) {
	if _, err := exec.LookPath("false"); err != nil {
		t.Skip("no 'false' program")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := config{dir: dir, protocol: "all", perServer: 30 * time.Second, step: time.Second}
	p := peer{Name: "broken", Transport: "streamable", Implementation: "exits at once", Command: []string{"false"}, URL: "http://127.0.0.1:${PORT}/mcp"}
	run := checkPeer(context.Background(), c, p, map[string]string{}, "/nonexistent/mcpcheck", nil)
	if len(run.Checks) != 0 || len(run.Problems) != 1 || !strings.Contains(run.Problems[0], "did not start") {
		t.Fatalf("run: %d checks, problems %q; want no checks and one 'did not start' problem", len(run.Checks), run.Problems)
	}
	// Quickly means on the exit itself, not at the end of the start-up
	// allowance: the problem names the exit.
	if !strings.Contains(run.Problems[0], "exited before listening") {
		t.Errorf("the problem %q does not name the server's exit: it was waited out instead of noticed", run.Problems[0])
	}
	m, err := reports.BuildMatrix("t", []reports.MatrixInput{{Name: "broken", Run: run}}, reports.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Servers[0].Headline != "error" {
		t.Errorf("the matrix shows the broken server as %q, want error", m.Servers[0].Headline)
	}
	// An install failure is reported the same way, without starting anything.
	run = checkPeer(context.Background(), c, p, map[string]string{}, "/nonexistent/mcpcheck", os.ErrNotExist)
	if len(run.Problems) != 1 || !strings.Contains(run.Problems[0], "not installed") {
		t.Errorf("install failure: problems %q", run.Problems)
	}
}

func TestShellJoinAndExpand(t *testing.T) {
	got := shellJoin([]string{"/a b/node", "x.js", "it's", "", "plain"})
	want := `'/a b/node' x.js 'it'\''s' '' plain`
	if got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
	vars := map[string]string{"${DIR}": "/c", "${PORT}": "99"}
	if got := expand("http://127.0.0.1:${PORT}${DIR}", vars); got != "http://127.0.0.1:99/c" {
		t.Errorf("expand = %s", got)
	}
}

// TestLoopbackPreload starts Node with the preload and a server that
// listens without a host: it must end up on 127.0.0.1.
func TestLoopbackPreload(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping: node is not installed")
	}
	dir := t.TempDir()
	pre := filepath.Join(dir, "loopback.cjs")
	if err := os.WriteFile(pre, []byte(loopbackPreload), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	script := `const s=require('http').createServer();s.listen(0,()=>{console.log(s.address().address);s.close()});` +
		`const t=require('net').createServer();t.listen({port:0},()=>{console.log(t.address().address);t.close()});`
	out, err := exec.CommandContext(ctx, node, "--require", pre, "-e", script).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v: %s", err, out)
	}
	for _, line := range strings.Fields(string(out)) {
		if line != "127.0.0.1" {
			t.Errorf("a server listening without a host bound %q, want 127.0.0.1 (output %q)", line, out)
		}
	}
	if n := len(strings.Fields(string(out))); n != 2 {
		t.Errorf("got %d addresses, want 2: %q", n, out)
	}
}

// TestWriteMatrixFilesWritesJSON: the regenerated matrix comes with its
// JSON, which lists per column every requirement each broken check broke,
// so two regenerations can be compared requirement by requirement.
func TestWriteMatrixFilesWritesJSON(t *testing.T) {
	out := t.TempDir()
	run := &reports.Run{Schema: reports.Schema, Tool: reports.Tool{Name: "mcpcheck"}, Transport: "stdio",
		Target: reports.Target{Kind: reports.TargetStdio, Command: "srv", Role: "server"}, Versions: []spec.Version{spec.V20251125},
		Checks: []reports.Check{{ID: "tools/x", Version: spec.V20251125, Transport: "stdio", Outcome: reports.Fail, Level: "MUST", Area: "tools",
			Requirements: []string{"req.a", "req.b"}, Violated: []string{"req.b"}}}}
	var stdout bytes.Buffer
	if err := writeMatrixFiles(config{out: out}, &stdout, "t", "MATRIX", []reports.MatrixInput{{Name: "srv (stdio)", Run: run}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"MATRIX.md", "MATRIX.html", "MATRIX.json"} {
		if !strings.Contains(stdout.String(), filepath.Join(out, f)) {
			t.Errorf("%s not reported written: %s", f, stdout.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "MATRIX.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Servers []struct {
			Name     string `json:"name"`
			Violated []struct {
				ID          string `json:"id"`
				Requirement string `json:"requirement"`
			} `json:"violated"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || len(doc.Servers[0].Violated) != 1 || doc.Servers[0].Violated[0].Requirement != "req.b" {
		t.Errorf("MATRIX.json servers %+v; want srv with tools/x breaking req.b only\n%s", doc.Servers, b)
	}
}

// TestShardsSplitTheTargets: the parts of a -shard split check every
// selected server and client exactly once, and each part gets some when
// there are at least as many targets as parts.
func TestShardsSplitTheTargets(t *testing.T) {
	b, err := os.ReadFile("../../reports/interop/peers.json")
	if err != nil {
		t.Fatal(err)
	}
	var list peerList
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	allPeers, allClients, selected := selectTargets(list, "", shard.Part{})
	if selected != len(list.Peers)+len(list.Clients) || len(allPeers) != len(list.Peers) || len(allClients) != len(list.Clients) {
		t.Fatalf("unsharded: %d peers, %d clients, %d selected; want the whole list", len(allPeers), len(allClients), selected)
	}
	for _, n := range []int{2, 3, 4} {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			ps, cs, sel := selectTargets(list, "", shard.Part{K: k, N: n})
			if sel != selected {
				t.Errorf("part %d/%d counted %d selected, want %d", k, n, sel, selected)
			}
			if len(ps)+len(cs) == 0 && selected >= n {
				t.Errorf("part %d/%d got no target of %d", k, n, selected)
			}
			for _, p := range ps {
				seen["server "+p.id()]++
			}
			for _, c := range cs {
				seen["client "+c.id()]++
			}
		}
		if len(seen) != selected {
			t.Errorf("%d parts checked %d distinct targets, want %d", n, len(seen), selected)
		}
		for id, times := range seen {
			if times != 1 {
				t.Errorf("%d parts: %s checked %d times", n, id, times)
			}
		}
	}
}

// TestHostsCannotOpenABrowser: in the environment a driven host runs in,
// every way a host opens a sign-in URL (x-www-browser, xdg-open, $BROWSER,
// as mcp-remote does) reaches a stub that records the URL and opens
// nothing; the real commands of this machine are shadowed.
func TestHostsCannotOpenABrowser(t *testing.T) {
	home := t.TempDir()
	env, err := hostEnv(home)
	if err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("sh", "-c", `x-www-browser http://127.0.0.1:1/a && xdg-open http://127.0.0.1:1/b && "$BROWSER" http://127.0.0.1:1/c && command -v sensible-browser`)
	sh.Env = env
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("the browser commands in the host's environment: %v\n%s", err, out)
	}
	if want := filepath.Join(home, ".mcpcheck-no-browser", "sensible-browser"); strings.TrimSpace(string(out)) != want {
		t.Errorf("sensible-browser resolves to %q; want the stub %s", strings.TrimSpace(string(out)), want)
	}
	log, _ := os.ReadFile(filepath.Join(home, "browser-opened.log"))
	for _, u := range []string{"/a", "/b", "/c"} {
		if !strings.Contains(string(log), "http://127.0.0.1:1"+u) {
			t.Errorf("the stub did not record %s; its log:\n%s", u, log)
		}
	}
}

// TestOutOfTimeMcpcheckIsInterrupted: an mcpcheck run past its bound is
// sent SIGTERM, the interruption it answers by stopping its targets and
// writing its report, not killed outright (which left the stdio servers it
// started running in their own process groups).
func TestOutOfTimeMcpcheckIsInterrupted(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "interrupted")
	fake := filepath.Join(dir, "mcpcheck")
	script := "#!/bin/sh\ntrap 'echo term > " + mark + "; exit 130' TERM\nsleep 30 &\nwait\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var problem string
	runMcpcheckIn(ctx, config{perServer: time.Second}, fake, "fake", nil, os.Environ(), dir, dir, filepath.Join(dir, "report.json"), func(f string, a ...any) *reports.Run {
		problem = fmt.Sprintf(f, a...)
		return nil
	})
	if b, err := os.ReadFile(mark); err != nil || strings.TrimSpace(string(b)) != "term" {
		t.Errorf("the fake mcpcheck was not sent SIGTERM when out of time (%v); the runner's problem: %s", err, problem)
	}
	if !strings.Contains(problem, "did not finish") {
		t.Errorf("the runner's problem %q does not say mcpcheck ran out of time", problem)
	}
}

// TestCensusServersCannotOpenABrowser: a census server entry runs in the
// same no-browser environment as a driven host (mcpcheck passes PATH,
// BROWSER and DISPLAY on to the server it starts; its sandbox replaces
// only HOME, TMPDIR and the XDG directories): x-www-browser, xdg-open and
// $BROWSER reach the stub, chromium resolves to it, there is no display,
// and the runner logs what the entry tried to open.
func TestCensusServersCannotOpenABrowser(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	fake := filepath.Join(dir, "mcpcheck")
	script := "#!/bin/sh\nx-www-browser http://127.0.0.1:1/a && xdg-open http://127.0.0.1:1/b && \"$BROWSER\" http://127.0.0.1:1/c &&\n" +
		"printf 'display=[%s] chromium=%s\\n' \"$DISPLAY\" \"$(command -v chromium)\" > " + seen + "\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DISPLAY", ":0")
	s := censusServer{Name: "b", Package: "b@1.0.0", Transport: "stdio", Command: []string{"b-server"}}
	e := censusEntry{id: s.id(), name: s.Name, transport: s.Transport, pkg: s.Package, server: &s}
	cc, d := censusTestDirs(t, dir)
	var logged strings.Builder
	logf := func(f string, a ...any) { fmt.Fprintf(&logged, f+"\n", a...) }
	var log bytes.Buffer
	checkCensusEntry(context.Background(), cc, d, e, map[string]string{}, fake, logf, &log)
	got, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the fake mcpcheck did not get past the browser commands: %v\nits log: %s", err, log.String())
	}
	home := filepath.Join(d.scratch, e.id, "home")
	if want := "display=[] chromium=" + filepath.Join(home, ".mcpcheck-no-browser", "chromium") + "\n"; string(got) != want {
		t.Errorf("the entry's environment: %q, want %q (no display, chromium the stub)", got, want)
	}
	opened, _ := os.ReadFile(filepath.Join(home, "browser-opened.log"))
	for _, u := range []string{"/a", "/b", "/c"} {
		if !strings.Contains(string(opened), "http://127.0.0.1:1"+u) {
			t.Errorf("the stub did not record %s; its log:\n%s", u, opened)
		}
		if !strings.Contains(logged.String(), "http://127.0.0.1:1"+u) {
			t.Errorf("the runner did not log the attempt to open %s; it logged:\n%s", u, logged.String())
		}
	}
}
