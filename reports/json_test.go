package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compileReportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		t.Fatalf("schema/report-v1.json is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		t.Fatalf("schema/report-v1.json does not compile: %v", err)
	}
	return sch
}

func TestJSONValidatesAgainstSchema(t *testing.T) {
	sch := compileReportSchema(t)
	minimal := &Run{Checks: []Check{{ID: "a/b", Outcome: Pass}}}
	stretched := &Run{Checks: minimal.Checks, Silence: &Silence{Window: 250 * time.Millisecond, Longest: 516 * time.Millisecond, Typical: 172 * time.Millisecond, Windows: 6}}
	for name, run := range map[string]*Run{"sample": sampleRun(t), "hostile": hostileRun(t), "empty": {}, "minimal": minimal, "stretched silence": stretched} {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, run, testOptions(t)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: WriteJSON wrote invalid JSON: %v", name, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: the report does not validate against schema/report-v1.json: %v", name, err)
		}
	}
}

func TestSchemaRejectsWrongReports(t *testing.T) {
	sch := compileReportSchema(t)
	for name, doc := range map[string]string{
		"unknown outcome": `{"schema":"mcpcheck.report/v1","tool":{"name":"m","version":"1"},"target":{"kind":"stdio"},"started":"2026-01-01T00:00:00Z","durationNs":0,"versions":[],"transport":"stdio","checks":[{"id":"a","title":"","requirements":[],"level":"MUST","area":"x","version":"2025-11-25","outcome":"green","durationNs":0}],"summary":{"total":{"pass":0,"fail":0,"warn":0,"na":0,"untestable":0,"error":0,"baselined":0},"must":{"pass":0,"broken":0,"na":0,"untestable":0,"error":0},"should":{"pass":0,"broken":0,"na":0,"untestable":0,"error":0},"headline":"none","versions":[],"baselined":0}}`,
		"wrong schema":    `{"schema":"other/v2"}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Errorf("%s: the schema accepted a report it should reject", name)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	run := sampleRun(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Prepare(run, testOptions(t))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadJSON(WriteJSON(run)) differs from the prepared run (-want +got):\n%s", diff)
	}
	if _, err := ReadJSON(strings.NewReader(`{"schema":"something/else"}`)); err == nil || !strings.Contains(err.Error(), "mcpcheck.report/v1") {
		t.Errorf("ReadJSON of another schema: err = %v, want one naming the expected schema", err)
	}
}

func TestWritersDoNotModifyTheRun(t *testing.T) {
	run := sampleRun(t)
	before := sampleRun(t)
	writeAll(t, run, testOptions(t))
	if diff := cmp.Diff(before, run); diff != "" {
		t.Errorf("a writer modified the caller's run (-before +after):\n%s", diff)
	}
}

func TestWritersRefuseNilRun(t *testing.T) {
	for _, f := range Formats() {
		if err := f.Write(&bytes.Buffer{}, nil, Options{}); err == nil {
			t.Errorf("%s: a nil run must be an error", f.Name)
		}
	}
}

func TestFormats(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Formats() {
		if seen[f.Name] || f.Write == nil || !strings.HasPrefix(f.Extension, ".") {
			t.Errorf("format %+v: names must be unique, with a writer and an extension", f.Name)
		}
		seen[f.Name] = true
		if g, err := LookupFormat(f.Name); err != nil || g.Name != f.Name {
			t.Errorf("LookupFormat(%q) = %v, %v", f.Name, g.Name, err)
		}
	}
	if _, err := LookupFormat("pdf"); err == nil || !strings.Contains(err.Error(), "text, json") {
		t.Errorf("LookupFormat(pdf): err = %v, want one listing the formats", err)
	}
}

func TestDefaultCatalogIsUsedWhenNoneIsGiven(t *testing.T) {
	// The real catalog: IDs it has get a summary, IDs it lacks do not break
	// anything.
	run := &Run{Checks: []Check{{ID: "a/b", Outcome: Fail, Level: "MUST", Version: "2025-11-25", Area: "lifecycle",
		Requirements: []string{"lifecycle.initialize.client-sends-initialize", "no.such.requirement"}}}}
	p, err := Prepare(run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := p.Requirements["lifecycle.initialize.client-sends-initialize"]; !ok || r.Summary == "" {
		t.Skip("the embedded catalog does not hold lifecycle.initialize.client-sends-initialize any more")
	}
	if _, ok := p.Requirements["no.such.requirement"]; ok {
		t.Error("an unknown ID got a requirement snapshot")
	}
}

func TestSchemaIDMatches(t *testing.T) {
	var doc struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(SchemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ID != SchemaID {
		t.Errorf("schema/report-v1.json has $id %q, SchemaID is %q", doc.ID, SchemaID)
	}
	if !bytes.Contains(SchemaJSON, []byte(`"const": "`+Schema+`"`)) {
		t.Errorf("schema/report-v1.json does not pin schema to %q", Schema)
	}
}

// TestJSONStoresRepeatedTextOnce (issue 27): the checks a client's case
// is judged by share its transcript, and many share a long untestable
// reason; the JSON report stores each once, validates against the
// schema, and reads back to the same run.
func TestJSONStoresRepeatedTextOnce(t *testing.T) {
	var events []WireEvent
	for i := range 40 {
		events = append(events, WireEvent{Offset: time.Duration(i) * time.Millisecond, Direction: Received, Conn: 1,
			Raw: `{"jsonrpc":"2.0","id":` + strings.Repeat("7", 1+i%3) + `,"result":{"tools":[{"name":"echo","description":"` + strings.Repeat("x", 400) + `"}]}}`})
	}
	reason := "in scenario mcpcheck-no-answer the client did not call never_answers: it refused the scenario (Unknown scenario: \"mcpcheck-no-answer\"), so it was run as tools_call, whose flow does not"
	run := &Run{Target: Target{Kind: TargetStdio, Role: "client"}, Versions: []spec.Version{"2025-11-25"}}
	for i := range 30 {
		run.Checks = append(run.Checks, Check{ID: "client/x/" + string(rune('a'+i%26)) + strings.Repeat("y", i/26), Version: "2025-11-25", Outcome: Untestable,
			Reason: reason, Transcript: events})
	}
	run.Checks = append(run.Checks, Check{ID: "client/x/own", Version: "2025-11-25", Outcome: Fail, Actual: "it broke", Reason: "a reason of its own, long enough to be shared if it were repeated by any other check in the run, which it is not",
		Transcript: events[:2]})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), strings.Repeat("x", 400)); n != 40+2 {
		t.Errorf("the shared transcript's frames are in the report %d times, want 42 (once each, and the 2 of the check that has its own)", n)
	}
	if n := strings.Count(buf.String(), "Unknown scenario"); n != 1 {
		t.Errorf("the shared reason is in the report %d times, want once", n)
	}
	var whole bytes.Buffer
	json.NewEncoder(&whole).Encode(run)
	if buf.Len()*10 > whole.Len() {
		t.Errorf("the report is %d bytes, the run with every copy %d: want less than a tenth", buf.Len(), whole.Len())
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := compileReportSchema(t).Validate(inst); err != nil {
		t.Errorf("the report does not validate against schema/report-v1.json: %v", err)
	}
	got, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Prepare(run, testOptions(t))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadJSON(WriteJSON(run)) differs from the prepared run (-want +got):\n%s", diff)
	}
	bad := strings.Replace(buf.String(), `"transcriptRef": 0`, `"transcriptRef": 9`, 1)
	if _, err := ReadJSON(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "refers to transcript 9") {
		t.Errorf("ReadJSON of a dangling reference: err = %v", err)
	}
}
