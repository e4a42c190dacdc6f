package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestEveryFormatShowsTheRole: a report of a client run says it judged a
// client in every format, in the place each format keeps such facts.
func TestEveryFormatShowsTheRole(t *testing.T) {
	want := map[string]string{
		"text":  "client (",
		"json":  `"role": "client"`,
		"junit": `name="role" value="client"`,
		"md":    "**Target** (client,",
		"html":  "client",
		"sarif": `"role": "client"`,
		"badge": "MCP client ",
	}
	for _, f := range Formats() {
		run := sampleRun(t)
		run.Target.Role = "client"
		var buf bytes.Buffer
		if err := f.Write(&buf, run, testOptions(t)); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("format %s: no expectation in this test; add one", f.Name)
			continue
		}
		if !strings.Contains(buf.String(), w) {
			t.Errorf("the %s report of a client run does not say it judged a client (%q not found)", f.Name, w)
		}
	}
}
