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

// TestMatrixNamesWhatItCompares: a matrix of client runs speaks of clients
// in its headings, one of server runs of servers, a mixed one of targets.
func TestMatrixNamesWhatItCompares(t *testing.T) {
	for _, tc := range []struct {
		roles []string
		want  string
	}{
		{[]string{"client", "client"}, "client"},
		{[]string{"server", ""}, "server"},
		{[]string{"client", "server"}, "target"},
	} {
		var inputs []MatrixInput
		for i, r := range tc.roles {
			run := sampleRun(t)
			run.Target.Role = r
			inputs = append(inputs, MatrixInput{Name: string(rune('a' + i)), Run: run})
		}
		m, err := BuildMatrix("m", inputs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var md, html bytes.Buffer
		if err := m.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteHTML(&html); err != nil {
			t.Fatal(err)
		}
		heading := "## Requirements × " + tc.want + "s"
		if !strings.Contains(md.String(), heading) || !strings.Contains(html.String(), "Requirements × "+tc.want+"s") {
			t.Errorf("roles %v: the matrix does not head its table %q", tc.roles, heading)
		}
		if tc.want != "server" {
			for _, old := range []string{"## Servers", "Each column is one server", "Broken checks per server", "<h2>Servers</h2>"} {
				if strings.Contains(md.String()+html.String(), old) {
					t.Errorf("roles %v: the matrix still says %q", tc.roles, old)
				}
			}
		}
	}
}
