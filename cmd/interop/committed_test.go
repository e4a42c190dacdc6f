package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/scenarios"
	clientsuite "github.com/mcpcheck/mcpcheck/internal/scenarios/client"
)

// TestCommittedMatricesAreCurrent: the committed interop matrices were
// made with the suites of this checkout. Every column judged each check
// once per protocol version it ran, so its outcome counts must add up to
// the suite's check count times its versions; a check added or removed
// since the matrix was generated breaks the sum, and the fix is to
// regenerate it (make interop, or go run ./cmd/interop -only NAME for a
// column).
func TestCommittedMatricesAreCurrent(t *testing.T) {
	for _, m := range []struct {
		file, section string
		checks        int
	}{
		{"MATRIX.md", "## Servers", len(scenarios.Checks())},
		{"CLIENTS.md", "## Clients", len(clientsuite.Checks())},
	} {
		rows := matrixRows(t, filepath.Join("..", "..", "reports", "interop", m.file), m.section)
		if len(rows) == 0 {
			t.Errorf("%s: no rows under %q", m.file, m.section)
		}
		for _, r := range rows {
			if want := m.checks * r.versions; r.total != want {
				t.Errorf("%s: %s holds %d check results over %d versions, the suite of this checkout makes %d (%d checks × %d): the matrix is stale; regenerate it with make interop", m.file, r.name, r.total, r.versions, want, m.checks, r.versions)
			}
		}
	}
}

// matrixRow is one column of a matrix, as its summary table row says.
type matrixRow struct {
	name            string
	versions, total int
}

// matrixRows reads the summary table under section: the name (column 2),
// the protocol versions (column 5) and the sum of the six outcome counts
// (the last six columns).
func matrixRows(t *testing.T, path, section string) []matrixRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []matrixRow
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == section
			continue
		}
		if !in || !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 11 {
			continue
		}
		if _, err := strconv.Atoi(strings.TrimSpace(cells[0])); err != nil {
			continue // the header row
		}
		r := matrixRow{name: strings.TrimSpace(cells[1]), versions: len(strings.Split(cells[4], ","))}
		for _, c := range cells[len(cells)-6:] {
			n, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil {
				t.Fatalf("%s: %s: outcome count %q is not a number", path, r.name, c)
			}
			r.total += n
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
