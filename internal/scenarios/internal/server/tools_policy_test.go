package server

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestParseToolPolicy: the scenarios' names for the policy are
// toolpolicy's (its own tests hold the tiers); "safe", the old default,
// now reads as readonly.
func TestParseToolPolicy(t *testing.T) {
	for in, want := range map[string]string{"": "readonly", "safe": "readonly", " all ": "all", "additive": "additive", "a": "a", "a, b,a": "a,b", "readonly,rm": "readonly,rm"} {
		p, err := ParseToolPolicy(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if p.String() != want {
			t.Errorf("%q reads as %q, want %q", in, p.String(), want)
		}
	}
	for _, in := range []string{"a,,b", "a,all", ",", "all,a"} {
		if _, err := ParseToolPolicy(in); err == nil {
			t.Errorf("%q was accepted", in)
		}
	}
	if (ToolPolicy{}).Tier() != CallReadOnly || CallSafe != CallReadOnly {
		t.Errorf("the zero policy is %s and safe is %s; both must be readonly", ToolPolicy{}.Tier(), CallSafe)
	}
}

func TestParseToolArgs(t *testing.T) {
	args, err := ParseToolArgs([]byte(`{"echo": {"text": "hi"}, "add": [{"a": 1}, {"a": 2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(args["echo"]) != 1 || string(args["echo"][0]) != `{"text": "hi"}` || len(args["add"]) != 2 {
		t.Errorf("parsed %v", args)
	}
	for doc, says := range map[string]string{
		`[]`:                     "not a JSON object",
		`{"echo": "hi"}`:         `give an object, or an array of objects`,
		`{"echo": [1]}`:          "not a JSON object; each call's arguments are an object",
		`{"echo": []}`:           "empty list",
		`{"": {}}`:               "empty tool name",
		`{"echo": {}} {"x": {}}`: "more than one JSON value",
		`{"echo": {`:             "not a JSON object",
	} {
		_, err := ParseToolArgs([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: error %v, want one saying %q", doc, err, says)
		}
	}
	if _, err := ReadToolArgs(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "readable JSON file") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestReferenceCleanUnderEveryPolicy judges the suite against the
// reference server with --call-tools all in every version (the shared
// stdio run), and the tools checks with
// a list of names and with --tool-args: nothing fails, warns or errors,
// and the report states the policy. A policy naming a tool the server
// does not list makes the run an error that says so. The runs of the
// policies are against the server in process over pipes (pipeReference):
// a policy is the harness's business, not the process's.
func TestReferenceCleanUnderEveryPolicy(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	clean := func(t *testing.T, res Result) {
		t.Helper()
		n := 0
		for _, c := range res.Report.Checks {
			switch c.Outcome {
			case reports.Fail, reports.Warn, reports.Error:
				t.Errorf("%s [%s] %s\n  expected: %s\n  actual: %s\n  reason: %s", c.Outcome, c.Version, c.ID, c.Expected, c.Actual, c.Reason)
			case reports.Pass:
				n++
			}
		}
		if n == 0 {
			t.Errorf("nothing passed")
		}
	}
	t.Run("all", func(t *testing.T) {
		// The shared stdio run with Parallel 8 (sharedStdio) is this
		// run: --call-tools all (ownTools), every version.
		res := sharedStdio(t).wide
		clean(t, res)
		if p := res.Report.ToolPolicy; p == nil || p.Calls != "all" {
			t.Errorf("the report states the policy as %+v, want all", p)
		}
		wantPass(t, res, "tools/call-results", spec.V20251125)
	})
	only := []string{"tools/call-results", "tools/structured-output", "tools/input-validation", "tools/case-sensitive-names", "progress/increasing", "tasks/undeclared-ignored"}
	t.Run("names", func(t *testing.T) {
		p := ToolPolicy{Calls: CallNamed, Names: []string{"ref_structured", "test_simple_text", "ref_task_required"}}
		res := runSuites(t, Config{Target: pipeReference(), Only: only, ToolPolicy: p}, 2*time.Minute)
		clean(t, res)
		wantPass(t, res, "tools/call-results", spec.V20251125)
		wantPass(t, res, "tools/structured-output", spec.V20251125)
	})
	t.Run("args", func(t *testing.T) {
		p := ToolPolicy{Calls: CallAll, ArgsFile: "args.json", Args: map[string][]json.RawMessage{
			"ref_structured": {json.RawMessage(`{"a":2,"b":3}`), json.RawMessage(`{"a":-1,"b":0.5}`)},
		}}
		res := runSuites(t, Config{Target: pipeReference(), Only: only, ToolPolicy: p, Versions: []spec.Version{spec.V20251125}}, 2*time.Minute)
		clean(t, res)
		c := wantPass(t, res, "tools/structured-output", spec.V20251125)
		if !strings.Contains(c.Actual, `ref_structured({"a":-1,"b":0.5})`) {
			t.Errorf("the second argument set given was not used: %s", c.Actual)
		}
	})
	t.Run("unknown name", func(t *testing.T) {
		p := ToolPolicy{Calls: CallNamed, Names: []string{"ref_structured", "no_such_tool"}}
		cfg := Config{Only: []string{"tools/call-results"}, ToolPolicy: p, Versions: []spec.Version{spec.V20251125}}
		cfg.Target = pipeReference()
		cfg.Session = session.Config{Timeout: 5 * time.Second}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := Run(ctx, cfg)
		if !errors.Is(err, ErrToolPolicy) || !strings.Contains(err.Error(), `--call-tools names "no_such_tool"`) || !strings.Contains(err.Error(), "ref_structured") {
			t.Errorf("run error %v; want one naming no_such_tool and listing the server's tools", err)
		}
		if len(res.Report.Checks) == 0 {
			t.Errorf("the run with a bad name has no report")
		}
	})
}

// wantPass fails unless check id passed in version v, and returns it.
func wantPass(t *testing.T, res Result, id string, v spec.Version) reports.Check {
	t.Helper()
	for _, c := range res.Report.Checks {
		if c.ID == id && c.Version == v {
			if c.Outcome != reports.Pass {
				t.Errorf("%s [%s]: %s (%s), want pass", id, v, c.Outcome, c.Reason)
			}
			return c
		}
	}
	t.Errorf("%s [%s] did not run", id, v)
	return reports.Check{}
}
