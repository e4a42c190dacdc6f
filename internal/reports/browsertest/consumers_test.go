package browsertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// consumerRun has one check per outcome, hostile text in the fields a
// target controls, a baselined failure and a harness problem, so every
// branch of the JUnit and SARIF writers is in the documents checked.
func consumerRun() *reports.Run {
	hostile := "<script>x</script> ]]> & \"quotes\" \x1b[31m \xff"
	run := &reports.Run{
		Tool:      reports.Tool{Name: "mcpcheck", Version: "test"},
		Target:    reports.Target{Kind: reports.TargetStdio, Command: "./server --token s3cr3t " + hostile, Role: "server"},
		Started:   time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		Duration:  1500 * time.Millisecond,
		Versions:  []spec.Version{"2025-06-18", "2025-11-25"},
		Transport: "stdio",
		Problems:  []string{"a check cited an unknown requirement " + hostile},
	}
	for i, o := range reports.Outcomes {
		for _, v := range run.Versions {
			c := reports.Check{
				ID: "ping/check-" + o.String(), Title: "check " + hostile, Requirements: []string{"ping.response.prompt-empty-result"},
				Level: "MUST", Area: "ping", Version: v, Transport: "stdio", Outcome: o,
				Expected: "an empty result", Actual: "tool " + hostile, Reason: "because " + hostile,
				Duration: time.Duration(i+1) * time.Millisecond,
				Transcript: []reports.WireEvent{
					{Direction: reports.Sent, Raw: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
					{Direction: reports.Received, Raw: hostile},
				},
			}
			if o == reports.Fail && v == "2025-06-18" {
				c.Baselined, c.BaselineReason = true, "known "+hostile
			}
			run.Checks = append(run.Checks, c)
		}
	}
	return run
}

// TestJUnitWithXmllint validates the JUnit report with libxml2's xmllint
// against testdata/junit.xsd (the dialect CI test reporters read) and
// checks, with XPath evaluated by xmllint, that the counts in the
// attributes agree with the test cases.
func TestJUnitWithXmllint(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("skipping: xmllint is not installed (Debian: apt-get install -y libxml2-utils)")
	}
	var buf bytes.Buffer
	if err := reports.WriteJUnit(&buf, consumerRun(), reports.Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, xmllint, "--noout", "--nonet", "--schema", "testdata/junit.xsd", file).CombinedOutput(); err != nil {
		t.Fatalf("xmllint rejects the JUnit report: %v\n%s", err, out)
	}
	xpath := func(expr string) int {
		t.Helper()
		out, err := exec.CommandContext(ctx, xmllint, "--nonet", "--xpath", expr, file).Output()
		if err != nil {
			t.Fatalf("xmllint --xpath %s: %v", expr, err)
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			t.Fatalf("xmllint --xpath %s printed %q", expr, out)
		}
		return int(n)
	}
	run := consumerRun()
	for _, c := range []struct {
		attr, cases string
	}{
		{"tests", "//testcase"},
		{"failures", "//testcase[failure]"},
		{"errors", "//testcase[error]"},
		{"skipped", "//testcase[skipped]"},
	} {
		total := xpath("number(/testsuites/@" + c.attr + ")")
		sum := xpath("sum(//testsuite/@" + c.attr + ")")
		cases := xpath("count(" + c.cases + ")")
		if total != cases || sum != cases {
			t.Errorf("%s: testsuites says %d, the suites add up to %d, the test cases show %d", c.attr, total, sum, cases)
		}
	}
	// The run has a harness problem, so it is no verdict on its target:
	// the suite "mcpcheck/verdict" comes first with one testcase in error.
	want := len(run.Checks)
	if reports.Verdict(run).Unjudged != "" {
		want++
		if got := xpath("count(/testsuites/testsuite[1][@name='mcpcheck/verdict']/testcase/error[@type='not-judged'])"); got != 1 {
			t.Errorf("the unjudged run does not open with the mcpcheck/verdict suite in error (%d such test cases)", got)
		}
	}
	if got := xpath("count(//testcase)"); got != want {
		t.Errorf("%d test cases, want one per check and one for the verdict (%d)", got, want)
	}
	if got := xpath("count(//testcase[failure])"); got < 1 {
		t.Errorf("no failed test case, but the run has a failing check")
	}
	if bytes.Contains(buf.Bytes(), []byte("s3cr3t")) {
		t.Errorf("the JUnit report holds the --token value")
	}
}

// TestSARIFAgainstSchema validates the SARIF report against
// testdata/sarif-2.1.0-subset.schema.json (the SARIF 2.1.0 properties
// mcpcheck writes, with the specification's types and enumerations) and
// checks the cross-references a code-scanning UI follows.
func TestSARIFAgainstSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := reports.WriteSARIF(&buf, consumerRun(), reports.Options{}); err != nil {
		t.Fatal(err)
	}
	schemaFile, err := os.Open("testdata/sarif-2.1.0-subset.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer schemaFile.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "https://mcpcheck.dev/testdata/sarif-2.1.0-subset.schema.json"
	if err := c.AddResource(id, schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compile the SARIF schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("the SARIF report is not JSON: %v", err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("the SARIF report does not validate: %v", err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	r := log.Runs[0]
	errors := 0
	for _, res := range r.Results {
		if res.RuleIndex < 0 || res.RuleIndex >= len(r.Tool.Driver.Rules) || r.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result for %s points at rule index %d, which is not that rule", res.RuleID, res.RuleIndex)
		}
		if res.Level == "error" {
			errors++
		}
		// GitHub code scanning shows no alert without a physical
		// location, a relative path in the repository (issue 27), and
		// tracks an alert across runs by its partial fingerprints.
		if len(res.Locations) == 0 || res.Locations[0].PhysicalLocation == nil {
			t.Errorf("result for %s has no physical location", res.RuleID)
		} else if u := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; u == "" || strings.HasPrefix(u, "/") || strings.Contains(u, "://") {
			t.Errorf("result for %s is located in %q, not a path relative to the repository", res.RuleID, u)
		}
		if len(res.PartialFingerprints) == 0 {
			t.Errorf("result for %s has no partial fingerprints", res.RuleID)
		}
	}
	if errors == 0 {
		t.Errorf("no result at level error, but the run has failing MUST checks")
	}
	if bytes.Contains(buf.Bytes(), []byte("s3cr3t")) {
		t.Errorf("the SARIF report holds the --token value")
	}
}
