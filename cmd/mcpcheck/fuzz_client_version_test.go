package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestFuzzClientLegacyClientAtLatest: a client that only speaks an
// initialize-based version (the planted strict SSE client; the TypeScript
// SDK's and the inspector's did the same) is fuzzed at 2025-11-25 when
// --protocol is left out, and the summary says why; with --protocol
// 2026-07-28 nothing is judged (exit 3), where the campaign used to play
// every input against the refusal of its initialize and print OK.
func TestFuzzClientLegacyClientAtLatest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	client := strictSSEClient(t)
	args := []string{"fuzz", "--client", shellQuote(client) + " {url}", "--mutators", "json/extra-member", "--seed", "7", "--max-execs", "2", "--format", "json"}
	out := filepath.Join(dir, "latest")
	code, stdout, stderr := runFuzzCLI(context.Background(), nil, append(args, "--out", out)...)
	res := readCampaign(t, filepath.Join(out, fuzz.SummaryFile))
	if code != exitOK || res.Version != spec.V20251125 || !strings.Contains(res.VersionNote, "does not speak 2026-07-28") || res.Execs != 2 {
		t.Errorf("no --protocol: exit %d, version %s, note %q, %d execs; want 0 at 2025-11-25 and why\nstdout:\n%s\nstderr:\n%s", code, res.Version, res.VersionNote, res.Execs, stdout, stderr)
	}
	out = filepath.Join(dir, "asked")
	code, stdout, stderr = runFuzzCLI(context.Background(), nil, append(args, "--out", out, "--protocol", "2026-07-28")...)
	res = readCampaign(t, filepath.Join(out, fuzz.SummaryFile))
	if code != exitHarness || !res.Verdict.Unjudged || res.Execs != 0 || !strings.Contains(stdout, "NOT JUDGED") || !strings.Contains(stderr, "does not speak 2026-07-28") {
		t.Errorf("--protocol 2026-07-28: exit %d, verdict %+v, %d execs; want 3, nothing judged\nstdout:\n%s\nstderr:\n%s", code, res.Verdict, res.Execs, stdout, stderr)
	}
}

// strictSSEClient is the planted HTTP client that refuses valid SSE
// framings (cmd/internal/fuzzpeers/strictsseclient), built once per test
// process for the tests that need it.
func strictSSEClient(t *testing.T) string {
	t.Helper()
	strictSSE.once.Do(func() {
		strictSSE.dir, strictSSE.err = os.MkdirTemp("", "mcpcheck-strictsse-")
		if strictSSE.err != nil {
			return
		}
		strictSSE.path = filepath.Join(strictSSE.dir, "strictsse")
		if out, err := exec.Command("go", "build", "-o", strictSSE.path, "../internal/fuzzpeers/strictsseclient").CombinedOutput(); err != nil {
			strictSSE.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if strictSSE.err != nil {
		t.Fatalf("building the planted client: %v", strictSSE.err)
	}
	return strictSSE.path
}

var strictSSE struct {
	once      sync.Once
	dir, path string // dir is removed by TestMain
	err       error
}
