package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// exitOf is the exit code each run verdict gives.
var exitOf = map[reports.RunVerdict]int{
	reports.VerdictPass:        exitOK,
	reports.VerdictIncomplete:  exitOK,
	reports.VerdictFail:        exitFailed,
	reports.VerdictNotJudged:   exitHarness,
	reports.VerdictInterrupted: exitInterrupted,
}

// TestExitCodeAndEveryReportAgree (issue 27): for real runs of each
// verdict — pass, fail, incomplete, not judged, interrupted — the exit
// code, the console's text report (its first verdict line and its last
// line), the Markdown, HTML, JSON, JUnit and SARIF reports say the same.
// A URL that is not MCP exits 3 and no report calls it failed.
// And (issue 33) a run that judged nothing (every check it selected n/a;
// a URL that is not an MCP server) or was cut short (--deadline) prints
// no "OK" ahead of its exit message, its HTML and Markdown reports do not
// call it passed, and the text says NOT JUDGED (or INTERRUPTED) and why.
// (This was TestNoOKBeforeAnOutcomeThatIsNotOK, which ran the same three
// runs again.)
func TestExitCodeAndEveryReportAgree(t *testing.T) {
	t.Parallel()
	ref := referenceCommand(t)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html><body>a web page, not an MCP server</body></html>")
	}))
	t.Cleanup(plain.Close) // after the parallel subtests
	cases := []struct {
		name string
		args []string
		want reports.RunVerdict
		says string // for a verdict that is no pass: what the text report says
	}{
		{"pass", []string{"--stdio", ref, "--protocol", "2025-11-25", "--label-filter", "area:ping"}, reports.VerdictPass, ""},
		{"fail", []string{"--stdio", ref + " --fault ping-nonempty-result", "--protocol", "2025-11-25", "--label-filter", "area:ping"}, reports.VerdictFail, ""},
		{"incomplete", []string{"--stdio", ref, "--protocol", "2024-11-05", "--label-filter", "area:cancellation"}, reports.VerdictIncomplete, ""},
		{"not judged", []string{"--stdio", ref, "--protocol", "2024-11-05", "--label-filter", "area:tasks"}, reports.VerdictNotJudged, "NOT JUDGED: nothing was judged"},
		{"not an MCP server", []string{"--url", plain.URL + "/mcp", "--protocol", "2025-11-25"}, reports.VerdictNotJudged, "NOT JUDGED: the target could not be reached"},
		{"interrupted", []string{"--stdio", ref, "--protocol", "2025-11-25", "--deadline", "300ms"}, reports.VerdictInterrupted, "INTERRUPTED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := append(append([]string{"server"}, tc.args...), "--out", out, "--format", "text,json,md,html,junit,sarif")
			code, stdout, stderr := runFuzzCLI(context.Background(), nil, args...)
			if code != exitOf[tc.want] {
				t.Fatalf("exit %d, want %d for a run %s\nstdout:\n%s\nstderr:\n%s", code, exitOf[tc.want], tc.want, tail(stdout, 2000), tail(stderr, 2000))
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(out, "mcpcheck-server"+name))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			label := tc.want.Label() + ": "
			var first string
			for _, l := range strings.Split(stdout, "\n") {
				for _, v := range []reports.RunVerdict{reports.VerdictPass, reports.VerdictFail, reports.VerdictIncomplete, reports.VerdictNotJudged, reports.VerdictInterrupted} {
					if strings.HasPrefix(l, v.Label()+": ") && first == "" {
						first = l
					}
				}
			}
			lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
			if !strings.HasPrefix(first, label) || !strings.HasPrefix(lines[len(lines)-1], label) {
				t.Errorf("the console says %q first and %q last, want %q both", first, lines[len(lines)-1], label)
			}
			if tc.says != "" {
				if okLine.MatchString(stdout) || !strings.Contains(stdout, tc.says) {
					t.Errorf("the text report prints OK, or not %q, ahead of exit %d:\n%s", tc.says, code, tail(stdout, 2000))
				}
				for _, f := range []string{".md", ".html"} {
					if passedVerdict.MatchString(read(f)) {
						t.Errorf("mcpcheck-server%s calls the run passed", f)
					}
				}
			}
			if txt := read(".txt"); txt != stdout {
				t.Errorf("the text report differs from what the console printed")
			}
			if md := read(".md"); !strings.Contains(md, "**Verdict for CI:** "+string(tc.want)+" — ") {
				t.Errorf("the Markdown verdict is not %q", tc.want)
			}
			if html := read(".html"); !strings.Contains(html, "CI verdict: <strong>"+string(tc.want)+"</strong>") {
				t.Errorf("the HTML verdict is not %q", tc.want)
			}
			var doc struct {
				Verdict struct{ Outcome string } `json:"verdict"`
			}
			if err := json.Unmarshal([]byte(read(".json")), &doc); err != nil || doc.Verdict.Outcome != string(tc.want) {
				t.Errorf("the JSON verdict is %q (%v), want %q", doc.Verdict.Outcome, err, tc.want)
			}
			if junit := read(".junit.xml"); !strings.Contains(junit, `<property name="verdict" value="`+string(tc.want)+`">`) {
				t.Errorf("the JUnit verdict is not %q", tc.want)
			}
			var sarif struct {
				Runs []struct {
					Properties map[string]any `json:"properties"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(read(".sarif")), &sarif); err != nil || sarif.Runs[0].Properties["verdict"] != string(tc.want) {
				t.Errorf("the SARIF verdict is %v (%v), want %q", sarif.Runs[0].Properties["verdict"], err, tc.want)
			}
		})
	}
}
