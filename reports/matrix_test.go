package reports

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// sampleMatrix compares the sample run, a variant that fixes its failures
// and regresses ping, and a server that could not be started.
func sampleMatrix(t testing.TB) *Matrix {
	t.Helper()
	good := sampleRun(t)
	for i := range good.Checks {
		c := &good.Checks[i]
		switch {
		case c.ID == "ping/response/empty-result":
			c.Outcome, c.Actual = Fail, "the result was {\"pong\":true}"
		case c.Outcome == Fail || c.Outcome == Warn || !c.Outcome.Valid():
			c.Outcome = Pass
		}
	}
	good.Target.Command = "/opt/servers/bin/good-server --stdio"
	dead := &Run{
		Transport: "streamable",
		Target:    Target{Kind: TargetHTTP, URL: "http://127.0.0.1:1/mcp", Role: "server"},
		Problems:  []string{"the server did not start: exited with status 1 before listening"},
	}
	m, err := BuildMatrix("Sample matrix", []MatrixInput{
		{Name: "sample (stdio)", Run: sampleRun(t)},
		{Description: "a server that fixed most things", Run: good},
		{Name: "dead", Run: dead},
	}, testOptions(t))
	if err != nil {
		t.Fatalf("BuildMatrix: %v", err)
	}
	return m
}

func TestMatrixGolden(t *testing.T) {
	for _, c := range []struct {
		file  string
		write func(*Matrix, *bytes.Buffer) error
	}{
		{"matrix.md", func(m *Matrix, b *bytes.Buffer) error { return m.WriteMarkdown(b) }},
		{"matrix.html", func(m *Matrix, b *bytes.Buffer) error { return m.WriteHTML(b) }},
		{"matrix.json", func(m *Matrix, b *bytes.Buffer) error { return m.WriteJSON(b) }},
	} {
		t.Run(c.file, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := c.write(sampleMatrix(t), &a); err != nil {
				t.Fatal(err)
			}
			if err := c.write(sampleMatrix(t), &b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("two renderings of the same matrix differ: the writer is not deterministic")
			}
			golden(t, c.file, a.Bytes())
		})
	}
}

func TestBuildMatrix(t *testing.T) {
	m := sampleMatrix(t)
	if got := len(m.Servers); got != 3 {
		t.Fatalf("%d servers, want 3", got)
	}
	if got, want := m.Servers[1].Name, "good-server --stdio (stdio)"; !strings.HasPrefix(got, "bin/good-server") && got != want {
		t.Errorf("derived name %q, want %q", got, want)
	}
	if m.Servers[2].Headline != "error" {
		t.Errorf("a server that did not start has headline %q, want error", m.Servers[2].Headline)
	}
	// Every requirement cited by the sample run is a row, in area order.
	cited := map[string]bool{}
	for _, c := range sampleRun(t).Checks {
		for _, id := range c.Requirements {
			cited[id] = true
		}
	}
	if len(m.Rows) != len(cited) {
		t.Errorf("%d rows, want one per cited requirement (%d)", len(m.Rows), len(cited))
	}
	for i := 1; i < len(m.Rows); i++ {
		a, b := m.Rows[i-1].Requirement, m.Rows[i].Requirement
		if lessArea(b.Area, a.Area) {
			t.Errorf("rows out of area order: %s (%s) before %s (%s)", a.ID, a.Area, b.ID, b.Area)
		}
	}
	for _, r := range m.Rows {
		if len(r.Cells) != 3 {
			t.Fatalf("row %s has %d cells, want 3", r.Requirement.ID, len(r.Cells))
		}
		if r.Cells[2].Outcome() != 0 {
			t.Errorf("row %s: the dead server has outcome %s, want none", r.Requirement.ID, r.Cells[2].Outcome())
		}
		// The cell of the sample run agrees with its checks.
		want := Counts{}
		for _, c := range m.Servers[0].Run.Checks {
			for _, id := range c.Requirements {
				if id == r.Requirement.ID {
					want.Add(c)
				}
			}
		}
		if r.Cells[0].Counts != want {
			t.Errorf("row %s: cell counts %+v, want %+v", r.Requirement.ID, r.Cells[0].Counts, want)
		}
	}
	// The ping requirement broke only on the second server.
	for _, r := range m.Rows {
		for _, c := range r.Cells[1].Checks {
			if c.ID == "ping/response/empty-result" && r.Cells[1].Outcome() != Fail {
				t.Errorf("row %s: the regressed ping check shows %s, want fail", r.Requirement.ID, r.Cells[1].Outcome())
			}
		}
	}
}

func TestMatrixDuplicateNamesAndNil(t *testing.T) {
	m, err := BuildMatrix("", []MatrixInput{{Name: "x", Run: sampleRun(t)}, {Name: "x", Run: sampleRun(t)}}, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if m.Servers[0].Name != "x" || m.Servers[1].Name != "x #2" {
		t.Errorf("names %q, %q; want x and x #2", m.Servers[0].Name, m.Servers[1].Name)
	}
	if m.Title == "" {
		t.Error("an empty title was not defaulted")
	}
	if _, err := BuildMatrix("t", []MatrixInput{{Name: "nil"}}, testOptions(t)); err == nil {
		t.Error("a nil run was accepted")
	}
}

func TestMatrixEscapesTargetText(t *testing.T) {
	run := pwnRun(t)
	m, err := BuildMatrix("t", []MatrixInput{{Name: pwnPayload, Description: pwnPayload, Run: run}}, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	var h, md bytes.Buffer
	if err := m.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h.String(), "<script"); n != 1 {
		t.Errorf("the HTML matrix has %d <script tags, want only its own", n)
	}
	for _, bad := range []string{"<img", "<svg", "onerror=\"", "<a href=\"javascript"} {
		if strings.Contains(h.String(), bad) {
			t.Errorf("the HTML matrix contains %q from the target", bad)
		}
		if strings.Contains(md.String(), bad) {
			t.Errorf("the Markdown matrix contains %q from the target", bad)
		}
	}
	if strings.Contains(md.String(), "<script") {
		t.Errorf("the Markdown matrix contains a <script tag")
	}
	checkMarkdownTables(t, "matrix.md", md.String())
}

func TestServerName(t *testing.T) {
	for _, c := range []struct {
		target    Target
		transport string
		want      string
	}{
		{Target{Command: "node /x/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio"}, "stdio", "dist/index.js stdio (stdio)"},
		{Target{Command: "/usr/local/bin/mcp-server"}, "stdio", "mcp-server (stdio)"},
		{Target{URL: "http://127.0.0.1:3000/mcp"}, "streamable", "http://127.0.0.1:3000/mcp (streamable)"},
		{Target{}, "", "unnamed target"},
	} {
		if got := ServerName(&Run{Target: c.target, Transport: c.transport}); got != c.want {
			t.Errorf("ServerName(%+v) = %q, want %q", c.target, got, c.want)
		}
	}
}

// TestCellNamesTheVersionsABreakHappenedIn: a requirement broken in some of
// the versions a server was judged in names those versions; broken in all
// of them, or judged in one, the cell names none.
func TestCellNamesTheVersionsABreakHappenedIn(t *testing.T) {
	chk := func(v string, o Outcome) Check { return Check{ID: "x", Version: spec.Version(v), Outcome: o} }
	cell := func(cs ...Check) MatrixCell {
		var c MatrixCell
		for _, ch := range cs {
			c.Counts.Add(ch)
			c.Checks = append(c.Checks, ch)
		}
		return c
	}
	cases := []struct {
		cell MatrixCell
		want string
	}{
		{cell(chk("2025-06-18", Pass), chk("2025-11-25", Fail), chk("2026-07-28", Warn), chk("2024-11-05", NA)), " 1/3 in 2025-11-25, 2026-07-28"},
		{cell(chk("2025-06-18", Fail), chk("2025-11-25", Fail)), " 0/2"},
		{cell(chk("2025-11-25", Pass), chk("2025-11-25", Fail)), " 1/2"},
		{cell(chk("2025-11-25", Pass)), ""},
	}
	for _, c := range cases {
		if got := cellFraction(c.cell); got != c.want {
			t.Errorf("cellFraction = %q, want %q", got, c.want)
		}
	}
}

// TestMatrixCountsOnlyViolatedRequirements: a check that says which of its
// requirements it found broken colours only those rows, each at its own
// level; a check that does not say colours every row it cites.
func TestMatrixCountsOnlyViolatedRequirements(t *testing.T) {
	run := &Run{
		Transport: "stdio",
		Target:    Target{Kind: TargetStdio, Command: "srv", Role: "server"},
		Requirements: map[string]Requirement{
			"a.must":   {ID: "a.must", Level: catalog.Must, Area: "tools"},
			"b.should": {ID: "b.should", Level: catalog.Should, Area: "tools"},
		},
		Checks: []Check{
			{ID: "told", Requirements: []string{"a.must", "b.should"}, Violated: []string{"b.should"}, Level: catalog.Must, Outcome: Fail, Version: "2025-11-25"},
			{ID: "untold", Requirements: []string{"a.must", "b.should"}, Level: catalog.Must, Outcome: Fail, Version: "2025-06-18"},
		},
	}
	m, err := BuildMatrix("t", []MatrixInput{{Name: "srv", Run: run}}, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Counts{}
	for _, r := range m.Rows {
		got[r.Requirement.ID] = r.Cells[0].Counts
	}
	if c := got["a.must"]; c.Fail != 1 || c.Total() != 1 {
		t.Errorf("a.must: %+v, want only the untold check's fail", c)
	}
	if c := got["b.should"]; c.Warn != 1 || c.Fail != 1 || c.Total() != 2 {
		t.Errorf("b.should: %+v, want the told check as a warn and the untold one as a fail", c)
	}
}

// TestMatrixListsViolatedRequirements: a check that already failed, in a
// cell that was red already, breaks a second requirement in the next run;
// the cells keep their outcome, and the server's violations (Markdown and
// JSON) name the new requirement, so comparing the two matrices shows it.
func TestMatrixListsViolatedRequirements(t *testing.T) {
	mk := func(violated ...string) *Run {
		return &Run{Transport: "stdio", Versions: []spec.Version{"2025-11-25"}, Target: Target{Kind: TargetStdio, Command: "srv", Role: "server"}, Checks: []Check{
			{ID: "tools/x", Version: "2025-11-25", Transport: "stdio", Outcome: Fail, Level: catalog.Must, Area: "tools", Requirements: []string{"req.a", "req.b"}, Violated: violated},
			{ID: "tools/y", Version: "2025-11-25", Transport: "stdio", Outcome: Fail, Level: catalog.Must, Area: "tools", Requirements: []string{"req.b"}},
			{ID: "tools/z", Version: "2025-11-25", Transport: "stdio", Outcome: Error, Level: catalog.Must, Area: "tools", Requirements: []string{"req.c"}},
		}}
	}
	build := func(run *Run) (*Matrix, string, string) {
		m, err := BuildMatrix("t", []MatrixInput{{Name: "srv", Run: run}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var md, js bytes.Buffer
		if err := m.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		return m, md.String(), js.String()
	}
	before, mdBefore, jsBefore := build(mk("req.a"))
	after, mdAfter, jsAfter := build(mk("req.a", "req.b"))

	cells := func(m *Matrix) string {
		var out []string
		for _, r := range m.Rows {
			out = append(out, r.Requirement.ID+"="+r.Cells[0].Outcome().String())
		}
		return strings.Join(out, " ")
	}
	if cells(before) != "req.a=fail req.b=fail req.c=error" || cells(after) != cells(before) {
		t.Errorf("cells before %q, after %q; want the same red cells in both", cells(before), cells(after))
	}
	viol := func(m *Matrix) []string {
		var out []string
		for _, v := range m.Servers[0].Violations {
			out = append(out, v.String()+" "+v.Outcome.String())
		}
		return out
	}
	want := []string{
		"tools/z [2025-11-25 stdio] error",
		"tools/x [2025-11-25 stdio] requirement req.a fail",
		"tools/x [2025-11-25 stdio] requirement req.b fail",
		"tools/y [2025-11-25 stdio] requirement req.b fail",
	}
	if got := viol(after); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations after:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := viol(before); slices.Contains(got, want[2]) || len(got) != 3 {
		t.Errorf("violations before: %q; want the three without tools/x breaking req.b", got)
	}
	if !strings.Contains(mdBefore, "`tools/x` \\[2025-11-25 stdio\\] (breaks req.a)") || !strings.Contains(mdAfter, "`tools/x` \\[2025-11-25 stdio\\] (breaks req.a, req.b)") {
		t.Errorf("the Markdown does not list what tools/x breaks:\n%s\n---\n%s", mdBefore, mdAfter)
	}
	newEntry := `{
          "id": "tools/x",
          "version": "2025-11-25",
          "transport": "stdio",
          "requirement": "req.b",
          "outcome": "fail"
        }`
	if strings.Contains(jsBefore, newEntry) || !strings.Contains(jsAfter, newEntry) {
		t.Errorf("the JSON does not list the new violation only after:\n%s", jsAfter)
	}
	var doc struct {
		Schema string `json:"schema"`
		Rows   []struct {
			Requirement string   `json:"requirement"`
			Cells       []string `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(jsAfter), &doc); err != nil || doc.Schema != MatrixSchema || len(doc.Rows) != 3 || doc.Rows[1].Cells[0] != "fail" {
		t.Errorf("matrix JSON: %v, %+v", err, doc)
	}
}

// TestMatrixStatesToolPolicy: a column whose run called tools by a policy
// says which in the Markdown and the JSON, so matrices of runs under
// different policies are not compared as if they judged the same calls.
func TestMatrixStatesToolPolicy(t *testing.T) {
	run := &Run{Transport: "stdio", Versions: []spec.Version{"2025-11-25"}, Target: Target{Kind: TargetStdio, Command: "srv", Role: "server"},
		ToolPolicy: &ToolPolicy{Calls: "all"},
		Checks:     []Check{{ID: "tools/x", Version: "2025-11-25", Transport: "stdio", Outcome: Pass, Level: catalog.Must, Area: "tools", Requirements: []string{"req.a"}}}}
	m, err := BuildMatrix("t", []MatrixInput{{Name: "srv", Run: run}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var md, js bytes.Buffer
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**srv** tool calls: all tools called (--call-tools all)") {
		t.Errorf("the Markdown does not state the tool policy:\n%s", md.String())
	}
	if !strings.Contains(js.String(), `"toolCalls": "all tools called (--call-tools all)"`) {
		t.Errorf("the JSON does not state the tool policy:\n%s", js.String())
	}
}
