package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// fiveVersionRun is a run of five versions over stdio: one check fails in
// all of them (its ids differ per version), one warns in two, one is
// untestable in all for one reason, and passing and n/a checks pad it
// out as a real run's do.
func fiveVersionRun() *Run {
	vs := []spec.Version{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	run := &Run{Tool: Tool{Name: "mcpcheck", Version: "test"}, Target: Target{Kind: TargetStdio, Role: "server", Command: "node build/index.js"},
		Started: started, Versions: vs, Transport: "stdio"}
	for n, v := range vs {
		for i := 0; i < 30; i++ {
			run.Checks = append(run.Checks, Check{ID: fmt.Sprintf("pass/check-%02d", i), Title: "a check that passes", Requirements: []string{"lifecycle.initialize.version-echo"},
				Level: catalog.Must, Area: "lifecycle", Version: v, Transport: "stdio", Outcome: Pass})
			run.Checks = append(run.Checks, Check{ID: fmt.Sprintf("na/check-%02d", i), Title: "a check that does not apply", Requirements: []string{"logging.set-level.accepted"},
				Level: catalog.Should, Area: "logging", Version: v, Transport: "stdio", Outcome: NA, Reason: "the server did not declare the logging capability"})
		}
		id := 20 + n
		run.Checks = append(run.Checks, Check{ID: "lifecycle/initialize/result-shape", Title: "Initialize result has the required fields",
			Requirements: []string{"lifecycle.initialize.result-shape"}, Level: catalog.Must, Area: "lifecycle", Version: v, Transport: "stdio", Outcome: Fail,
			Expected: fmt.Sprintf("a result to id %d with protocolVersion, capabilities and serverInfo", id), Actual: fmt.Sprintf("the result to id %d has no serverInfo", id),
			Transcript: []WireEvent{
				ev(10*n, Sent, 1, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize"}`, id)),
				ev(10*n+1, Received, 1, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":"%s","capabilities":{}}}`, id, v)),
				{Offset: at(10*n + 2), Direction: Received, Conn: 1, Note: "end"},
				{Offset: at(10*n + 3), Direction: Note, Conn: 1, Note: "the target process exited with status 0"},
			}})
		if n >= 3 {
			run.Checks = append(run.Checks, Check{ID: "base/meta/server-info", Title: "Results carry server info in _meta",
				Requirements: []string{"base.meta.server-info-on-results"}, Level: catalog.Should, Area: "base", Version: v, Transport: "stdio", Outcome: Warn,
				Expected: "_meta with serverInfo on results", Actual: "no _meta"})
		}
		run.Checks = append(run.Checks, Check{ID: "tools/list/cursor-advances", Title: "cursors advance", Requirements: []string{"tools.call.unknown-tool-error"},
			Level: catalog.Must, Area: "tools", Version: v, Transport: "stdio", Outcome: Untestable, Reason: fmt.Sprintf("every list fits one page (%d tools)", 3+n)})
	}
	run.Peers = []PeerInfo{{Version: "2025-11-25", Negotiated: "2025-11-25", Name: "everything", Title: "Everything Server", SoftwareVersion: "2.0.0",
		Capabilities: CapabilityPaths(map[string]any{"tools": map[string]any{"listChanged": true}, "logging": map[string]any{}})}}
	return run
}

// TestProblemsFirstOncePerFormat (issue 27): every format opens with the
// failures and warnings, one entry per check naming every version where
// it broke (not one per version), with the requirement's text printed
// once; the first failure is within the first 20 lines of the text
// report; who was tested is named in every human format.
func TestProblemsFirstOncePerFormat(t *testing.T) {
	run := fiveVersionRun()
	out := map[string]string{}
	for _, f := range Formats() {
		var b bytes.Buffer
		if err := f.Write(&b, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b.String()
	}
	const (
		fail     = "lifecycle/initialize/result-shape"
		warn     = "base/meta/server-info"
		summary  = "The initialize result carries protocolVersion, capabilities and serverInfo."
		versions = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 (stdio)"
	)
	text := out["text"]
	lines := strings.Split(text, "\n")
	first := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "FAIL   "+fail) {
			first = i
			break
		}
	}
	if first < 0 || first >= 20 {
		t.Errorf("the first failure is on line %d of the text report, want within the first 20:\n%s", first+1, text)
	}
	for name, entry := range map[string]*regexp.Regexp{
		"text": regexp.MustCompile(`(?m)^(FAIL|WARN) +` + regexp.QuoteMeta(fail) + ` `),
		"md":   regexp.MustCompile("(?m)^#### .*`" + regexp.QuoteMeta(fail) + "`"),
		"html": regexp.MustCompile(`<details class="issue o-fail"[^>]*>\s*<summary>.*` + regexp.QuoteMeta(fail)),
	} {
		if n := len(entry.FindAllString(out[name], -1)); n != 1 {
			t.Errorf("%s: %d entries for %s, want 1 naming its five versions", name, n, fail)
		}
		if n := strings.Count(out[name], summary); n != 1 {
			t.Errorf("%s: the requirement's text appears %d times, want once", name, n)
		}
		if !strings.Contains(out[name], versions) {
			t.Errorf("%s: the entry does not name every version: %q", name, versions)
		}
		if !strings.Contains(out[name], `everything 2.0.0`) || !strings.Contains(out[name], "tools (listChanged)") {
			t.Errorf("%s: the report does not say who was tested (implementation and capabilities)", name)
		}
	}
	if i, k := strings.Index(text, fail), strings.Index(text, "Protocol 2024-11-05"); i < 0 || k < i {
		t.Errorf("the per-version detail comes before the problems in the text report")
	}
	if i, k := strings.Index(out["html"], `class="issue o-fail"`), strings.Index(out["html"], `id="per-version"`); i < 0 || k < i {
		t.Errorf("the per-version detail comes before the problems in the HTML report")
	}
	if !regexp.MustCompile(`<details class="section" id="per-version">`).MatchString(out["html"]) || strings.Contains(out["html"], `id="per-version" open`) {
		t.Errorf("the HTML report's per-version detail is not collapsed")
	}
	if n := strings.Count(text, "every list fits one page"); n != 1 {
		t.Errorf("the text report prints the untestable reason %d times, want once for five versions", n)
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
						Region           struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
					LogicalLocations []struct{ FullyQualifiedName string } `json:"logicalLocations"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out["sarif"]), &sarif); err != nil {
		t.Fatal(err)
	}
	res := sarif.Runs[0].Results
	if len(res) != 2 || res[0].RuleID != "lifecycle.initialize.result-shape" || len(res[0].Locations[0].LogicalLocations) != 5 {
		t.Fatalf("SARIF: %d results (want 2, the failure first, with its five versions): %+v", len(res), res)
	}
	for _, r := range res {
		pl := r.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URI != "build/index.js" || pl.Region.StartLine != 1 || r.PartialFingerprints["mcpcheckIssue/v1"] == "" {
			t.Errorf("SARIF result %s: physical location %+v, fingerprints %v; want build/index.js line 1 and mcpcheckIssue/v1", r.RuleID, pl, r.PartialFingerprints)
		}
	}
	var doc struct {
		Issues []Issue `json:"issues"`
	}
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Issues) != 2 || doc.Issues[0].Check != fail || len(doc.Issues[0].Where) != 5 || len(doc.Issues[1].Where) != 2 {
		t.Errorf("JSON issues: %+v", doc.Issues)
	}
}

// TestSARIFLocation: the file SARIF results are located in.
func TestSARIFLocation(t *testing.T) {
	for _, tc := range []struct {
		cmd, flag, want string
	}{
		{"node build/index.js", "", "build/index.js"},
		{"node ./dist/index.js stdio", "", "dist/index.js"},
		{"uvx mcp-server-fetch", "", "README.md"},
		{"/usr/bin/server --port 3", "", "README.md"},
		{"node build/index.js", "./server.json", "server.json"},
	} {
		run := &Run{Target: Target{Kind: TargetStdio, Command: tc.cmd}}
		if got := SARIFLocation(run, Options{SARIFPath: tc.flag}); got != tc.want {
			t.Errorf("SARIFLocation(%q, %q) = %q, want %q", tc.cmd, tc.flag, got, tc.want)
		}
	}
}
