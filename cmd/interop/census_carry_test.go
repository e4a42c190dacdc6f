package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/shard"
)

// carryFixture copies the committed census list and CENSUS.json into a
// directory of their own and returns a census configuration over an
// empty cache that writes into dir/out.
func carryFixture(t *testing.T, edit func(*censusList)) (censusConfig, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := readCensus("../../reports/interop/census.json")
	if err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(dir, "census.json")
	if edit != nil {
		edit(&l)
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, b, 0o644); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join(dir, "CENSUS.json")
	if err := os.WriteFile(committed, mustRead(t, "../../reports/interop/CENSUS.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	cc := censusConfig{config: config{dir: filepath.Join(dir, "cache"), out: filepath.Join(dir, "out"), protocol: "all", matrixOnly: true}, list: list}
	return cc, committed
}

func regenerate(t *testing.T, cc censusConfig) {
	t.Helper()
	var out, log bytes.Buffer
	if err := runCensus(context.Background(), cc, shard.Part{}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
}

func moved(t *testing.T, old, new string) []string {
	t.Helper()
	var w bytes.Buffer
	n, err := censusDiff(old, new, &w)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if n == 0 {
		return nil
	}
	return lines[1:]
}

func readCensusDoc(t *testing.T, path string) censusDoc {
	t.Helper()
	var doc censusDoc
	if err := json.Unmarshal(mustRead(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestCensusCarriesTheCommittedCensus: with an empty cache, -matrix-only
// rebuilds every row and cell of the committed CENSUS.json (no cell
// moves), each judged row marked as carried and judged by the mcpcheck
// that judged it; regenerating from what it wrote gives the same bytes.
func TestCensusCarriesTheCommittedCensus(t *testing.T) {
	cc, committed := carryFixture(t, nil)
	regenerate(t, cc)
	if m := moved(t, committed, filepath.Join(cc.out, "CENSUS.json")); len(m) > 0 {
		t.Fatalf("%d cells moved with nothing re-run:\n%s", len(m), strings.Join(m, "\n"))
	}
	old := readCensusDoc(t, committed)
	now := readCensusDoc(t, filepath.Join(cc.out, "CENSUS.json"))
	if len(old.Entries) != len(now.Entries) {
		t.Fatalf("%d rows, committed %d", len(now.Entries), len(old.Entries))
	}
	carried := 0
	for i, r := range now.Entries {
		o := old.Entries[i]
		if o.Status != r.Status || o.Verdict != r.Verdict || o.Judged != r.Judged || o.Counts != r.Counts || strings.Join(o.Defects, "\n") != strings.Join(r.Defects, "\n") {
			t.Errorf("%s: %s %s by %q, committed %s %s by %q", r.ID, r.Status, r.Verdict, r.Judged, o.Status, o.Verdict, o.Judged)
		}
		if o.Carry != nil {
			carried++
			if !strings.HasPrefix(r.Carried, carriedFrom+", judged by "+o.Judged) {
				t.Errorf("%s: carried %q, want the marker naming %s", r.ID, r.Carried, o.Judged)
			}
		} else if r.Carried != "" {
			t.Errorf("%s: carried %q, but the committed row keeps nothing to carry", r.ID, r.Carried)
		}
	}
	if carried == 0 {
		t.Fatal("the committed CENSUS.json carries no row")
	}
	for _, f := range []string{"CENSUS.md", "CENSUS-SERVERS.md", "CENSUS-HOSTS.md", "CENSUS.html", "CENSUS-SERVERS.html"} {
		if !strings.Contains(string(mustRead(t, filepath.Join(cc.out, f))), carriedFrom+", judged by ") {
			t.Errorf("%s does not mark the carried entries", f)
		}
	}
	// Again, from what it wrote: the same files.
	again := cc
	again.out = filepath.Join(filepath.Dir(cc.out), "again")
	if err := os.WriteFile(committed, mustRead(t, filepath.Join(cc.out, "CENSUS.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	regenerate(t, again)
	for _, f := range []string{"CENSUS.json", "CENSUS.md", "CENSUS.html", "CENSUS-SERVERS.md", "CENSUS-SERVERS.html", "CENSUS-HOSTS.md", "CENSUS-HOSTS.html"} {
		if !bytes.Equal(mustRead(t, filepath.Join(cc.out, f)), mustRead(t, filepath.Join(again.out, f))) {
			t.Errorf("%s: carrying a carried census changed it", f)
		}
	}
}

// TestCensusRefreshMovesOnlyThatColumn: one entry re-run (its report in
// the cache) replaces its carried row and column and moves nothing
// else; its row then keeps what a later census carries.
func TestCensusRefreshMovesOnlyThatColumn(t *testing.T) {
	cc, committed := carryFixture(t, nil)
	l, err := readCensus(cc.list)
	if err != nil {
		t.Fatal(err)
	}
	var e censusEntry
	for _, x := range l.entries() {
		if x.id == "server-everything-stdio" {
			e = x
		}
	}
	d := newCensusDirs(cc.dir)
	if err := saveRun(d.reportPath(e), fakeRun("server")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.runs, e.id, "census-key"), []byte(censusKey(e, "mcpcheck fake sha256:0", "all")), 0o644); err != nil {
		t.Fatal(err)
	}
	regenerate(t, cc)
	m := moved(t, committed, filepath.Join(cc.out, "CENSUS.json"))
	if len(m) == 0 {
		t.Fatal("the refreshed entry moved nothing")
	}
	for _, line := range m {
		if !strings.HasPrefix(line, "- servers · everything (stdio) · ") {
			t.Errorf("moved outside the refreshed column: %s", line)
		}
	}
	for _, r := range readCensusDoc(t, filepath.Join(cc.out, "CENSUS.json")).Entries {
		switch {
		case r.ID == e.id && (r.Carried != "" || r.Judged != "mcpcheck fake sha256:0" || r.EntryKey != censusEntryKey(e) || r.Carry == nil || r.Carry.Cells["req.a"] != "fail 1"):
			t.Errorf("%s: carried %q, judged by %q, key %q, carry %+v; want the fresh report's row with its carry", r.ID, r.Carried, r.Judged, r.EntryKey, r.Carry)
		case r.ID != e.id && r.Status == "judged" && r.Carried == "":
			t.Errorf("%s: not carried", r.ID)
		}
	}
}

// TestCensusChangedEntryIsPending: an entry whose definition changed has
// nothing to carry: its row is pending and its column has no cells; the
// others are carried.
func TestCensusChangedEntryIsPending(t *testing.T) {
	cc, committed := carryFixture(t, func(l *censusList) {
		for i := range l.Servers {
			if l.Servers[i].Name == "memory" {
				l.Servers[i].Command = append(l.Servers[i].Command, "--changed")
			}
		}
		for i := range l.Hosts {
			if l.Hosts[i].Name == "codex" && l.Hosts[i].Transport == "stdio" {
				l.Hosts[i].Note = "a note alone changes no definition"
			}
		}
	})
	regenerate(t, cc)
	for _, r := range readCensusDoc(t, filepath.Join(cc.out, "CENSUS.json")).Entries {
		switch r.ID {
		case "server-memory-stdio":
			if r.Status != "pending" || r.Carried != "" {
				t.Errorf("%s: %s, carried %q; want pending", r.ID, r.Status, r.Carried)
			}
		case "host-codex-stdio":
			if r.Carried == "" {
				t.Errorf("%s: not carried after its note alone changed", r.ID)
			}
		}
	}
	for _, line := range moved(t, committed, filepath.Join(cc.out, "CENSUS.json")) {
		if !strings.HasPrefix(line, "- servers · memory (stdio) · ") {
			t.Errorf("moved outside the changed entry: %s", line)
		}
	}
}

// TestCensusMergeOfAMissingShardCarriesItsEntries: merging the reports
// of shard 1/2 alone, beside a committed census of the whole, carries
// shard 2's entries (marked) and moves no cell; shard 1's are fresh.
func TestCensusMergeOfAMissingShardCarriesItsEntries(t *testing.T) {
	dir := t.TempDir()
	bin, _ := fakeMcpcheck(t, dir, fakeRun("server"))
	list := writeCensusList(t, dir, "x")
	run := censusShardRunner(t, dir, list, bin)
	whole := run("whole", shard.Part{})
	part1 := run("part1", shard.Part{K: 1, N: 2})
	committed := filepath.Join(dir, "CENSUS.json")
	if err := os.WriteFile(committed, mustRead(t, filepath.Join(whole.out, "CENSUS.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	merged := censusConfig{config: config{dir: part1.dir, out: filepath.Join(dir, "merged"), protocol: "all", matrixOnly: true}, list: list}
	regenerate(t, merged)
	if m := moved(t, committed, filepath.Join(merged.out, "CENSUS.json")); len(m) > 0 {
		t.Errorf("%d cells moved:\n%s", len(m), strings.Join(m, "\n"))
	}
	l, err := readCensus(list)
	if err != nil {
		t.Fatal(err)
	}
	fresh := map[string]bool{}
	entries, _ := selectCensus(l, "", shard.Part{K: 1, N: 2})
	for _, e := range entries {
		fresh[e.id] = true
	}
	for _, r := range readCensusDoc(t, filepath.Join(merged.out, "CENSUS.json")).Entries {
		if r.Status == "needs-credential" {
			continue
		}
		if carried := r.Carried != ""; carried == fresh[r.ID] {
			t.Errorf("%s: carried %q, fresh report in the merged cache: %v", r.ID, r.Carried, fresh[r.ID])
		}
	}
}
