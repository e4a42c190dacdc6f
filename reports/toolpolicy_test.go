package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestToolPolicyInReports: the tool-call policy of a run validates against
// the report schema, survives a JSON round trip and is stated in the
// headers of the text, Markdown and HTML reports.
func TestToolPolicyInReports(t *testing.T) {
	sch := compileReportSchema(t)
	run := sampleRun(t)
	run.ToolPolicy = &ToolPolicy{Calls: "named", Names: []string{"echo", "add"}, ArgsFile: "args.json", ArgsFor: []string{"echo"}}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("a report with a tool policy does not validate: %v", err)
	}
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if back.ToolPolicy.String() != run.ToolPolicy.String() {
		t.Errorf("round trip: %q, want %q", back.ToolPolicy.String(), run.ToolPolicy.String())
	}
	want := "only echo, add called (--call-tools); arguments for echo from args.json"
	for _, name := range []string{"text", "md", "html"} {
		f, err := LookupFormat(name)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := f.Write(&out, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("the %s report does not state the tool policy %q", name, want)
		}
	}
	if got := (&ToolPolicy{Calls: "safe"}).String(); !strings.Contains(got, "destructive") {
		t.Errorf("safe policy reads %q; it should say what is not called", got)
	}
}
