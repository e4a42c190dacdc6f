package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/shard"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// exactVersion is a pinned npm version: no range, no tag.
var exactVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// TestCensusListIsValid holds the committed census to what issue 31 asks:
// at least 25 servers and 6 hosts or client libraries from npm, each
// pinned to an exact version, each with a way to start it (or the
// credential it needs), HTTP entries on loopback, hosts with a known
// driver and an existing script.
func TestCensusListIsValid(t *testing.T) {
	l, err := readCensus("../../reports/interop/census.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range l.Tools {
		if !exactVersion.MatchString(pkgVersion(tool)) {
			t.Errorf("tool %q is not pinned to an exact version", tool)
		}
	}
	servers, hosts := map[string]bool{}, map[string]bool{}
	ids := map[string]bool{}
	for _, e := range l.entries() {
		if ids[e.id] {
			t.Errorf("%s is listed twice", e.id)
		}
		ids[e.id] = true
		for _, p := range append([]string{e.pkg}, e.extra...) {
			if !exactVersion.MatchString(pkgVersion(p)) {
				t.Errorf("%s: package %q is not pinned to an exact version (NAME@X.Y.Z)", e.id, p)
			}
		}
		if e.transport != "stdio" && e.transport != "streamable" {
			t.Errorf("%s: transport %q, want stdio or streamable", e.id, e.transport)
		}
		if e.server != nil {
			servers[pkgName(e.pkg)] = true
			if len(e.server.Command) == 0 {
				t.Errorf("%s: no command", e.id)
			}
			if e.transport == "streamable" && !strings.HasPrefix(e.server.URL, "http://127.0.0.1:${PORT}/") {
				t.Errorf("%s: URL %q must be on 127.0.0.1:${PORT}", e.id, e.server.URL)
			}
			if e.transport == "stdio" && e.server.URL != "" {
				t.Errorf("%s: a stdio server has no URL", e.id)
			}
			continue
		}
		h := e.host
		hosts[pkgName(e.pkg)] = true
		if driveKinds[h.Driver] == "" {
			t.Errorf("%s: unknown driver %q", e.id, h.Driver)
		}
		if h.Kind != "host" && h.Kind != "library" && h.Kind != "bridge" {
			t.Errorf("%s: kind %q, want host, library or bridge", e.id, h.Kind)
		}
		if (h.Driver == "node-script") != (h.Script != "") {
			t.Errorf("%s: a node-script driver needs a script, no other driver takes one", e.id)
		}
		if h.Script != "" {
			if _, err := os.Stat(filepath.Join("../../reports/interop/census-hosts", h.Script)); err != nil {
				t.Errorf("%s: %v", e.id, err)
			}
		}
	}
	if len(servers) < 25 {
		t.Errorf("the census lists %d server packages, want at least 25", len(servers))
	}
	if len(hosts) < 6 {
		t.Errorf("the census lists %d host and client library packages, want at least 6", len(hosts))
	}
}

// TestCensusShardsSplitTheEntries: the parts of a -shard split run every
// runnable entry once, and none that needs a credential.
func TestCensusShardsSplitTheEntries(t *testing.T) {
	l, err := readCensus("../../reports/interop/census.json")
	if err != nil {
		t.Fatal(err)
	}
	all, selected := selectCensus(l, "", shard.Part{})
	if len(all) != selected || selected == 0 {
		t.Fatalf("unsharded: %d entries of %d selected", len(all), selected)
	}
	for _, e := range all {
		if e.credential != "" {
			t.Errorf("%s needs a credential but was selected to run", e.id)
		}
	}
	for _, n := range []int{2, 3, 5} {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			part, _ := selectCensus(l, "", shard.Part{K: k, N: n})
			if len(part) == 0 {
				t.Errorf("part %d/%d is empty", k, n)
			}
			for _, e := range part {
				seen[e.id]++
			}
		}
		if len(seen) != len(all) {
			t.Errorf("%d parts ran %d entries, want %d", n, len(seen), len(all))
		}
		for id, times := range seen {
			if times != 1 {
				t.Errorf("%d parts ran %s %d times", n, id, times)
			}
		}
	}
	if hs, _ := selectCensus(l, "hosts", shard.Part{}); len(hs) == 0 || hs[0].host == nil {
		t.Errorf("-only hosts selected %d entries, want the hosts", len(hs))
	}
}

// fakeMcpcheck writes a shell script that plays mcpcheck: "version"
// prints a version line; "server"/"client" appends a line to count and
// copies report into the --out directory as the run's JSON report.
func fakeMcpcheck(t *testing.T, dir string, run *reports.Run) (bin, count string) {
	t.Helper()
	report := filepath.Join(dir, "report.json")
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, run, reports.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(report, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	count = filepath.Join(dir, "count")
	bin = filepath.Join(dir, "mcpcheck")
	script := `#!/bin/sh
if [ "$1" = version ]; then echo "mcpcheck fake"; exit 0; fi
role=$1
echo "$role $*" >> ` + count + `
while [ $# -gt 0 ]; do if [ "$1" = --out ]; then out=$2; fi; shift; done
mkdir -p "$out" && cp ` + report + ` "$out/mcpcheck-$role.json"
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, count
}

func fakeRun(role string) *reports.Run {
	return &reports.Run{Schema: reports.Schema, Tool: reports.Tool{Name: "mcpcheck", Version: "fake"}, Transport: "stdio",
		Target: reports.Target{Kind: reports.TargetStdio, Command: "srv", Role: role}, Versions: []spec.Version{spec.V20251125},
		Peers: []reports.PeerInfo{{Version: spec.V20251125, Negotiated: string(spec.V20251125), Name: "fake-impl", SoftwareVersion: "1.0"}},
		Checks: []reports.Check{{ID: "tools/x", Version: spec.V20251125, Transport: "stdio", Outcome: reports.Fail, Level: "MUST", Area: "tools",
			Requirements: []string{"req.a"}, Violated: []string{"req.a"}, Actual: "the wrong thing"}}}
}

// writeCensusList writes a census list of two stdio servers and a stdio
// host into dir.
func writeCensusList(t *testing.T, dir, serverArg string) string {
	t.Helper()
	l := censusList{
		Servers: []censusServer{
			{Name: "a", Package: "a@1.0.0", Transport: "stdio", Command: []string{"srv-a", serverArg}},
			{Name: "b", Package: "b@2.0.0", Transport: "stdio", Command: []string{"srv-b"}},
			{Name: "c", Package: "c@3.0.0", Transport: "stdio", Command: []string{"srv-c"}, NeedsCredential: "C_TOKEN"},
		},
		Hosts: []censusHost{{Name: "h", Package: "h@4.0.0", Kind: "host", Transport: "stdio", Driver: "claude-code"}},
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "census.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestCensusResumesFromItsCache: a second census run checks nothing
// whose report is current; an entry that changed, or a different
// mcpcheck binary, is checked again; an entry that needs a credential is
// listed as such and never run.
func TestCensusResumesFromItsCache(t *testing.T) {
	dir := t.TempDir()
	bin, count := fakeMcpcheck(t, dir, fakeRun("server"))
	list := writeCensusList(t, dir, "x")
	cc := censusConfig{config: config{dir: filepath.Join(dir, "cache"), out: filepath.Join(dir, "out"), protocol: "all", perServer: time.Minute, step: time.Second, jobs: 1, skipInstall: true},
		list: list, mcpcheck: bin, caseLimit: 10 * time.Second, hostLimit: 10 * time.Second}
	var out, log bytes.Buffer
	if err := runCensus(context.Background(), cc, shard.Part{}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if n := countLines(t, count); n != 3 {
		t.Fatalf("first run: mcpcheck ran %d times, want 3 (servers a, b and host h; c needs a credential)\n%s", n, log.String())
	}
	if err := runCensus(context.Background(), cc, shard.Part{}, &out, &log); err != nil {
		t.Fatal(err)
	}
	if n := countLines(t, count); n != 3 {
		t.Errorf("second run: mcpcheck ran %d times in all, want still 3 (every report current)", n)
	}
	cc.list = writeCensusList(t, dir, "y") // server a's command changed
	if err := runCensus(context.Background(), cc, shard.Part{}, &out, &log); err != nil {
		t.Fatal(err)
	}
	if n := countLines(t, count); n != 4 {
		t.Errorf("after a's entry changed: mcpcheck ran %d times in all, want 4", n)
	}
	if err := os.WriteFile(bin, append(mustRead(t, bin), []byte("# another build\n")...), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runCensus(context.Background(), cc, shard.Part{}, &out, &log); err != nil {
		t.Fatal(err)
	}
	if n := countLines(t, count); n != 7 {
		t.Errorf("after mcpcheck changed: mcpcheck ran %d times in all, want 7", n)
	}
	var doc censusDoc
	if err := json.Unmarshal(mustRead(t, filepath.Join(cc.out, "CENSUS.json")), &doc); err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, r := range doc.Entries {
		status[r.ID] = r.Status + " " + r.Reason
		if r.Status == "judged" && (r.Implementation != "fake-impl 1.0" || len(r.Defects) != 1 || !strings.Contains(r.Defects[0], "the wrong thing")) {
			t.Errorf("%s: implementation %q, defects %q; want fake-impl 1.0 and the failure", r.ID, r.Implementation, r.Defects)
		}
	}
	for id, want := range map[string]string{"server-a-stdio": "judged", "server-b-stdio": "judged", "server-c-stdio": "needs-credential needs credential: C_TOKEN", "host-h-stdio": "judged"} {
		if !strings.HasPrefix(status[id], want) {
			t.Errorf("%s: %q, want %q", id, status[id], want)
		}
	}
	md := string(mustRead(t, filepath.Join(cc.out, "CENSUS.md")))
	if !strings.Contains(md, "needs credential: C_TOKEN") {
		t.Errorf("CENSUS.md does not list the entry that needs a credential:\n%s", md)
	}
}

// TestCensusShardsMergeIntoTheUnshardedMatrix: the reports of -shard 1/2
// and 2/2, gathered into one cache directory, give the same census files
// as one unsharded run.
func TestCensusShardsMergeIntoTheUnshardedMatrix(t *testing.T) {
	dir := t.TempDir()
	bin, _ := fakeMcpcheck(t, dir, fakeRun("server"))
	list := writeCensusList(t, dir, "x")
	run := censusShardRunner(t, dir, list, bin)
	whole := run("whole", shard.Part{})
	run("part1", shard.Part{K: 1, N: 2})
	run("part2", shard.Part{K: 2, N: 2})
	merged := censusConfig{config: config{dir: filepath.Join(dir, "merged"), out: filepath.Join(dir, "merged", "out"), protocol: "all", matrixOnly: true}, list: list}
	for _, p := range []string{"part1", "part2"} {
		src := filepath.Join(dir, p, "census", "runs")
		ents, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			dst := filepath.Join(merged.dir, "census", "runs", e.Name())
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			files, _ := os.ReadDir(filepath.Join(src, e.Name()))
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(dst, f.Name()), mustRead(t, filepath.Join(src, e.Name(), f.Name())), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// A committed census beside the list whose rows are stale: the
	// shards' fresh reports replace every one of them, none is carried.
	var stale censusDoc
	if err := json.Unmarshal(mustRead(t, filepath.Join(whole.out, "CENSUS.json")), &stale); err != nil {
		t.Fatal(err)
	}
	for i := range stale.Entries {
		stale.Entries[i].Judged, stale.Entries[i].Verdict = "a stale mcpcheck", "pass"
	}
	b, err := json.Marshal(stale)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "CENSUS.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	if err := runCensus(context.Background(), merged, shard.Part{}, &out, &log); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"CENSUS.json", "CENSUS.md", "CENSUS-SERVERS.md", "CENSUS-HOSTS.md"} {
		a := normalizeCensus(mustRead(t, filepath.Join(whole.out, f)), whole.dir)
		b := normalizeCensus(mustRead(t, filepath.Join(merged.out, f)), merged.dir)
		if a != b {
			t.Errorf("%s: the merged shards differ from the unsharded run:\n--- unsharded\n%s\n--- merged\n%s", f, a, b)
		}
	}
}

func normalizeCensus(b []byte, dir string) string {
	return strings.ReplaceAll(string(b), dir, "DIR")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDriveWritesTheHostsConfiguration: each driver puts the staged
// server into the host's own configuration in a throwaway HOME and runs
// the host there (a stand-in host prints what it finds), and the HOME is
// gone afterwards.
func TestDriveWritesTheHostsConfiguration(t *testing.T) {
	pkg := t.TempDir()
	// The stand-in host, run by "-node /bin/sh": it prints its HOME, the
	// configuration and its arguments.
	host := "#!/bin/sh\necho HOME=$HOME\ncat $HOME/.claude.json $HOME/.gemini/settings.json $CODEX_HOME/config.toml 2>/dev/null\necho ARGS $*\n"
	for _, p := range []string{"@anthropic-ai/claude-code/bin/claude.exe", "@google/gemini-cli/bundle/gemini.js", "@openai/codex/bin/codex.js"} {
		path := filepath.Join(pkg, "node_modules", p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(host), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		kind string
		args []string
		want []string
	}{
		{"claude-code", []string{"--", "/x/mcpcheck", "stage", "--id", "7"}, []string{`"type": "stdio"`, `"command": "/x/mcpcheck"`, `"--id"`, "ARGS mcp list"}},
		{"claude-code", []string{"-url", "http://127.0.0.1:9/mcp"}, []string{`"type": "http"`, `"url": "http://127.0.0.1:9/mcp"`, "ARGS mcp list"}},
		{"gemini-cli", []string{"--", "/x/mcpcheck", "stage"}, []string{`"command": "/x/mcpcheck"`, `"trust": true`, "ARGS mcp list"}},
		{"gemini-cli", []string{"-url", "http://127.0.0.1:9/mcp"}, []string{`"httpUrl": "http://127.0.0.1:9/mcp"`}},
		{"codex", []string{"--", "/x/mcpcheck", "stage"}, []string{"[mcp_servers.mcpcheck]", `command = "/x/mcpcheck"`, `args = ["stage"]`, "base_url = \"http://127.0.0.1:", "ARGS exec --skip-git-repo-check"}},
		{"codex", []string{"-url", "http://127.0.0.1:9/mcp"}, []string{`url = "http://127.0.0.1:9/mcp"`}},
	} {
		var out, errb bytes.Buffer
		args := append([]string{tc.kind, "-pkg", pkg, "-node", "/bin/sh"}, tc.args...)
		if err := drive(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("drive %v: %v\n%s", args, err, errb.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("drive %v: output lacks %q:\n%s", args, w, out.String())
			}
		}
		home := strings.TrimPrefix(strings.SplitN(out.String(), "\n", 2)[0], "HOME=")
		if home == "" || !strings.Contains(home, "mcpcheck-host-") {
			t.Errorf("drive %v: the host ran with HOME %q, want a throwaway one", args, home)
		} else if _, err := os.Stat(home); !os.IsNotExist(err) {
			t.Errorf("drive %v: the throwaway HOME %s is still there (%v)", args, home, err)
		}
	}
	var out, errb bytes.Buffer
	if err := drive(context.Background(), []string{"claude-code", "-pkg", pkg}, &out, &errb); err == nil {
		t.Error("drive without a server succeeded")
	}
	if err := drive(context.Background(), []string{"no-such-host"}, &out, &errb); err == nil {
		t.Error("drive of an unknown kind succeeded")
	}
}

// TestFakeModelAnswers400AfterItsDelay: Codex's model endpoint answers an
// error, and not before its delay.
func TestFakeModelAnswers400AfterItsDelay(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ln, err := startFakeModel(ctx, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	start := time.Now()
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Post("http://"+ln.Addr().String()+"/v1/responses", "application/json", strings.NewReader(`{"model":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", resp.StatusCode)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("answered after %s, before its delay of 300ms", d)
	}
}

// TestCensusDiffShowsMovedCells: the census diff names each cell, verdict
// and broken requirement that moved, and nothing that stayed.
func TestCensusDiffShowsMovedCells(t *testing.T) {
	dir := t.TempDir()
	doc := func(cell, verdict, req string) string {
		return `{"servers":{"servers":[{"name":"a (stdio)","headline":"` + verdict + `","violated":[{"id":"tools/x","requirement":"` + req + `","outcome":"fail"}]}],` +
			`"rows":[{"requirement":"req.a","cells":["` + cell + `"]},{"requirement":"req.b","cells":["pass"]}]},"hosts":{"servers":[],"rows":[]}}`
	}
	oldPath, newPath := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	if err := os.WriteFile(oldPath, []byte(doc("fail", "fail", "req.a")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newPath, []byte(doc("pass", "pass", "req.c")), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, err := censusDiff(oldPath, newPath, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"servers · a (stdio) · req.a: fail → pass", "servers · a (stdio) · verdict: fail → pass",
		"servers · a (stdio) · tools/x breaks req.a: fail → –", "servers · a (stdio) · tools/x breaks req.c: – → fail"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the diff lacks %q:\n%s", want, out.String())
		}
	}
	if n != 4 || strings.Contains(out.String(), "req.b") {
		t.Errorf("%d moved, want 4, and req.b (unchanged) unnamed:\n%s", n, out.String())
	}
	if n, err := censusDiff(oldPath, oldPath, &out); err != nil || n != 0 {
		t.Errorf("a census against itself: %d moved, %v", n, err)
	}
}

// TestCensusDiffAcrossTheRename: a census recorded before a check was
// renamed (auth/token-expired) diffs cleanly against one recorded after
// (authorization/token-expired); what moved is named by the new ID.
func TestCensusDiffAcrossTheRename(t *testing.T) {
	dir := t.TempDir()
	doc := func(id, outcome string) string {
		return `{"servers":{"servers":[{"name":"a (streamable)","headline":"fail","violated":[{"id":"` + id + `","requirement":"authorization.token-validation.reject-expired","outcome":"` + outcome + `"}]}],"rows":[]},"hosts":{"servers":[],"rows":[]}}`
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, same, moved := write("old.json", doc("auth/token-expired", "fail")), write("same.json", doc("authorization/token-expired", "fail")), write("moved.json", doc("authorization/token-expired", "warn"))
	var out bytes.Buffer
	if n, err := censusDiff(old, same, &out); err != nil || n != 0 {
		t.Errorf("the same census under the old and the new ID: %d moved (%v):\n%s", n, err, out.String())
	}
	out.Reset()
	n, err := censusDiff(old, moved, &out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "authorization/token-expired breaks authorization.token-validation.reject-expired: fail → warn"; n != 1 || !strings.Contains(out.String(), want) {
		t.Errorf("%d moved, want 1 (%q):\n%s", n, want, out.String())
	}
}

// TestCensusHTTPServerGetsItsPort: an HTTP entry's command and
// environment name the same free port its URL does (${PORT} is chosen
// before either is expanded).
func TestCensusHTTPServerGetsItsPort(t *testing.T) {
	dir := t.TempDir()
	portFile := filepath.Join(dir, "port")
	e := censusEntry{id: "server-h-streamable", name: "h", transport: "streamable", pkg: "h@1.0.0"}
	e.server = &censusServer{Name: "h", Package: "h@1.0.0", Transport: "streamable", URL: "http://127.0.0.1:${PORT}/mcp",
		Command: []string{"sh", "-c", `printf %s "$PORT ${PORT}" > ` + portFile}, Env: map[string]string{"PORT": "${PORT}"}}
	cc, d := censusTestDirs(t, dir)
	var log bytes.Buffer
	run := checkCensusEntry(context.Background(), cc, d, e, map[string]string{}, "/nonexistent/mcpcheck", func(string, ...any) {}, &log)
	if len(run.Problems) != 1 || !strings.Contains(run.Problems[0], "did not start") {
		t.Fatalf("problems %q, want one: did not start (the stand-in never listens)", run.Problems)
	}
	got := strings.Fields(string(mustRead(t, portFile)))
	if len(got) != 2 || got[0] != got[1] || got[0] == "${PORT}" || !strings.Contains(run.Problems[0], "127.0.0.1:"+got[0]) {
		t.Errorf("the server was given port %q (environment, command), its URL's is in %q", got, run.Problems[0])
	}
}

// censusTestDirs is a census configuration (installs skipped, short
// bounds) and its directories under dir, made.
func censusTestDirs(t *testing.T, dir string) (censusConfig, censusDirs) {
	t.Helper()
	cc := censusConfig{config: config{dir: dir, protocol: "all", perServer: time.Minute, step: time.Second, jobs: 1, skipInstall: true}, caseLimit: 5 * time.Second}
	d := newCensusDirs(dir)
	for _, p := range []string{d.logs, d.runs, d.scratch} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return cc, d
}

// TestCensusServerParallel: an entry's parallel is passed to mcpcheck
// server as --parallel, and its oneInstance as --one-instance
// (browsermcp's instances end each other when they run side by side); an
// entry without them leaves mcpcheck's defaults. Every server run gets
// --deadline inside the runner's bound.
func TestCensusServerParallel(t *testing.T) {
	for _, n := range []int{0, 1} {
		dir := t.TempDir()
		seen := filepath.Join(dir, "args")
		fake := filepath.Join(dir, "mcpcheck")
		if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$*\" > "+seen+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		s := censusServer{Name: "p", Package: "p@1.0.0", Transport: "stdio", Command: []string{"p-server"}, Parallel: n, OneInstance: n == 1}
		e := censusEntry{id: s.id(), name: s.Name, transport: s.Transport, pkg: s.Package, server: &s}
		cc, d := censusTestDirs(t, dir)
		cc.perServer = 45 * time.Minute // the census's bound
		var log bytes.Buffer
		checkCensusEntry(context.Background(), cc, d, e, map[string]string{}, fake, func(string, ...any) {}, &log)
		args := strings.Fields(string(mustRead(t, seen)))
		at := slices.Index(args, "--parallel")
		switch {
		case n == 0 && at >= 0:
			t.Errorf("an entry without parallel ran mcpcheck with --parallel: %q", args)
		case n > 0 && (at < 0 || at+1 >= len(args) || args[at+1] != strconv.Itoa(n)):
			t.Errorf("an entry with parallel %d ran mcpcheck with %q, want --parallel %d", n, args, n)
		}
		if one := slices.Contains(args, "--one-instance"); one != s.OneInstance {
			t.Errorf("an entry with oneInstance %v ran mcpcheck with %q", s.OneInstance, args)
		}
		// mcpcheck's own deadline (default 30m) must not end the run
		// inside the runner's bound: it is the bound less 2m.
		if at := slices.Index(args, "--deadline"); at < 0 || at+1 >= len(args) || args[at+1] != "43m0s" {
			t.Errorf("a server entry (bound %s) ran mcpcheck with %q, want --deadline 43m0s", cc.perServer, args)
		}
	}
}

// censusTriage is reports/interop/CENSUS-TRIAGE.json: the reading of
// every distinct (check, requirement) a census entry broke.
type censusTriage struct {
	Comment  string `json:"comment"`
	Failures []struct {
		Check       string   `json:"check"`
		Requirement string   `json:"requirement"`
		Outcome     string   `json:"outcome"`
		Entries     []string `json:"entries"`
		// Verdict is TRUE (the implementation's defect), FALSE (a false
		// judgement of mcpcheck) or UNREAD (listed, not read yet: Why
		// says what the reading needs).
		Verdict string `json:"verdict"`
		Spec    string `json:"spec"`
		Wire    string `json:"wire"`
		Why     string `json:"why"`
		// UnreadEntries are columns among Entries the reading did not
		// compare (they broke it after it was read): not read yet.
		UnreadEntries []string `json:"unreadEntries"`
		// FalseFor are columns where the same failure is a false
		// judgement, though the reading of the others is Verdict.
		FalseFor []struct {
			Entries []string `json:"entries"`
			Wire    string   `json:"wire"`
			Why     string   `json:"why"`
		} `json:"falseFor"`
	} `json:"failures"`
}

// TestCensusFailuresAreTriaged holds the committed census to its triage:
// every (check, requirement, outcome) a census column broke is listed in
// CENSUS-TRIAGE.json, naming exactly the columns that broke it, as TRUE
// (with the spec's words paraphrased and the wire evidence), FALSE
// (with the evidence that mcpcheck misjudged) or UNREAD (logged: the
// census is not fully read while any is left); a triage entry no column
// breaks any more is stale. A change that moves a triaged cell fails here
// until the reading is updated, so it shows in review.
func TestCensusFailuresAreTriaged(t *testing.T) {
	b := mustRead(t, "../../reports/interop/CENSUS.json")
	var doc struct {
		Servers, Hosts censusMatrixJSON
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	broken := map[string]map[string]bool{} // check|requirement|outcome -> columns
	for _, m := range []censusMatrixJSON{doc.Servers, doc.Hosts} {
		for _, s := range m.Servers {
			for _, v := range s.Violated {
				if v.Outcome != "fail" && v.Outcome != "warn" {
					continue
				}
				k := reports.CanonicalCheckID(v.ID) + "|" + v.Requirement + "|" + v.Outcome
				if broken[k] == nil {
					broken[k] = map[string]bool{}
				}
				broken[k][s.Name] = true
			}
		}
	}
	var tri censusTriage
	dec := json.NewDecoder(bytes.NewReader(mustRead(t, "../../reports/interop/CENSUS-TRIAGE.json")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tri); err != nil {
		t.Fatalf("CENSUS-TRIAGE.json: %v", err)
	}
	read := map[string]bool{}
	var unreadVerdicts []string
	for _, f := range tri.Failures {
		k := reports.CanonicalCheckID(f.Check) + "|" + f.Requirement + "|" + f.Outcome
		if read[k] {
			t.Errorf("%s is read twice", k)
		}
		read[k] = true
		cols := broken[k]
		if cols == nil {
			t.Errorf("%s: no census column breaks it any more: the triage entry is stale (remove it, or say what changed)", k)
			continue
		}
		var want []string
		for c := range cols {
			want = append(want, c)
		}
		got := append([]string(nil), f.Entries...)
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: the triage names %q, the census columns breaking it are %q: read the ones that moved", k, got, want)
		}
		for _, u := range f.UnreadEntries {
			if !cols[u] {
				t.Errorf("%s: unread entry %q does not break it", k, u)
			}
			unreadVerdicts = append(unreadVerdicts, k+" ("+u+")")
		}
		for _, ff := range f.FalseFor {
			for _, c := range ff.Entries {
				if !cols[c] {
					t.Errorf("%s: falseFor names %q, which does not break it", k, c)
				}
			}
			if ff.Wire == "" || ff.Why == "" {
				t.Errorf("%s: a falseFor reading needs the wire evidence and why mcpcheck misjudged", k)
			}
		}
		switch f.Verdict {
		case "TRUE":
			if f.Spec == "" || f.Wire == "" {
				t.Errorf("%s: a TRUE reading needs the spec's words (paraphrased) and the wire evidence", k)
			}
		case "FALSE":
			if f.Wire == "" || f.Why == "" {
				t.Errorf("%s: a FALSE reading needs the wire evidence and why mcpcheck misjudged", k)
			}
		case "UNREAD":
			// Not read yet: listed so that nothing is read as passing.
			if f.Why == "" {
				t.Errorf("%s: an UNREAD entry says what its reading still needs", k)
			}
			unreadVerdicts = append(unreadVerdicts, k)
		default:
			t.Errorf("%s: verdict %q, want TRUE, FALSE or UNREAD", k, f.Verdict)
		}
	}
	if len(unreadVerdicts) > 0 {
		t.Logf("%d census failures are listed but not read yet (UNREAD): %s", len(unreadVerdicts), strings.Join(unreadVerdicts, ", "))
	}
	var unread []string
	for k := range broken {
		if !read[k] {
			unread = append(unread, k)
		}
	}
	sort.Strings(unread)
	for _, k := range unread {
		t.Errorf("%s (%d columns) is not read in CENSUS-TRIAGE.json", k, len(broken[k]))
	}
}

// TestDetectSDK names the MCP SDK a package depends on with the version
// npm installed (its own nested copy first), says when it depends on none,
// and says nothing when the package is not there.
func TestDetectSDK(t *testing.T) {
	prefix := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(prefix, "node_modules", rel, "package.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("srv", `{"dependencies":{"@modelcontextprotocol/sdk":"^1.0.0","zod":"^3"}}`)
	write("@modelcontextprotocol/sdk", `{"version":"1.32.2"}`)
	write("fw", `{"dependencies":{"fastmcp":"^3","@modelcontextprotocol/sdk":"^1"}}`)
	write("fw/node_modules/fastmcp", `{"version":"3.1.0"}`)
	write("bare", `{"dependencies":{"express":"^5"}}`)
	for pkg, want := range map[string]string{
		"srv":     "@modelcontextprotocol/sdk 1.32.2",
		"fw":      "fastmcp 3.1.0 + @modelcontextprotocol/sdk 1.32.2",
		"bare":    "none among its npm dependencies (bundled or its own)",
		"missing": "",
	} {
		if got := detectSDK(prefix, pkg); got != want {
			t.Errorf("detectSDK(%s) = %q, want %q", pkg, got, want)
		}
	}
}

// TestDriveLeavesNothingBehind: a process the host left running in its
// group (as mcp-remote does after its input closes) ends with the drive.
func TestDriveLeavesNothingBehind(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "host.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 300 &\necho $! > "+pidFile+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Files, as in a real run (the driver's own stdout and stderr), so that
	// no copying waits for the child's end of a pipe.
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := drive(context.Background(), []string{"node-script", "-node", "/bin/sh", "-script", script, "-url", "http://127.0.0.1:9/mcp"}, out, out); err != nil {
		t.Fatalf("drive: %v\n%s", err, mustRead(t, out.Name()))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(mustRead(t, pidFile))))
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL is sent when the drive returns and acted on by the kernel
	// soon after: a killed process is a zombie or gone. Without the kill
	// the sleep runs for 300 s, far past this bounded watch.
	state := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return // gone
		}
		if f := strings.Fields(string(b)); len(f) > 2 {
			if state = f[2]; state == "Z" || state == "X" {
				return
			}
		}
	}
	t.Errorf("the host's child %d still runs (state %s) 10 s after the drive returned", pid, state)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// TestCensusInstallHasTheEntryEnvironment: an entry's npm install runs
// with the entry's variables that name no placeholder, so install scripts
// that download a browser (puppeteer, @playwright/browser-chromium) see
// the entry's PUPPETEER_SKIP_DOWNLOAD and do not fail the install where
// the network is closed (both entries were "not installed" before).
func TestCensusInstallHasTheEntryEnvironment(t *testing.T) {
	bin := t.TempDir()
	seen := filepath.Join(t.TempDir(), "seen")
	script := "#!/bin/sh\nprintf 'skip=%s port=%s\\n' \"$PUPPETEER_SKIP_DOWNLOAD\" \"$PORT\" > " + seen + "\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("PUPPETEER_SKIP_DOWNLOAD", "")
	t.Setenv("PORT", "")
	s := censusServer{Name: "puppeteer", Package: "@modelcontextprotocol/server-puppeteer@2025.5.12", Transport: "stdio",
		Env: map[string]string{"PUPPETEER_SKIP_DOWNLOAD": "1", "PORT": "${PORT}"}}
	e := censusEntry{id: s.id(), name: s.Name, transport: s.Transport, pkg: s.Package, server: &s}
	d := newCensusDirs(t.TempDir())
	var log bytes.Buffer
	prefix, err := installEntry(context.Background(), d, e, func(string, ...any) {}, &log)
	if err != nil {
		t.Fatalf("installEntry: %v (%s)", err, log.String())
	}
	got, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the fake npm did not run: %v", err)
	}
	if want := "skip=1 port=\n"; string(got) != want {
		t.Errorf("npm install saw %q, want %q (the entry's PUPPETEER_SKIP_DOWNLOAD, not its ${PORT} placeholder)", got, want)
	}
	if stamp, _ := os.ReadFile(filepath.Join(prefix, ".mcpcheck-installed")); string(stamp) != s.Package {
		t.Errorf("stamp %q, want %q", stamp, s.Package)
	}
}

// TestDriveKeepsTheHostsOutput: with CENSUS_HOST_LOGS set (the census
// runner sets it for host entries), each launch keeps the host's whole
// stdout and stderr in a log named after the launch's version and
// scenario, with how the host ended; the driver's own output still
// carries it too (mcpcheck client reads its tail).
func TestDriveKeepsTheHostsOutput(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	script := filepath.Join(dir, "host.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'to stdout'\necho 'why it stopped' >&2\nexit 4\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envHostLogs, logs)
	t.Setenv("MCP_CONFORMANCE_SCENARIO", "auth/metadata-default")
	t.Setenv("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-06-18")
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := drive(context.Background(), []string{"node-script", "-node", "/bin/sh", "-script", script, "-url", "http://127.0.0.1:9/mcp"}, out, out); err == nil {
		t.Error("drive: the host exited with status 4, the drive did not say so")
	}
	if got := string(mustRead(t, out.Name())); !strings.Contains(got, "why it stopped") {
		t.Errorf("the driver's own output lacks the host's stderr: %q", got)
	}
	files, _ := filepath.Glob(filepath.Join(logs, "2025-06-18-auth_metadata-default-*.log"))
	if len(files) != 1 {
		t.Fatalf("host logs %v, want one named after version and scenario", files)
	}
	got := string(mustRead(t, files[0]))
	for _, want := range []string{"scenario auth/metadata-default, version 2025-06-18", "out] to stdout", "err] why it stopped", "exit status 4"} {
		if !strings.Contains(got, want) {
			t.Errorf("the host log lacks %q:\n%s", want, got)
		}
	}
}

// TestCensusEntryParallelAndTimeout: a host entry's parallel is mcpcheck
// client's --parallel instead of -jobs, and an entry's timeoutMinutes,
// when longer than -server-timeout, is its run's bound, with mcpcheck's
// --deadline 2 minutes inside it (Codex needs 4 launches at once and
// Gemini CLI over an hour to be judged in every version).
func TestCensusEntryParallelAndTimeout(t *testing.T) {
	for _, tc := range []struct {
		parallel, minutes int
		wantParallel      string
		wantDeadline      string
	}{
		{0, 0, "1", "43m0s"},
		{4, 0, "4", "43m0s"},
		{0, 75, "1", "1h13m0s"},
		{0, 20, "1", "43m0s"}, // shorter than the census's bound: the bound stays
	} {
		dir := t.TempDir()
		seen := filepath.Join(dir, "args")
		fake := filepath.Join(dir, "mcpcheck")
		if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$*\" > "+seen+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		h := censusHost{Name: "h", Package: "h@1.0.0", Kind: "host", Transport: "stdio", Driver: "claude-code", Parallel: tc.parallel, TimeoutMinutes: tc.minutes}
		e := censusEntry{id: h.id(), name: h.Name, transport: h.Transport, pkg: h.Package, host: &h}
		cc, d := censusTestDirs(t, dir)
		cc.perServer = 45 * time.Minute
		cc.jobs = 1
		var log bytes.Buffer
		checkCensusEntry(context.Background(), cc, d, e, map[string]string{}, fake, func(string, ...any) {}, &log)
		args := strings.Fields(string(mustRead(t, seen)))
		arg := func(flag string) string {
			if at := slices.Index(args, flag); at >= 0 && at+1 < len(args) {
				return args[at+1]
			}
			return ""
		}
		if arg("--parallel") != tc.wantParallel || arg("--deadline") != tc.wantDeadline {
			t.Errorf("host entry with parallel %d, timeoutMinutes %d (census bound 45m, -jobs 1) ran mcpcheck with %q; want --parallel %s --deadline %s",
				tc.parallel, tc.minutes, args, tc.wantParallel, tc.wantDeadline)
		}
	}
}

// censusShardRunner returns a function that runs the census of list with
// the fake mcpcheck bin into dir/NAME (cache and out), as shard part
// (the zero Part: unsharded).
func censusShardRunner(t *testing.T, dir, list, bin string) func(name string, part shard.Part) censusConfig {
	return func(name string, part shard.Part) censusConfig {
		t.Helper()
		cc := censusConfig{config: config{dir: filepath.Join(dir, name), out: filepath.Join(dir, name, "out"), protocol: "all", perServer: time.Minute, step: time.Second, jobs: 1, skipInstall: true},
			list: list, mcpcheck: bin, caseLimit: 10 * time.Second, hostLimit: 10 * time.Second}
		var out, log bytes.Buffer
		if err := runCensus(context.Background(), cc, part, &out, &log); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log.String())
		}
		return cc
	}
}
