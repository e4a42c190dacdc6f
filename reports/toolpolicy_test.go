package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestToolPolicyInReports: the tool-call policy of a run validates against
// the report schema, survives a JSON round trip and is stated in the
// headers of the text, Markdown and HTML reports.
func TestToolPolicyInReports(t *testing.T) {
	sch := compileReportSchema(t)
	run := sampleRun(t)
	run.ToolPolicy = &ToolPolicy{Calls: "named", Names: []string{"echo", "add"}, ArgsFile: "args.json", ArgsFor: []string{"echo"},
		Tools: []ToolUse{
			{Name: "echo", Class: "read-only", Annotations: "readOnlyHint: true", Calls: 3, Note: "named by --call-tools"},
			{Name: "rm_rf", Class: "destructive", Annotations: "no annotations", Skipped: "not named by --call-tools", Include: "--call-tools echo,add,rm_rf"},
		}}
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
	for _, name := range []string{"text", "md", "html"} {
		f, _ := LookupFormat(name)
		var out bytes.Buffer
		if err := f.Write(&out, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"1 of 2 tools called, 1 not called by the policy", "rm_rf", "--call-tools echo,add,rm_rf"} {
			if name == "md" {
				want = md(want)
			}
			if !strings.Contains(out.String(), want) {
				t.Errorf("the %s report's tools section does not say %q", name, want)
			}
		}
	}
	if len(back.ToolPolicy.Tools) != 2 || back.ToolPolicy.Tools[1].Include != "--call-tools echo,add,rm_rf" {
		t.Errorf("round trip lost the tools: %+v", back.ToolPolicy.Tools)
	}
	if got := (&ToolPolicy{Calls: "safe"}).String(); !strings.Contains(got, "destructive") {
		t.Errorf("safe policy reads %q; it should say what is not called", got)
	}
	if got := (&ToolPolicy{Calls: "readonly"}).String(); !strings.Contains(got, "readOnlyHint: true") {
		t.Errorf("readonly policy reads %q; it should say what is called", got)
	}
}

// TestToolUsesMergeAcrossShards: merged shards report each tool once,
// with the calls of every shard added up and the reason of one that
// called it.
func TestToolUsesMergeAcrossShards(t *testing.T) {
	a, b := sampleRun(t), sampleRun(t)
	a.Shard, b.Shard = "1/2", "2/2"
	a.Fuzz, b.Fuzz = nil, nil
	a.ToolPolicy = &ToolPolicy{Calls: "readonly", Tools: []ToolUse{
		{Name: "ls", Class: "read-only", Calls: 0, Note: "allowed (annotated readOnlyHint: true), but no check called it", Versions: []spec.Version{spec.V20250618}},
		{Name: "rm", Class: "destructive", Skipped: "no annotations", Include: "--call-tools readonly,rm"},
	}}
	b.ToolPolicy = &ToolPolicy{Calls: "readonly", Tools: []ToolUse{
		{Name: "ls", Class: "read-only", Calls: 2, Note: "annotated readOnlyHint: true", Versions: []spec.Version{spec.V20251125}},
		{Name: "rm", Class: "destructive", Skipped: "no annotations", Include: "--call-tools readonly,rm"},
	}}
	m, _, err := MergeRuns([]*Run{a, b})
	if err != nil {
		t.Fatal(err)
	}
	tools := m.ToolPolicy.Tools
	if len(tools) != 2 || tools[0].Name != "ls" || tools[0].Calls != 2 || tools[0].Note != "annotated readOnlyHint: true" || len(tools[0].Versions) != 2 || tools[1].Calls != 0 || tools[1].Skipped == "" {
		t.Errorf("merged tools %+v; want ls called twice in two versions, rm skipped", tools)
	}
	if a.ToolPolicy.Tools[0].Calls != 0 {
		t.Errorf("merging changed a shard's own report")
	}
}
