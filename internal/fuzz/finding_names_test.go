package fuzz

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestOldFindingNamesStillReplay: a replay file written before the finding
// names were unified (its expected check "response-id-unknown", its
// signature of that name) loads with the check's current name and the
// signature a run of this mcpcheck computes, so that replaying it can
// still say "reproduced".
func TestOldFindingNamesStillReplay(t *testing.T) {
	for old, now := range oracle.RenamedChecks {
		if !strings.Contains(now, "/") || oracle.RenamedChecks[now] != "" {
			t.Errorf("renamedChecks[%q] = %q: a current name is FAMILY/what and never itself renamed", old, now)
		}
		expect := oracle.Observation{Kind: reports.FindingViolation, Check: old, Requirement: "base.jsonrpc.response-id-matches"}
		rf := ReplayFile{Format: 1, Version: spec.V20251125, Input: mutate.Input{Chunks: [][]byte{[]byte(`{}`)}}, Expect: expect, Signature: expect.Signature()}
		b, err := json.Marshal(rf)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), FileReplay)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadReplay(path)
		if err != nil {
			t.Fatal(err)
		}
		want := oracle.Observation{Kind: expect.Kind, Check: now, Requirement: expect.Requirement}
		if got.Expect.Check != now || got.Signature != want.Signature() {
			t.Errorf("a finding of %q loads as check %q signature %s; want %q and %s, the signature a run finds it under now", old, got.Expect.Check, got.Signature, now, want.Signature())
		}
	}
}
