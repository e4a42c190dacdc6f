package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestOneDefectOneVerdict: a server that answers the request id 1.5 with
// id 1 (go-sdk over HTTP) fails base/invalid-ids, citing the id-echo
// requirement, and nothing else: the stray id-1 answer is not the
// response to the session's initialize (id 1), so
// transport-http/responses-on-own-streams does not call it initialize's response
// on a second stream, and base/wire-schema does not validate an empty
// ping result as an initialize result.
func TestOneDefectOneVerdict(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	const fault = "fraction-ids-truncated"
	v := spec.V20251125
	only := []string{"base/invalid-ids", "base/wire-schema", "transport-http/responses-on-own-streams"}
	t.Run("streamable", func(t *testing.T) {
		t.Parallel()
		res := runURL(t, httpReference(t, fault), target.Streamable, Config{Only: only, Versions: []spec.Version{v}})
		judgeOneVerdict(t, res, v, "transport-http/responses-on-own-streams")
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		res := runReference(t, Config{Only: only[:2], Versions: []spec.Version{v}}, fault)
		judgeOneVerdict(t, res, v)
	})
}

// judgeOneVerdict holds a run of TestOneDefectOneVerdict to its one
// failure: base/invalid-ids, naming id 1, and every other check passing.
func judgeOneVerdict(t *testing.T, res Result, v spec.Version, more ...string) {
	t.Helper()
	c, ok := expectOutcome(t, res, "base/invalid-ids", v, reports.Fail, "fault fraction-ids-truncated")
	if ok && (!strings.Contains(c.Actual, "id 1,") || !strings.Contains(c.Expected, reqIDEcho)) {
		t.Errorf("base/invalid-ids does not charge the id 1 answer to %s:\n  expected: %s\n  actual: %s", reqIDEcho, c.Expected, c.Actual)
	}
	for _, id := range append([]string{"base/wire-schema"}, more...) {
		expectOutcome(t, res, id, v, reports.Pass, "fault fraction-ids-truncated (one defect, judged by base/invalid-ids alone)")
	}
}

// TestIDBeyond253IsAnInteropProbe: a server that echoes integer ids
// through a 64-bit float (every JavaScript one: 9007199254740993 comes
// back as 9007199254740992) breaks no MUST base/invalid-ids judges, whose
// ids every JSON implementation carries exactly; base/id-beyond-2-53
// warns, naming no requirement broken, and passes against the faithful
// reference server.
func TestIDBeyond253IsAnInteropProbe(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	v := spec.V20251125
	only := []string{"base/invalid-ids", "base/id-beyond-2-53"}
	t.Run("float64-ids", func(t *testing.T) {
		t.Parallel()
		res := runReference(t, Config{Only: only, Versions: []spec.Version{v}}, "ids-through-float64")
		expectOutcome(t, res, "base/invalid-ids", v, reports.Pass, "fault ids-through-float64")
		if c, ok := expectOutcome(t, res, "base/id-beyond-2-53", v, reports.Warn, "fault ids-through-float64"); ok {
			if len(c.Violated) > 0 || !strings.Contains(c.Expected, "interoperability") || !strings.Contains(c.Actual, "9007199254740992") {
				t.Errorf("the warning does not say it is an interoperability probe with the id that came back:\n  violated: %v\n  expected: %s\n  actual: %s", c.Violated, c.Expected, c.Actual)
			}
		}
	})
	t.Run("faithful", func(t *testing.T) {
		t.Parallel()
		res := runReference(t, Config{Only: only, Versions: []spec.Version{v}})
		for _, id := range only {
			expectOutcome(t, res, id, v, reports.Pass, "the faithful reference server")
		}
	})
}

// TestToolCallsAnsweredOnlyWithErrorsAreUntestable: a server whose every
// tool call is answered with a JSON-RPC error (-32601 here) gave
// tools/call-results no result to validate: untestable, saying so, never
// a pass.
func TestToolCallsAnsweredOnlyWithErrorsAreUntestable(t *testing.T) {
	t.Parallel()
	v := spec.V20251125
	res := runSuites(t, Config{Target: target.Pipe(listServer(1)), Versions: []spec.Version{v},
		Only: []string{"tools/call-results"}, ToolPolicy: ToolPolicy{Calls: CallAll}}, time.Minute)
	if c, ok := expectOutcome(t, res, "tools/call-results", v, reports.Untestable, "every tools/call answered -32601"); ok && !strings.Contains(c.Reason, "JSON-RPC error") {
		t.Errorf("the untestable reason does not say the calls were answered with JSON-RPC errors: %s", c.Reason)
	}
}

// mutedListsServer is a pipe server that declares tools, prompts and
// resources, answers initialize and ping, and never answers a listing.
func mutedListsServer() target.PipeServer {
	return func(ctx context.Context, in io.Reader, out io.Writer) error {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 || strings.HasSuffix(m.Method, "/list") {
				continue
			}
			var line string
			switch m.Method {
			case "initialize":
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{},"prompts":{},"resources":{}},"serverInfo":{"name":"muted-lists","version":"1"}}}`, m.ID, m.Params.ProtocolVersion)
			case "ping":
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
			default:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, m.ID)
			}
			if _, err := io.WriteString(out, line+"\n"); err != nil {
				return err
			}
		}
		return sc.Err()
	}
}

// TestUnansweredListingIsAnError: a server that declares tools, prompts
// and resources but never answers tools/list, prompts/list or
// resources/list leaves the checks that need those lists with a failed
// precondition: a harness error naming the listing, never n/a (which says
// the check does not apply) nor a pass.
func TestUnansweredListingIsAnError(t *testing.T) {
	t.Parallel()
	v := spec.V20251125
	checks := []string{"tools/names", "tools/input-schema-valid", "tools/call-results", "resources/uri-syntax", "prompts/get-content"}
	res := runSuites(t, Config{Target: target.Pipe(mutedListsServer()), Versions: []spec.Version{v}, Only: checks,
		Session: session.Config{Timeout: time.Second}, ToolPolicy: ToolPolicy{Calls: CallAll}}, 2*time.Minute)
	for _, id := range checks {
		c, ok := outcomeOf(res, id, v)
		if !ok {
			t.Errorf("%s did not run", id)
			continue
		}
		t.Logf("%s: %s: %s", id, c.Outcome, c.Reason)
		if c.Outcome != reports.Error || !strings.Contains(c.Reason, "/list") {
			t.Errorf("%s ended %s (%s), want an error naming the unanswered listing", id, c.Outcome, c.Reason)
		}
	}
}

// TestDeadAtStartupNamesExitAndStderr: a stdio target that writes to
// stderr and exits at start-up has its exit status and stderr tail in the
// report's target, and every check it left unjudged or failed says how
// the process ended and what its stderr ended with.
func TestDeadAtStartupNamesExitAndStderr(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	tg := target.Command("sh", "-c", "echo boom >&2; exit 3")
	tg.Timeouts = target.Timeouts{Step: 5 * time.Second, Grace: time.Second}
	v := spec.V20251125
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, _ := Run(ctx, Config{Target: tg, Versions: []spec.Version{v}, Session: session.Config{Timeout: 5 * time.Second},
		Only: []string{"base/response-id-echo", "lifecycle/initialize-result", "ping/empty-result"}})
	if got := res.Report.Target; got.ExitStatus != "exited with status 3" || got.StderrTail != "boom" {
		t.Errorf("report target: exitStatus %q, stderrTail %q; want \"exited with status 3\" and \"boom\"", got.ExitStatus, got.StderrTail)
	}
	judged := 0
	for _, c := range res.Report.Checks {
		if c.Outcome == reports.NA || c.Outcome == reports.Pass {
			continue
		}
		judged++
		text := c.Reason + " " + c.Actual
		if !strings.Contains(text, "exited with status 3") || !strings.Contains(text, `"boom"`) {
			t.Errorf("%s ended %s without naming the exit and the stderr tail:\n  reason: %s\n  actual: %s", c.ID, c.Outcome, c.Reason, c.Actual)
		}
	}
	if judged == 0 {
		t.Error("no check ended failed, untestable or in error against a target that died at start-up")
	}
}

// TestTranscriptsNameTheirConnection: every event of a check's transcript
// says which connection carried it, so that one excerpt of a check that
// used several connections (tools/call-results spreads its calls over
// four) never reads as one process answering another's request; the text
// report shows the labels.
func TestTranscriptsNameTheirConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	v := spec.V20251125
	res := runReference(t, Config{Only: []string{"tools/call-results", "base/response-id-echo"}, Versions: []spec.Version{v}, Verbose: true})
	for _, id := range []string{"tools/call-results", "base/response-id-echo"} {
		c, ok := outcomeOf(res, id, v)
		if !ok {
			t.Fatalf("%s did not run", id)
		}
		conns := map[int]bool{}
		for _, e := range c.Transcript {
			if e.Direction == reports.Note {
				continue
			}
			if e.Conn <= 0 {
				t.Fatalf("%s: a transcript event names no connection: %+v", id, e)
			}
			conns[e.Conn] = true
		}
		if id == "tools/call-results" && len(conns) < 2 {
			t.Errorf("%s: its transcript names %d connection(s), want the several it used", id, len(conns))
		}
	}
	var b strings.Builder
	only := res.Report
	only.Checks = nil
	for _, c := range res.Report.Checks {
		if c.ID == "tools/call-results" {
			c.Outcome, c.Expected, c.Actual = reports.Fail, "(rendered as a failure, to show its transcript)", "-"
			only.Checks = append(only.Checks, c)
		}
	}
	if err := reports.WriteText(&b, &only, reports.Options{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "cN is connection N") || !strings.Contains(b.String(), "→ c") || !strings.Contains(b.String(), "← c") {
		t.Errorf("the text report does not label the transcript's connections:\n%s", b.String())
	}
}
