package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestTextShowsHarnessProblemsAndRedactsStderr(t *testing.T) {
	run := &Run{
		Tool:     Tool{Name: "mcpcheck", Version: "test"},
		Target:   Target{Kind: TargetStdio, Command: "srv", StderrTail: "starting\nAuthorization: Bearer sk-live-123456\n", ExitStatus: "exit status 2"},
		Started:  time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Problems: []string{"check base/x cited unknown requirement nope.nope"},
	}
	var b bytes.Buffer
	if err := WriteText(&b, run, Options{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Harness problems", "nope.nope", "exit status 2", "Target stderr", "starting"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report: want %q in the output, got:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-live-123456") {
		t.Errorf("text report leaks the bearer token from the target's stderr:\n%s", out)
	}
	var j bytes.Buffer
	if err := WriteJSON(&j, run, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(j.String(), "sk-live-123456") || !strings.Contains(j.String(), `"problems"`) {
		t.Errorf("JSON report must carry problems and no token:\n%s", j.String())
	}
}
