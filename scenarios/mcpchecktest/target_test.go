package mcpchecktest_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/scenarios/mcpchecktest"
	"github.com/mcpcheck/mcpcheck/spec"
)

// serveStdioEnv, set to "1" in the environment of this test binary, makes
// it mcpcheck's reference server over stdio instead of a test run: the
// stdio server TestCommandWithEnv starts through WithEnv.
const serveStdioEnv = "MCPCHECKTEST_SERVE_STDIO"

// writeFileEnv, set to a file name with serveStdioEnv, makes that server
// write the file in its working directory before it serves.
const writeFileEnv = "MCPCHECKTEST_WRITE_FILE"

// TestMain runs the tests, or, when serveStdioEnv is "1", serves the
// reference server on stdin and stdout until stdin ends.
func TestMain(m *testing.M) {
	if os.Getenv(serveStdioEnv) == "1" {
		os.Exit(serveStdio())
	}
	os.Exit(m.Run())
}

// serveStdio serves the reference server over this process's stdio and
// returns its exit status.
func serveStdio() int {
	if name := os.Getenv(writeFileEnv); name != "" {
		// A server that writes where it runs (a cache, a log).
		if err := os.WriteFile(name, []byte("written by the server\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	srv, err := server.New(server.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer srv.Close()
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// pingOpts keeps the runs short: the ping checks in one version.
var pingOpts = mcpchecktest.Options{Versions: []spec.Version{spec.V20251125}, LabelFilter: "area:ping"}

// passed counts the checks of res that passed and says what else it
// holds that a passing run must not: broken checks, an unjudged run,
// harness problems.
func passed(res *mcpchecktest.Result) (passes int, wrong []string) {
	for _, c := range res.Report.Checks {
		switch {
		case c.Outcome == reports.Pass:
			passes++
		case c.Broken():
			wrong = append(wrong, fmt.Sprintf("%s %s %s: %s %s", c.ID, c.Version, c.Transport, c.Outcome, c.Actual))
		}
	}
	if j := reports.Verdict(res.Report); !j.OK(false) {
		wrong = append(wrong, "verdict: "+j.Summary(false))
	}
	for _, p := range res.Problems {
		wrong = append(wrong, "problem: "+p.Error())
	}
	return passes, wrong
}

// TestURLTarget: URL reaches a server over HTTP at the endpoint it names
// (the reference server on a loopback port), whose checks are judged
// over the streamable transport and pass, with the URL recorded in the
// report; the same server at a path that is not its endpoint does not
// come out passing.
func TestURLTarget(t *testing.T) {
	srv, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{})) // binds 127.0.0.1
	defer ts.Close()

	endpoint := ts.URL + "/mcp"
	res, err := mcpchecktest.Run(t.Context(), mcpchecktest.URL(endpoint), pingOpts)
	if err != nil {
		t.Fatalf("Run against %s: %v", endpoint, err)
	}
	passes, wrong := passed(res)
	if passes == 0 || len(wrong) > 0 {
		t.Errorf("against the reference server at %s: %d checks passed (want some), and: %q", endpoint, passes, wrong)
	}
	if got := res.Report.Target; got.URL != endpoint || got.Kind != reports.TargetHTTP {
		t.Errorf("the report's target is %+v; want kind %q at %s", got, reports.TargetHTTP, endpoint)
	}
	for _, c := range res.Report.Checks {
		if c.Outcome == reports.Pass && c.Transport != "streamable" {
			t.Errorf("%s passed over %q; want the streamable transport", c.ID, c.Transport)
		}
	}

	wrongPath := ts.URL + "/not-mcp"
	res, err = mcpchecktest.Run(t.Context(), mcpchecktest.URL(wrongPath), pingOpts)
	if err != nil {
		t.Logf("Run against %s: %v (as it should: nothing serves MCP there)", wrongPath, err)
		return
	}
	if passes, wrong := passed(res); passes > 0 || len(wrong) == 0 {
		t.Errorf("against %s, where nothing serves MCP, %d checks passed and the run came out passing", wrongPath, passes)
	}
}

// TestCommandWithEnv: WithEnv adds its variables to a Command's process.
// This test binary serves the reference server over stdio only when
// serveStdioEnv is "1" (see TestMain): started with it through WithEnv,
// its checks are judged over stdio and pass; the same command without it
// runs no tests and prints its test summary instead, and does not come
// out passing.
func TestCommandWithEnv(t *testing.T) {
	if os.Getenv(serveStdioEnv) != "" {
		t.Fatalf("%s is set in the test's own environment; the control would prove nothing", serveStdioEnv)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// No tests: the process ends at once; and no second's wait at its
	// exit when it is built with -race.
	plain := mcpchecktest.Command(exe, "-test.run=^$").WithEnv("GORACE=atexit_sleep_ms=0")
	served := plain.WithEnv(serveStdioEnv + "=1")

	res, err := mcpchecktest.Run(t.Context(), served, pingOpts)
	if err != nil {
		t.Fatalf("Run with %s=1: %v", serveStdioEnv, err)
	}
	passes, wrong := passed(res)
	if passes == 0 || len(wrong) > 0 {
		t.Errorf("with %s=1 the command serves the reference server: %d checks passed (want some), and: %q", serveStdioEnv, passes, wrong)
	}
	for _, c := range res.Report.Checks {
		if c.Outcome == reports.Pass && c.Transport != "stdio" {
			t.Errorf("%s passed over %q; want stdio", c.ID, c.Transport)
		}
	}

	res, err = mcpchecktest.Run(t.Context(), plain, pingOpts)
	if err != nil {
		t.Logf("Run without %s: %v (as it should: the process serves nothing)", serveStdioEnv, err)
		return
	}
	if passes, wrong := passed(res); passes > 0 || len(wrong) == 0 {
		t.Errorf("without %s the process serves nothing, yet %d checks passed and the run came out passing", serveStdioEnv, passes)
	}
	if !strings.Contains(res.Report.Target.Command, "-test.run=^$") {
		t.Errorf("the report's command %q lacks the arguments given", res.Report.Target.Command)
	}
}

// TestCommandRunsInASandbox: a Command server runs in a sandbox of the
// run's own, as the command line runs it. A server that writes a file
// where it runs writes it into the sandbox's working directory, not into
// the test's, and the report's side effects name it; with InDir the
// server runs in the directory given, and the file lands there.
func TestCommandRunsInASandbox(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const name = "mcpchecktest-sandbox-probe.txt"
	tg := mcpchecktest.Command(exe, "-test.run=^$").WithEnv("GORACE=atexit_sleep_ms=0", serveStdioEnv+"=1", writeFileEnv+"="+name)
	res, err := mcpchecktest.Run(t.Context(), tg, pingOpts)
	if err != nil {
		t.Fatal(err)
	}
	if passes, wrong := passed(res); passes == 0 || len(wrong) > 0 {
		t.Fatalf("the sandboxed reference server did not pass its ping checks: %d passed, %q", passes, wrong)
	}
	if _, err := os.Stat(name); err == nil {
		os.Remove(name)
		t.Errorf("the server wrote %s into the test's working directory; a Command runs in its sandbox's", name)
	}
	fx := res.Report.SideEffects
	if fx == nil || fx.Sandbox == nil || fx.SandboxFiles == nil || !slices.Contains(fx.SandboxFiles.Paths, "work/"+name) {
		t.Errorf("the report's side effects do not show the sandbox and the file left in it: %+v", fx)
	}

	dir := t.TempDir()
	res, err = mcpchecktest.Run(t.Context(), tg.InDir(dir), pingOpts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Errorf("with InDir(%s) the server did not write %s there: %v", dir, name, err)
	}
	if _, err := mcpchecktest.Run(t.Context(), mcpchecktest.URL("http://127.0.0.1:1/mcp").InDir(dir), pingOpts); err == nil || !strings.Contains(err.Error(), "InDir") {
		t.Errorf("InDir on a URL target: %v; want an error naming InDir", err)
	}
}
