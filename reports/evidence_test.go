package reports

import (
	"strings"
	"testing"
	"time"
)

func ev(ms int, d Direction, conn int, raw string) WireEvent {
	return WireEvent{Offset: at(ms), Direction: d, Conn: conn, Raw: raw}
}

// evidenceText renders an excerpt for assertions.
func evidenceText(e Evidence) string { return strings.Join(evidenceLines(e), "\n") }

// TestEvidenceHoldsTheProvokingRequestAndTheJudgedAnswer (issue 27): the
// excerpt a report shows of a broken check holds the request that
// provoked what was judged and the answer it was judged on, or the
// request no answer came to and how long the check waited, never the
// connection's closing that follows the verdict (the "last 4 events" of a
// transcript were four DELETEs or the end of a stream).
func TestEvidenceHoldsTheProvokingRequestAndTheJudgedAnswer(t *testing.T) {
	closing := []WireEvent{
		{Offset: at(900), Direction: Received, Conn: 6, Note: "end"},
		{Offset: at(901), Direction: Note, Conn: 6, Note: "the target process exited with status 0"},
	}
	del := []WireEvent{
		{Offset: at(900), Direction: Sent, HTTP: &HTTPInfo{Method: "DELETE", URL: "http://x/mcp"}},
		{Offset: at(901), Direction: Received, HTTP: &HTTPInfo{Status: 200}},
		{Offset: at(902), Direction: Sent, HTTP: &HTTPInfo{Method: "DELETE", URL: "http://x/mcp"}},
		{Offset: at(903), Direction: Received, HTTP: &HTTPInfo{Status: 200}},
	}
	noise := func(conn int) []WireEvent {
		var out []WireEvent
		for i := 0; i < 8; i++ {
			out = append(out, ev(100+i, Sent, conn, `{"jsonrpc":"2.0","id":`+string(rune('a'+i))+`0,"method":"ping"}`))
		}
		return out
	}
	cases := []struct {
		name       string
		c          Check
		want       []string // substrings the excerpt must hold
		notWant    []string
		unanswered bool
	}{
		{
			name: "id named in the verdict, answer before the closing",
			c: Check{ID: "logging/set-level-invalid", Outcome: Warn, JudgedAt: at(500),
				Expected: "an error response to id 22 with code -32602 (InvalidParams)",
				Actual:   "got an error response (id 22) with code -32603",
				Transcript: append(append([]WireEvent{
					ev(10, Sent, 6, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`),
					ev(11, Received, 6, `{"jsonrpc":"2.0","id":1,"result":{}}`),
				}, append(noise(6),
					ev(400, Sent, 6, `{"jsonrpc":"2.0","id":22,"method":"logging/setLevel","params":{"level":"bogus"}}`),
					ev(410, Received, 6, `{"jsonrpc":"2.0","id":22,"error":{"code":-32603,"message":"no"}}`))...), closing...),
			},
			want:    []string{`"id":22,"method":"logging/setLevel"`, `"id":22,"error"`},
			notWant: []string{"exited", "(end)", `"method":"initialize"`},
		},
		{
			name: "string ids of a batch no answer came to",
			c: Check{ID: "base/batch-accepted", Outcome: Fail, JudgedAt: at(10500),
				Expected: "a batch response (array) answering mcpcheck-batch-a and mcpcheck-batch-b",
				Actual:   "no answer within 10s (meanwhile 1 other frame(s): a roots/list request (id 0))",
				Transcript: append(append(noise(24),
					ev(500, Sent, 24, `[{"jsonrpc":"2.0","id":"mcpcheck-batch-a","method":"ping"},{"jsonrpc":"2.0","id":"mcpcheck-batch-b","method":"ping"}]`),
					ev(600, Received, 24, `{"method":"roots/list","jsonrpc":"2.0","id":0}`)), closing...),
			},
			want:       []string{"mcpcheck-batch-a", "no answer to id mcpcheck-batch-a", "by +10.5s"},
			notWant:    []string{"exited"},
			unanswered: true,
		},
		{
			name: "what the target sent while it handled the request",
			c: Check{ID: "progress/increasing", Outcome: Fail, JudgedAt: at(800),
				Expected: "each progress value larger than the one before", Actual: "progress 0 followed 1",
				Transcript: append(append(noise(4),
					ev(300, Sent, 4, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":"p-1"},"name":"ref_progress"}}`),
					ev(301, Received, 4, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":1,"total":4}}`),
					ev(302, Received, 4, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":0,"total":4}}`),
					ev(303, Received, 4, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}`),
					ev(304, Received, 4, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"still working"}}`),
					ev(305, Received, 4, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"almost"}}`),
					ev(306, Received, 4, `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`)), closing...),
			},
			want:    []string{`"method":"tools/call"`, `"progress":1,`, `"progress":0,`, `"id":3,"result"`},
			notWant: []string{"exited"},
		},
		{
			name: "a batch refused with an error that has no id",
			c: Check{ID: "base/batch-accepted", Outcome: Fail, JudgedAt: at(700),
				Expected: "a batch response (array) answering mcpcheck-batch-a and mcpcheck-batch-b",
				Actual:   "got an error response with code -32600 (InvalidRequest): the server refused the batch",
				Transcript: append(append(noise(24),
					ev(500, Sent, 24, `[{"jsonrpc":"2.0","id":"mcpcheck-batch-a","method":"ping"},{"jsonrpc":"2.0","id":"mcpcheck-batch-b","method":"ping"}]`),
					ev(600, Received, 24, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported"}}`)), closing...),
			},
			want:    []string{"mcpcheck-batch-a", `"id":null,"error"`},
			notWant: []string{"no answer", "exited"},
		},
		{
			name: "a tool the verdict names, over HTTP, then DELETEs",
			c: Check{ID: "tools/call-results", Outcome: Fail,
				Actual: `get-resource-links({}): is "resource_link", but must be "image", "resource" or "text" at /result/content/1/type`,
				Transcript: append(append(noise(3),
					ev(300, Sent, 3, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`),
					ev(301, Received, 3, `{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`),
					ev(302, Sent, 3, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get-resource-links","arguments":{}}}`),
					ev(303, Received, 3, `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"resource_link"}]}}`),
					ev(304, Sent, 3, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get-sum","arguments":{}}}`),
					ev(305, Received, 3, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)), del...),
			},
			want:    []string{`"name":"get-resource-links"`, `"id":6,"result"`},
			notWant: []string{"DELETE", `"name":"get-sum"`, `"name":"echo"`},
		},
		{
			name: "an answer with another id, on the HTTP stream the verdict names",
			c: Check{ID: "base/invalid-ids", Outcome: Fail, JudgedAt: at(700),
				Actual: "id 1.5 (JSON-RPC allows fractions, MCP wants an integer): got a result response (id 1) [HTTP 200, text/event-stream, POST post-12]: the answer carries id 1, which the message did not carry (it sent 1.5)",
				Transcript: append(append([]WireEvent{
					{Offset: at(10), Direction: Sent, Conn: 4, Raw: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, Note: "stream post-1"},
					{Offset: at(11), Direction: Received, Conn: 4, Raw: `{"jsonrpc":"2.0","id":1,"result":{}}`, Note: "stream post-1; SSE event message"},
				}, append(noise(4),
					WireEvent{Offset: at(600), Direction: Sent, Conn: 4, Raw: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, Note: "stream post-12"},
					WireEvent{Offset: at(601), Direction: Received, Conn: 4, Raw: `{"jsonrpc":"2.0","id":1,"result":{}}`, Note: "stream post-12; SSE event message"})...), del...),
			},
			want:    []string{`"id":1.5,"method":"ping"`, `"id":1,"result":{}`},
			notWant: []string{`"method":"initialize"`, "no answer", "DELETE"},
		},
		{
			name: "a tool whose name has spaces and parentheses",
			c: Check{ID: "tools/call-results", Outcome: Fail,
				Actual: `greet (content with ResourceLink)({"name":"mcpcheck"}): is "resource_link", but must be "image", "resource" or "text" at /result/content/0/type`,
				Transcript: append(append(noise(25),
					ev(300, Sent, 25, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"name":"mcpcheck"},"name":"greet (content with ResourceLink)"}}`),
					ev(301, Received, 25, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"resource_link"}]}}`),
					ev(302, Sent, 25, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{},"name":"ping"}}`),
					ev(303, Received, 25, `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`)), del...),
			},
			want:    []string{`"name":"greet (content with ResourceLink)"`, `"id":2,"result"`},
			notWant: []string{`"name":"ping"`, "DELETE"},
		},
		{
			name: "no answer to the last request, after answered ones",
			c: Check{ID: "tasks/lifecycle", Outcome: Fail, JudgedAt: at(10900),
				Expected: "tasks/get with params.taskId t-1 is answered for that task, the related-task _meta naming another task being ignored",
				Actual:   "no answer within 10s",
				Transcript: append(append(noise(4),
					ev(800, Sent, 4, `{"jsonrpc":"2.0","id":16,"method":"tasks/get","params":{"taskId":"t-1"}}`),
					ev(801, Received, 4, `{"jsonrpc":"2.0","id":16,"result":{"taskId":"t-1","status":"completed"}}`),
					ev(900, Sent, 4, `{"jsonrpc":"2.0","id":17,"method":"tasks/get","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"decoy"}},"taskId":"t-1"}}`)), closing...),
			},
			want:       []string{`"id":17,"method":"tasks/get"`, "no answer to id 17", "by +10.9s"},
			notWant:    []string{`"id":16,"result"`, "exited"},
			unanswered: true,
		},
		{
			name: "a frame the verdict quotes (a passive check)",
			c: Check{ID: "prompts/capability-notifications", Outcome: Warn,
				Actual: `prompts.listChanged not declared on connection 22: "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\"}"`,
				Transcript: []WireEvent{
					ev(50, Received, 21, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`),
					ev(60, Received, 22, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`),
					ev(70, Received, 23, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`),
					ev(80, Received, 24, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`),
					ev(90, Received, 25, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`),
				},
			},
			want:    []string{"c22", "notifications/prompts/list_changed"},
			notWant: []string{"c21", "c25"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := EvidenceOf(tc.c)
			got := evidenceText(e)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the excerpt lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("the excerpt holds %q, which proves nothing of the verdict:\n%s", w, got)
				}
			}
			if (len(e.Unanswered) > 0) != tc.unanswered {
				t.Errorf("unanswered %v, want %v", e.Unanswered, tc.unanswered)
			}
			if len(e.Events) > evidenceEvents || len(e.Events) == 0 {
				t.Errorf("%d events shown, want 1 to %d", len(e.Events), evidenceEvents)
			}
			for i := range e.Events {
				if e.Events[i].Raw != tc.c.Transcript[e.Index[i]].Raw {
					t.Errorf("event %d is not transcript event %d", i, e.Index[i])
				}
			}
		})
	}
}

// TestTidyRoundsDurations: reasons read "no answer within 17s", not
// "16.967922022s".
func TestTidyRoundsDurations(t *testing.T) {
	for in, want := range map[string]string{
		"no answer within 16.967922022s":                   "no answer within 17s",
		"stretched up to 1.401824769s (751.512579ms)":      "stretched up to 1.4s (752ms)",
		"after 1m43.293441s":                               "after 1m43.3s",
		"id 9007199254740993 and 2.5s stay; version 1.0.0": "id 9007199254740993 and 2.5s stay; version 1.0.0",
	} {
		if got := tidy(in); got != want {
			t.Errorf("tidy(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (&Silence{Window: 250 * time.Millisecond, Longest: 751512579, Typical: 251234567, Windows: 3}).String(); strings.Contains(got, "751.512579ms") {
		t.Errorf("silence windows print unrounded durations: %s", got)
	}
}

// TestEvidenceAfterCountsTheEventsLeftOut: After is the number of
// transcript events that follow the last one an excerpt shows: the
// connection's closing and what came after the verdict when EvidenceOf
// leaves them out, none when a short transcript is shown whole, and the
// whole transcript when no event is shown. With Skipped and the events
// shown it accounts for every event of the transcript.
func TestEvidenceAfterCountsTheEventsLeftOut(t *testing.T) {
	if got := (Evidence{Total: 5}).After(); got != 5 {
		t.Errorf("an excerpt showing none of 5 events: After() = %d, want 5", got)
	}
	if got := EvidenceOf(Check{ID: "ping/empty-result", Outcome: Fail}).After(); got != 0 {
		t.Errorf("the excerpt of an empty transcript: After() = %d, want 0", got)
	}
	closing := []WireEvent{
		{Offset: at(900), Direction: Received, Conn: 6, Note: "end"},
		{Offset: at(901), Direction: Note, Conn: 6, Note: "the target process exited with status 0"},
	}
	deletes := []WireEvent{
		{Offset: at(900), Direction: Sent, HTTP: &HTTPInfo{Method: "DELETE", URL: "http://x/mcp"}},
		{Offset: at(901), Direction: Received, HTTP: &HTTPInfo{Status: 200}},
		{Offset: at(902), Direction: Sent, HTTP: &HTTPInfo{Method: "DELETE", URL: "http://x/mcp"}},
		{Offset: at(903), Direction: Received, HTTP: &HTTPInfo{Status: 200}},
	}
	pings := func(conn, n int) []WireEvent {
		var out []WireEvent
		for i := 0; i < n; i++ {
			out = append(out, ev(100+i, Sent, conn, `{"jsonrpc":"2.0","id":`+string(rune('a'+i))+`0,"method":"ping"}`))
		}
		return out
	}
	judged := []WireEvent{
		ev(400, Sent, 6, `{"jsonrpc":"2.0","id":22,"method":"logging/setLevel","params":{"level":"bogus"}}`),
		ev(410, Received, 6, `{"jsonrpc":"2.0","id":22,"error":{"code":-32603,"message":"no"}}`),
	}
	cat := func(parts ...[]WireEvent) []WireEvent {
		var out []WireEvent
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	verdict := Check{ID: "logging/set-level-invalid", Outcome: Warn, JudgedAt: at(500),
		Expected: "an error response to id 22 with code -32602 (InvalidParams)",
		Actual:   "got an error response (id 22) with code -32603"}
	cases := []struct {
		name       string
		transcript []WireEvent
		after      int
	}{
		{"the judged answer last", cat(pings(6, 8), judged), 0},
		{"the judged answer, then the process's exit", cat(pings(6, 8), judged, closing), len(closing)},
		{"the judged answer, then DELETEs", cat(pings(6, 8), judged, deletes), len(deletes)},
		{"the judged answer, then frames after the verdict and the exit", cat(pings(6, 8), judged, []WireEvent{
			ev(600, Sent, 6, `{"jsonrpc":"2.0","id":23,"method":"ping"}`),
			ev(601, Received, 6, `{"jsonrpc":"2.0","id":23,"result":{}}`),
			ev(602, Sent, 6, `{"jsonrpc":"2.0","id":24,"method":"ping"}`),
		}, closing), 3 + len(closing)},
		{"a short transcript, shown whole", judged, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := verdict
			c.Transcript = tc.transcript
			e := EvidenceOf(c)
			if len(e.Events) == 0 || e.Total != len(tc.transcript) {
				t.Fatalf("the excerpt shows %d of %d events, want some of %d:\n%s", len(e.Events), e.Total, len(tc.transcript), evidenceText(e))
			}
			if last := e.Events[len(e.Events)-1]; last.Raw != judged[1].Raw {
				t.Fatalf("the excerpt ends with %q, not the judged answer:\n%s", last.Raw, evidenceText(e))
			}
			if got := e.After(); got != tc.after {
				t.Errorf("After() = %d, want %d: the events after the judged answer\n%s", got, tc.after, evidenceText(e))
			}
			shown := e.After() + len(e.Events)
			for i := range e.Events {
				shown += e.Skipped(i)
			}
			if shown != e.Total {
				t.Errorf("skipped, shown and After() add up to %d events, the transcript has %d", shown, e.Total)
			}
		})
	}
}
