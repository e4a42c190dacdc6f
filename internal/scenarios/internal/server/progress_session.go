package server

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// Progress tokens per session (progress/known-tokens): a progress
// notification names a token its own session sent with a request, and
// that request is still in progress. A notification that trails the
// response on the same stream (or on a connection where everything
// arrives in order) came after it; one on another stream may have crossed
// the response and is not held against the server. Tokens of
// task-augmented requests stay valid after the CreateTaskResult, until
// the task ends, which the ledger does not follow: they are not judged
// stale.

// judgeProgressTokens is the body of progress/known-tokens.
func judgeProgressTokens(t *T) {
	const expected = "notifications/progress only with a token of a request of the same session that is still in progress"
	obs, _ := t.Observed()
	n, bad := 0, 0
	for _, o := range obs {
		p, ok := progressOf(o.Frame)
		if !ok {
			continue
		}
		switch o.Place.Token {
		case TokenUntracked:
			continue
		case TokenUnknown:
			bad++
			if bad <= 3 {
				t.Fail(expected, fmt.Sprintf("token %s was never sent on %s: %s", p.Token, SessionText(o), wire.Excerpt(o.Raw, 200)))
			}
		case TokenAnswered:
			bad++
			if bad <= 3 {
				t.Fail(expected, fmt.Sprintf("token %s after its request was answered (on %s, %s): %s", p.Token, o.Stream, SessionText(o), wire.Excerpt(o.Raw, 200)))
			}
		}
		n++
	}
	switch {
	case bad > 0:
	case n == 0:
		t.ObservedUnjudged("the server sent no progress notification in this run", true)
	default:
		t.Saw("%d progress notifications, each with a token of its session's request in progress", n)
		t.Pass()
	}
}
