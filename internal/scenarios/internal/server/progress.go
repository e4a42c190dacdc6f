package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Progress: values only increase, tokens come only from live requests,
// nothing follows the response. The active checks need a tool that
// reports progress (ref_progress or the official test_tool_with_progress);
// the passive one judges every progress notification of the run against
// the tokens mcpcheck handed out.

var (
	progressSeq    atomic.Int64
	progressTokens sync.Map // token string -> true: every token mcpcheck sent
	// progressRequests maps the tokens of black-box tool calls to the id of
	// the request that carried them (for progress/observed).
	progressRequests sync.Map
)

// progressToken returns a fresh token and remembers it.
func progressToken() string {
	tok := fmt.Sprintf("mcpcheck-progress-%d", progressSeq.Add(1))
	progressTokens.Store(tok, true)
	return tok
}

// progressFixture is the tool that reports progress and its arguments.
func progressFixture(t *T) (string, json.RawMessage, bool) {
	if _, ok := t.Tool("ref_progress"); ok {
		return "ref_progress", json.RawMessage(`{"steps":4}`), true
	}
	if _, ok := t.Tool("test_tool_with_progress"); ok {
		return "test_tool_with_progress", json.RawMessage(`{}`), true
	}
	// Black-box: a tool that says it reports progress.
	tools, _ := t.PolicyTools()
	for _, i := range t.CallableTools(tools, true) {
		tl := tools[i]
		text := strings.ToLower(tl.Name + " " + tl.Description)
		if !strings.Contains(text, "progress") {
			continue
		}
		if args, ok := t.ToolArgs(tl); ok {
			t.Saw("%s mentions progress; it is used as the progress source", tl.Name)
			return tl.Name, args, true
		}
	}
	t.Untestable(t.PolicyReason("the target offers no tool that reports progress (ref_progress, test_tool_with_progress, or a tool whose name or description mentions progress)", tools, func(tl mcp.Tool) bool {
		return PlainCall(tl) && strings.Contains(strings.ToLower(tl.Name+" "+tl.Description), "progress")
	}))
	return "", nil, false
}

type progressNote struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress float64         `json:"progress"`
	Total    *float64        `json:"total"`
}

func progressOf(f wire.Frame) (progressNote, bool) {
	var p progressNote
	if f.Kind != wire.KindMessage || f.Msg.Method != spec.MethodProgress {
		return p, false
	}
	return p, json.Unmarshal(f.Msg.Params, &p) == nil
}

func progressTokenIs(p progressNote, tok string) bool {
	var s string
	return json.Unmarshal(p.Token, &s) == nil && s == tok
}

// progressRun calls the progress fixture with a fresh token and returns the
// token, the notifications carrying it that arrived with the call, and
// whether the call answered.
func progressRun(t *T, s Sess) (string, []progressNote, string, bool) {
	name, args, ok := progressFixture(t)
	if !ok {
		return "", nil, "", false
	}
	tok := progressToken()
	r := t.CallTool(s, name, args, map[string]any{"progressToken": tok})
	if !progressAnswered(t, name, r) {
		return "", nil, "", false
	}
	var notes []progressNote
	for _, f := range featuresFrames(r) {
		if p, ok := progressOf(f); ok && progressTokenIs(p, tok) {
			notes = append(notes, p)
		}
	}
	t.Saw("%s with progressToken %s: %d progress notifications before the response", name, tok, len(notes))
	if !t.Stdio() {
		// Over HTTP the notifications may travel on another stream (the
		// GET stream) than the response, on another connection: they can
		// arrive after it though they were sent before. Collect those.
		other := func(f wire.Frame) bool {
			p, ok := progressOf(f)
			return ok && progressTokenIs(p, tok) && f.Stream != r.Stream
		}
		late := s.WaitFor(t.Ctx, expect.Options{Timeout: t.Quiet()}, expect.Silence("no more progress on other streams"))
		n := 0
		for _, f := range append(late.Others, late.Frame) {
			if p, ok := progressOf(f); ok && other(f) {
				notes = append(notes, p)
				n++
			}
		}
		if n > 0 {
			t.Saw("%d more on another stream than the response's", n)
		}
	}
	return tok, notes, r.Stream, true
}

// progressAnswered reports whether the progress source answered; a tool
// that runs longer than the step timeout leaves the check untestable (and
// the session tainted), not failed: the progress rules do not bound how
// long a tool runs.
func progressAnswered(t *T, name string, r session.Reply) bool {
	if r.OK() {
		return true
	}
	if r.Err == nil && r.Error == nil && r.Observed.Status == expect.TimedOut {
		t.Taint()
		t.Untestable(fmt.Sprintf("%s did not answer within the step timeout (%s), so its progress could not be judged to the end (a longer --timeout helps)", name, t.StepTimeout()))
		return false
	}
	if r.Error != nil {
		t.Untestable(fmt.Sprintf("%s failed (%s), so there was no progress run to judge", name, r.Describe()))
		return false
	}
	t.JudgeReply(r)
	return false
}

var _ = Register(
	// Isolated: it judges its own request's progress token on its own session.
	Def{
		ID: "progress/increasing", Isolated: true, Area: "progress", Labels: []string{FeatureFixture("ref_progress"), FeatureFixture("test_tool_with_progress")},
		Title:        "the progress value of one token strictly increases from notification to notification",
		Requirements: []string{"progress.notify.value-increases"},
		Proofs: []Proof{
			{Fault: "progress-decreasing", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "progress-decreasing", Version: spec.V20260728, Want: reports.Fail},
		},
		Body: func(t *T) {
			c := t.Session()
			t.transportGetStream(c)
			_, notes, _, ok := progressRun(t, c.S())
			if !ok {
				return
			}
			if len(notes) < 2 {
				t.Untestable(fmt.Sprintf("the fixture sent %d progress notification(s); two are needed to judge the order", len(notes)))
				return
			}
			for i := 1; i < len(notes); i++ {
				if notes[i].Progress <= notes[i-1].Progress {
					t.Fail("each progress value larger than the one before", fmt.Sprintf("progress %v followed %v", notes[i].Progress, notes[i-1].Progress))
					return
				}
			}
			t.Pass()
		},
	},
	// Isolated: it judges its own request's progress token on its own session.
	Def{
		ID: "progress/none-after-response", Isolated: true, Area: "progress", Labels: []string{FeatureFixture("ref_progress"), FeatureFixture("test_tool_with_progress")},
		Title:        "no progress notification for a token follows the response to its request",
		Requirements: []string{"progress.notify.stop-after-completion"},
		Proofs: []Proof{
			{Fault: "progress-after-completion", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "progress-after-completion", Version: spec.V20241105, Want: reports.Fail},
		},
		Body: func(t *T) {
			c := t.Session()
			t.transportGetStream(c)
			s := c.S()
			tok, _, respStream, ok := progressRun(t, s)
			if !ok {
				return
			}
			// Only the response's own stream orders a notification after
			// the response: one on another HTTP stream (another
			// connection) may have been sent before it.
			bad := func(f wire.Frame) bool {
				p, ok := progressOf(f)
				return ok && progressTokenIs(p, tok) && (t.Stdio() || f.Stream == respStream)
			}
			obs := t.WaitQuiet(s, "no notifications/progress with token "+tok+" after the response", bad)
			if !obs.OK() {
				t.Taint()
			}
			t.Judge(obs)
		},
	},
	Def{
		ID: "progress/no-token-no-progress", Area: "progress", Labels: []string{FeatureFixture("ref_progress"), FeatureFixture("test_tool_with_progress")},
		Title:        "a request without a progressToken gets no progress notifications",
		Requirements: []string{"progress.notify.only-active-tokens"},
		Proofs:       []Proof{{Fault: "progress-without-token", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Session()
			t.transportGetStream(c)
			s := c.S()
			name, args, ok := progressFixture(t)
			if !ok {
				return
			}
			r := t.CallTool(s, name, args, nil)
			if !progressAnswered(t, name, r) {
				return
			}
			for _, f := range featuresFrames(r) {
				p, ok := progressOf(f)
				if !ok {
					continue
				}
				var tok string
				if json.Unmarshal(p.Token, &tok) == nil {
					if _, other := progressTokens.Load(tok); other {
						// The token of an earlier request on the session
						// (a pooled one): progress after that request's
						// response, which progress/none-after-response and
						// progress/observed judge, not progress for this one.
						continue
					}
				}
				t.Fail("no notifications/progress for a request that named no progressToken", f.Describe())
				return
			}
			t.Saw("%s without a token: no progress notifications", name)
			t.Pass()
		},
	},
	Def{
		ID: "progress/known-tokens", Area: "progress", Passive: true,
		Title:        "every progress notification carries a token its session gave with a request still in progress",
		Requirements: []string{"progress.notify.only-active-tokens"},
		Proofs: []Proof{
			{Fault: "progress-without-token", Version: spec.V20251125, Also: []string{"progress/no-token-no-progress"}, Want: reports.Fail},
			{Fault: "unprompted-progress", Version: spec.V20251125, Also: []string{"base/response-id-echo"}, Want: reports.Fail},
			{Fault: "unprompted-progress", Version: spec.V20250618, Also: []string{"base/response-id-echo"}, Want: reports.Fail},
			{Fault: "unprompted-progress", Version: spec.V20250326, Also: []string{"base/response-id-echo"}, Want: reports.Fail},
			{Fault: "unprompted-progress", Version: spec.V20241105, Transport: "sse", Also: []string{"base/response-id-echo"}, Want: reports.Fail},
			{Fault: "unprompted-progress", Version: spec.V20251125, Transport: "streamable", Also: []string{"progress/no-token-no-progress"}, Want: reports.Fail},
		},
		Body: func(t *T) { judgeProgressTokens(t) },
	},
)

func init() {
	Exclude(map[string]string{
		"progress.token.unique-among-active": "a rule for the server as requester: it needs a server that issues concurrent requests to the client carrying progress tokens, which no fixture does",
	})
}

var _ = Register(
	Def{
		ID: "progress/server-request-tokens", Area: "progress", Passive: true,
		Title:        "a progressToken in the _meta of a request from the server is a string or an integer",
		Requirements: []string{"progress.token.string-or-integer"},
		Proofs:       []Proof{{Fault: "request-progress-token-float", Version: spec.V20251125, Also: []string{"sampling/tool-loop-balance"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "progressToken is a JSON string or integer",
				Limit:    1,
				None:     "no request from the server carried a progressToken in this run",
			}, func(o Observation) (bool, string) {
				if o.Kind != wire.KindMessage || o.Msg.Method == "" || o.Msg.ID.IsZero() {
					return false, ""
				}
				var p struct {
					Meta struct {
						Token json.RawMessage `json:"progressToken"`
					} `json:"_meta"`
				}
				_ = json.Unmarshal(o.Msg.Params, &p)
				if len(p.Meta.Token) == 0 {
					return false, ""
				}
				var s string
				var i int64
				if json.Unmarshal(p.Meta.Token, &s) != nil && json.Unmarshal(p.Meta.Token, &i) != nil {
					return true, fmt.Sprintf("%s: token %s", o.Msg.Method, p.Meta.Token)
				}
				return true, ""
			})
		},
	},
)

var _ = Register(
	Def{
		ID: "progress/observed", Area: "progress", Passive: true,
		Title:        "progress that any black-box tool call reported increases strictly and stops with the response",
		Requirements: []string{"progress.notify.value-increases", "progress.notify.stop-after-completion"},
		Proofs:       []Proof{{Fault: "progress-after-completion", Version: spec.V20251125, Also: []string{"tools/structured-output", "tools/unknown-tool"}, Want: reports.Fail}},
		Body: func(t *T) {
			obs, _ := t.Observed()
			type key struct {
				conn int
				id   string
			}
			answered := map[key]bool{}
			last := map[string]float64{}
			n := 0
			for _, o := range obs {
				if IsResponse(o.Frame) {
					answered[key{o.Conn, o.Msg.ID.String()}] = true
					continue
				}
				p, ok := progressOf(o.Frame)
				if !ok {
					continue
				}
				var tok string
				if json.Unmarshal(p.Token, &tok) != nil {
					continue
				}
				rid, tracked := progressRequests.Load(tok)
				if !tracked {
					continue
				}
				n++
				if prev, seen := last[tok]; seen && p.Progress <= prev {
					t.Violation("progress.notify.value-increases", "each progress value larger than the one before", fmt.Sprintf("token %s: %v after %v", tok, p.Progress, prev))
				}
				last[tok] = p.Progress
				if answered[key{o.Conn, rid.(string)}] {
					t.Violation("progress.notify.stop-after-completion", "no progress for a token after its request was answered", fmt.Sprintf("token %s: %s after the response to %s", tok, wire.Excerpt(o.Raw, 160), rid))
				}
			}
			if n == 0 {
				t.NotApplicable("no black-box tool call reported progress in this run")
				return
			}
			if t.Open() {
				t.Saw("%d progress notifications from %d tracked calls", n, len(last))
				t.Pass()
			}
		},
	},
)
