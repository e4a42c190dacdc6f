package fuzz_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/fuzz"
	"github.com/mcpcheck/mcpcheck/harness"
	"github.com/mcpcheck/mcpcheck/reference"
	"github.com/mcpcheck/mcpcheck/spec"
)

// serveEnv, when set in the environment of this test binary, makes it the
// reference server over stdio with the faults it names (comma-separated;
// "none" for none): a stdio server for the campaigns below that needs no
// build step.
const serveEnv = "MCPCHECK_FUZZ_FRONT_SERVE"

// writeFileEnv, set to a file name with serveEnv, makes that server write
// the file in its working directory before it serves.
const writeFileEnv = "MCPCHECK_FUZZ_FRONT_WRITE"

func TestMain(m *testing.M) {
	if f := os.Getenv(serveEnv); f != "" {
		if name := os.Getenv(writeFileEnv); name != "" {
			// A server that writes where it runs (a cache, a log).
			if os.WriteFile(name, []byte("written by the server\n"), 0o644) != nil {
				os.Exit(2)
			}
		}
		var faults []string
		if f != "none" {
			faults = strings.Split(f, ",")
		}
		if err := (reference.Server{Faults: faults}).ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func referenceCommand(faults string) harness.Target {
	return harness.Command(os.Args[0]).WithEnv(serveEnv + "=" + faults)
}

// TestRunRefusesWhatItCannotFuzz: no bound, a Pipe target and an empty
// target are errors that say what to do, before anything runs.
func TestRunRefusesWhatItCannotFuzz(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		tg   harness.Target
		opts fuzz.Options
		says string
	}{
		"no bound": {referenceCommand("none"), fuzz.Options{}, "Duration or Options.MaxExecs"},
		"pipe":     {harness.Pipe(reference.Server{}.ServeStdio), fuzz.Options{MaxExecs: 1}, "harness.Command"},
		"empty":    {harness.Target{}, fuzz.Options{MaxExecs: 1}, "empty"},
	}
	for name, c := range cases {
		res, err := fuzz.Run(ctx, c.tg, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.says) || res != nil {
			t.Errorf("%s: Run = %v, %v; want no result and an error mentioning %q", name, res, err, c.says)
		}
	}
}

// TestCleanServerPasses: a short campaign against the conforming reference
// server over stdio judges it and finds nothing.
func TestCleanServerPasses(t *testing.T) {
	res, err := fuzz.Run(context.Background(), referenceCommand("none"), fuzz.Options{MaxExecs: 40, Seed: 3, Version: spec.V20251125})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed() || res.Summary.Execs < 40 || res.Version != spec.V20251125 {
		t.Errorf("against the reference server: passed %v, %d execs at %s, findings %+v, unjudged %q, problems %q; want a pass of 40 execs at 2025-11-25",
			res.Passed(), res.Summary.Execs, res.Version, res.Summary.Findings, res.Unjudged, res.Problems)
	}
}

// TestFaultyServerFails: with a fault that makes error responses carry a
// result too, the campaign finds it, fails, and writes the reproducer.
func TestFaultyServerFails(t *testing.T) {
	dir := t.TempDir()
	res, err := fuzz.Run(context.Background(), referenceCommand("error-with-result"), fuzz.Options{MaxExecs: 60, Seed: 3, Version: spec.V20251125, FindingsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed() || !res.Failed || len(res.Summary.Findings) == 0 {
		t.Fatalf("against error-with-result: passed %v, failed %v, %d findings; want a failure with findings", res.Passed(), res.Failed, len(res.Summary.Findings))
	}
	found := false
	for _, f := range res.Summary.Findings {
		if f.Level == "MUST" && strings.Contains(f.Message, `both "result" and "error"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no MUST finding says a response had both result and error: %+v", res.Summary.Findings)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) == 0 {
		t.Errorf("FindingsDir %s holds %d entries (%v); want the findings written", dir, len(ents), err)
	}
}

// TestHandlerIsFuzzedOverHTTP: a Handler target is served on loopback and
// fuzzed over streamable HTTP (detected), judged clean.
func TestHandlerIsFuzzedOverHTTP(t *testing.T) {
	h, err := reference.Server{}.NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	res, err := fuzz.Run(context.Background(), harness.Handler(h, "/mcp"), fuzz.Options{MaxExecs: 20, Seed: 5, Version: spec.V20251125, Mutators: []string{"json"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed() || res.Summary.Execs < 20 {
		t.Errorf("against the reference handler: passed %v, %d execs, findings %+v, unjudged %q, problems %q; want a pass of 20 execs", res.Passed(), res.Summary.Execs, res.Summary.Findings, res.Unjudged, res.Problems)
	}
}

// TestMuteServerIsUnjudged: a server that never completes a handshake is
// an error with a result that says it was not judged, never a pass.
func TestMuteServerIsUnjudged(t *testing.T) {
	res, err := fuzz.Run(context.Background(), harness.Command("sh", "-c", "exit 0"), fuzz.Options{MaxExecs: 5, Version: spec.V20251125})
	if err == nil {
		t.Fatalf("against a server that exits at once: no error (result %+v)", res)
	}
	if res == nil || res.Unjudged == "" || res.Passed() {
		t.Errorf("against a server that exits at once: result %+v, err %v; want a result with Unjudged set", res, err)
	}
}

// TestCommandIsFuzzedInASandbox: a Command server is fuzzed in a sandbox
// of the campaign's own: a server that writes where it runs writes into
// the sandbox, not the test's directory, and the result's side effects
// name the file; with InDir it runs, and writes, in the directory given.
func TestCommandIsFuzzedInASandbox(t *testing.T) {
	const name = "fuzz-sandbox-probe.txt"
	tg := referenceCommand("none").WithEnv(writeFileEnv + "=" + name)
	res, err := fuzz.Run(context.Background(), tg, fuzz.Options{MaxExecs: 5, Seed: 1, Version: spec.V20251125})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); err == nil {
		os.Remove(name)
		t.Errorf("the server wrote %s into the test's working directory; a Command is fuzzed in its sandbox", name)
	}
	fx := res.SideEffects
	if fx == nil || fx.Sandbox == nil || fx.SandboxFiles == nil || !slices.Contains(fx.SandboxFiles.Paths, "work/"+name) {
		t.Errorf("the result's side effects do not show the sandbox and the file left in it: %+v", fx)
	}
	dir := t.TempDir()
	if _, err := fuzz.Run(context.Background(), tg.InDir(dir), fuzz.Options{MaxExecs: 2, Seed: 1, Version: spec.V20251125}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Errorf("with InDir(%s) the server did not write %s there: %v", dir, name, err)
	}
}
