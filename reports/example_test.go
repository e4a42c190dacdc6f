package reports_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The harness fills in a Run; the CLI holds it to a baseline, writes the
// formats the user asked for and turns the verdict into an exit code.
func Example() {
	run := &reports.Run{
		Tool:      reports.Tool{Name: "mcpcheck", Version: "1.0.0"},
		Target:    reports.Target{Kind: reports.TargetStdio, Command: "./server --token abc123"},
		Started:   time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		Versions:  []spec.Version{spec.V20251125},
		Transport: "stdio",
		Checks: []reports.Check{
			{ID: "ping/response/empty-result", Level: "MUST", Area: "ping", Version: spec.V20251125, Outcome: reports.Pass},
			{ID: "lifecycle/initialize/result-shape", Level: "MUST", Area: "lifecycle", Version: spec.V20251125, Outcome: reports.Fail,
				Requirements: []string{"lifecycle.initialize.result-shape"}, Expected: "serverInfo in the result", Actual: "no serverInfo"},
		},
	}
	baseline, err := reports.ParseBaseline("baseline.json", strings.NewReader(
		`{"entries": [{"check": "lifecycle/initialize/result-shape", "requirements": ["lifecycle.initialize.result-shape"], "reason": "upstream issue #12"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	reports.Apply(run, baseline)

	for _, name := range []string{"json", "junit", "html"} {
		f, _ := reports.LookupFormat(name)
		var out bytes.Buffer // a file named "report" + f.Extension in real use
		if err := f.Write(&out, run, reports.Options{}); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s written, token redacted: %t\n", name, !bytes.Contains(out.Bytes(), []byte("abc123")))
	}

	sum := reports.Summarize(run)
	fmt.Println("headline:", sum.Headline, "MUST:", sum.Must.Percent())
	fmt.Println("build fails:", reports.Verdict(run).Failed(false))
	// Output:
	// json written, token redacted: true
	// junit written, token redacted: true
	// html written, token redacted: true
	// headline: fail MUST: 50.0%
	// build fails: false
}
