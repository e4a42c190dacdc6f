package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestStartupAndUnspokenInReports: the start-up times and the versions the
// server does not speak validate against the report schema, survive a
// JSON round trip, and the start-up times and a re-run's first attempt
// are in the text report.
func TestStartupAndUnspokenInReports(t *testing.T) {
	sch := compileReportSchema(t)
	run := sampleRun(t)
	run.Startup = &Startup{Allowance: time.Minute, Measured: 12, Fastest: 300 * time.Millisecond, Median: time.Second, Slowest: 7 * time.Second}
	run.Unspoken = []spec.Version{spec.V20260728}
	for i := range run.Checks {
		if run.Checks[i].Outcome == Fail {
			run.Checks[i].Retried = "the first attempt (with up to 8 checks running at once) ended fail: no answer within 10s"
			break
		}
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("a report with start-up times, unspoken versions and a re-run does not validate: %v", err)
	}
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if back.Startup == nil || back.Startup.Slowest != 7*time.Second || len(back.Unspoken) != 1 {
		t.Errorf("round trip lost them: %+v %v", back.Startup, back.Unspoken)
	}
	var text bytes.Buffer
	if err := WriteText(&text, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"target start-up: first answer after 300ms to 7s, median 1s, on 12 fresh connections (allowance 1m0s)", "retried:  the first attempt"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report does not say %q", want)
		}
	}
}
