package mcpchecktest_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/scenarios/mcpchecktest"
)

// TestReadBaselineExpectsTheFailuresItLists: a baseline written as
// mcpcheck baseline write writes it, of a run against a reference server
// whose ping answers a non-empty result, is read back by ReadBaseline
// and, given to a run against the same faulty server, marks the broken
// check expected (Baselined, with the reason in the file), leaving a
// passing verdict and no stale entry; without it the same check is an
// unexpected failure.
func TestReadBaselineExpectsTheFailuresItLists(t *testing.T) {
	faulty := func() mcpchecktest.Target {
		srv, err := server.New(server.Options{Faults: []string{"ping-nonempty-result"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return mcpchecktest.Handler(srv.HTTPHandler(server.HTTPOptions{}), "/mcp")
	}

	first, err := mcpchecktest.Run(t.Context(), faulty(), pingOpts)
	if err != nil {
		t.Fatal(err)
	}
	var broken []reports.Check
	for _, c := range first.Report.Checks {
		if c.Broken() {
			broken = append(broken, c)
			if c.Baselined {
				t.Errorf("%s is baselined in a run given no baseline", c.ID)
			}
		}
	}
	if len(broken) == 0 || reports.Verdict(first.Report).OK(false) {
		t.Fatalf("without a baseline the faulty server's run must fail; broken checks: %v, verdict: %s", broken, reports.Verdict(first.Report).Summary(false))
	}

	const reason = "known: the reference server runs with ping-nonempty-result"
	path := filepath.Join(t.TempDir(), "expected-failures.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := reports.WriteBaseline(f, first.Report, reason); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	bl, err := mcpchecktest.ReadBaseline(path)
	if err != nil {
		t.Fatalf("ReadBaseline(%s): %v", path, err)
	}
	if bl == nil || len(bl.Entries) != len(broken) || bl.Source != path {
		t.Fatalf("ReadBaseline(%s) = %+v; want the entries written (%d), with the file as its source", path, bl, len(broken))
	}

	opts := pingOpts
	opts.Baseline = bl
	again, err := mcpchecktest.Run(t.Context(), faulty(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		found := false
		for _, c := range again.Report.Checks {
			if c.Key() != b.Key() {
				continue
			}
			found = true
			if !c.Broken() || !c.Baselined || c.BaselineReason != reason || len(c.Unexpected) > 0 {
				t.Errorf("%s with the baseline: %s, baselined %v, reason %q, unexpected %v; want it broken, expected, with the file's reason", c.Key(), c.Outcome, c.Baselined, c.BaselineReason, c.Unexpected)
			}
		}
		if !found {
			t.Errorf("%s is not in the run with the baseline", b.Key())
		}
	}
	if j := reports.Verdict(again.Report); !j.OK(false) || len(again.Stale) > 0 || len(again.Problems) > 0 {
		t.Errorf("with the baseline: verdict %q, stale %v, problems %v; want a pass", j.Summary(false), again.Stale, again.Problems)
	}
	if info := again.Report.Baseline; info == nil || info.Source != path || info.Matched != len(broken) {
		t.Errorf("the report's baseline is %+v; want %s with %d matched", info, path, len(broken))
	}
}

// TestReadBaselineErrors: a baseline file that does not exist, and one
// that does not parse, are errors naming the file and saying what is
// wrong, never an empty baseline that would expect nothing.
func TestReadBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-baseline.json")
	bl, err := mcpchecktest.ReadBaseline(missing)
	if err == nil || bl != nil {
		t.Errorf("ReadBaseline of a missing file = %+v, %v; want no baseline and an error", bl, err)
	} else if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "read the baseline") {
		t.Errorf("ReadBaseline of a missing file: %q; want a not-exist error naming %s", err, missing)
	}

	for _, tc := range []struct {
		name, body string
		says       []string // what the error must say, besides the file's name
	}{
		{"truncated.json", `{"entries": [{"check": "ping/empty-result", "reason": "x"}`, []string{"the file ends inside"}},
		{"bad-syntax.json", "{\"entries\": [\n  {\"check\": \"ping/empty-result\" \"reason\": \"x\"}\n]}", []string{":2:", "invalid JSON"}},
		{"no-reason.json", `{"entries": [{"check": "ping/empty-result", "requirements": []}]}`, []string{`"reason" is required`}},
		{"empty.json", "", []string{"the baseline is empty"}},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		bl, err := mcpchecktest.ReadBaseline(path)
		if err == nil || bl != nil {
			t.Errorf("ReadBaseline of %s = %+v, %v; want no baseline and an error", tc.name, bl, err)
			continue
		}
		for _, want := range append([]string{path}, tc.says...) {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("ReadBaseline of %s: %q does not say %q", tc.name, err, want)
			}
		}
	}
}
