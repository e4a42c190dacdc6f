package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// refuseMcpcheck is a shell prelude that makes a scripted client know the
// official scenarios only, as go-sdk's conformance client does: told an
// mcpcheck-* scenario it logs "Unknown scenario" (with Go's log time
// stamp) and the list of the scenarios it knows, and exits 1.
const refuseMcpcheck = `case "$MCP_CONFORMANCE_SCENARIO" in mcpcheck-*) echo "2026/12/02 04:35:53 Unknown scenario: \"$MCP_CONFORMANCE_SCENARIO\"" >&2; printf 'Available scenarios:\n  - initialize\n  - tools_call\n' >&2; exit 1;; esac; `

// TestScriptedClientRidesOnOfficialScenarios: a scripted client that
// refuses every mcpcheck scenario (go-sdk's conformance client did, and 122
// of its checks ended untestable) is run as an official scenario instead,
// the stage still playing the mcpcheck one: the pings, roots requests and
// notifications of mcpcheck-server-requests are judged (client/ping/answers
// passes), the tools of mcpcheck-pagination are each called
// (client/tools/case-sensitive-names passes), and the case says how the
// client refused, in its own first error line without the log time stamp.
// Without the rides both checks are untestable ("the client sent nothing").
func TestScriptedClientRidesOnOfficialScenarios(t *testing.T) {
	t.Parallel()
	l := referenceLaunch(t, Streamable)
	l.Command = refuseMcpcheck + "exec " + l.Command
	res := runSuite(t, Config{Launch: l, Verbose: true, Versions: []spec.Version{spec.V20251125},
		Only: []string{"client/ping/answers", "client/tools/case-sensitive-names"}})
	if len(res.Report.Checks) != 2 {
		t.Fatalf("%d checks ran, want 2", len(res.Report.Checks))
	}
	for _, c := range res.Report.Checks {
		if c.Outcome != reports.Pass {
			t.Errorf("%s, want pass (judged on the official scenario the client played)", describe(c))
			continue
		}
		if len(c.Transcript) == 0 {
			t.Errorf("%s: no transcript", c.ID)
			continue
		}
		// The case's first note describes it (Case.Describe).
		note := c.Transcript[0].Note
		if !strings.Contains(note, `played with the client told "`) || !strings.Contains(note, `having sent nothing: Unknown scenario: "mcpcheck-`) {
			t.Errorf("%s: the case does not say which official scenario the client played and how it refused: %s", c.ID, note)
		}
		if strings.Contains(note, "2026/12/02") || strings.Contains(note, "Available scenarios") {
			t.Errorf("%s: the refusal is not the client's first error line alone: %s", c.ID, note)
		}
	}
}

// TestRefusalIsTheClientsOwnFirstErrorLine: a client that refuses every
// scenario, official ones too, leaves the checks untestable, and the reason
// quotes its own first error line (without the log time stamp), not the
// tail of its output (which was the list of scenarios it knows).
func TestRefusalIsTheClientsOwnFirstErrorLine(t *testing.T) {
	l := referenceLaunch(t, Streamable)
	l.Command = `echo "2026/12/02 04:35:53 Unknown scenario: \"$MCP_CONFORMANCE_SCENARIO\"" >&2; printf 'Available scenarios:\n  - nothing\n' >&2; exit 1; ` + l.Command
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{Launch: l, CaseTimeout: 20 * time.Second, Versions: []spec.Version{spec.V20251125}, Only: []string{"client/ping/answers"}})
	if !errors.Is(err, ErrClientSilent) {
		t.Fatalf("run: %v, want %v", err, ErrClientSilent)
	}
	if len(res.Report.Checks) != 1 {
		t.Fatalf("%d checks ran, want 1", len(res.Report.Checks))
	}
	c := res.Report.Checks[0]
	want := `Unknown scenario: "mcpcheck-server-requests"`
	if c.Outcome != reports.Untestable || !strings.Contains(c.Reason, want) || !strings.Contains(c.Reason, "refused scenario mcpcheck-server-requests and every official scenario") {
		t.Errorf("%s, want untestable quoting %s", describe(c), want)
	}
	if strings.Contains(c.Reason, "Available scenarios") || strings.Contains(c.Reason, "2026/12/02") {
		t.Errorf("%s, want the first error line alone, without the time stamp", describe(c))
	}
}

// TestFirstErrorLine: the line that reads as an error wins over earlier
// ones, Go's log time stamp goes, and a silent client has no line.
func TestFirstErrorLine(t *testing.T) {
	for _, tc := range []struct{ stderr, stdout, want string }{
		{"2026/12/02 04:35:53 Unknown scenario: \"x\"\nAvailable scenarios:\n  - initialize\n", "", `Unknown scenario: "x"`},
		{"starting\nfatal error: boom\n", "", "fatal error: boom"},
		{"", "just a line\n", "just a line"},
		{"", "", ""},
	} {
		if got := firstErrorLine([]byte(tc.stderr), []byte(tc.stdout)); got != tc.want {
			t.Errorf("firstErrorLine(%q, %q) = %q, want %q", tc.stderr, tc.stdout, got, tc.want)
		}
	}
}

// TestOutputGist: a client that sent nothing is summed up by the line that
// tells why (its first error, stamp removed), then its last line and line
// count, per stream; not by the last 300 bytes of a stack trace or usage
// text (issue 27: about 200 KB of one client's report was such tails).
func TestOutputGist(t *testing.T) {
	usage := "2026/12/02 04:35:53 Unknown scenario: \"mcpcheck-server-requests\"\nAvailable scenarios:\n" + strings.Repeat("  - some-scenario\n", 80)
	for _, tc := range []struct{ stderr, stdout, want string }{
		{usage, "", `stderr "Unknown scenario: \"mcpcheck-server-requests\"" … "- some-scenario" (82 lines)`},
		{"", "listening\n", `stdout "listening"`},
		{"fatal: no config\n", "hello\n", `stderr "fatal: no config"; stdout "hello"`},
		{"", "", "no output"},
	} {
		if got := outputGist([]byte(tc.stderr), []byte(tc.stdout)); got != tc.want {
			t.Errorf("outputGist(%.40q, %q) = %s, want %s", tc.stderr, tc.stdout, got, tc.want)
		}
	}
	if got := outputGist([]byte(usage), nil); len(got) > 300 {
		t.Errorf("the gist of %d bytes of output is %d bytes long", len(usage), len(got))
	}
}
