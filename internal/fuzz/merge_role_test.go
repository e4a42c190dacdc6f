package fuzz

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestMergeRefusesMixedRoles: a client campaign and a server campaign are
// not one campaign; Merge says so instead of adding their figures up, and
// a merge of client campaigns stays a client campaign.
func TestMergeRefusesMixedRoles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, role string) string {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(d, SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := &Result{Role: role, Version: spec.V20251125, Seed: 1, Execs: 3}
		if err := r.WriteJSON(f); err != nil {
			t.Fatal(err)
		}
		return d
	}
	server, client, client2 := write("s", ""), write("c", "client"), write("c2", "client")
	if _, _, err := Merge([]string{server, client}, filepath.Join(dir, "out")); err == nil || !strings.Contains(err.Error(), "a client campaign") {
		t.Errorf("merging a server and a client campaign: %v; want an error naming the roles", err)
	}
	m, _, err := Merge([]string{client, client2}, filepath.Join(dir, "out2"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Role != "client" || m.Execs != 6 {
		t.Errorf("merged client campaigns: role %q, %d execs; want client, 6", m.Role, m.Execs)
	}
}
