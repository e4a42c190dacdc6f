package server

import (
	"errors"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// Preconditions: a list a check needs (tools/list, prompts/list,
// resources/list) that the target declared but did not give is no reason
// to call the check n/a, which says it does not apply. A listing that got
// no answer at all (it timed out, the stream ended, the wait was cut
// short) is a failed precondition: the check is an error, not judged. A
// listing answered otherwise (an error response, a result that is no
// list) leaves the check untestable; the checks of that list judge the
// answer.

// listFailure is the error of a listing that gave no list: the method and
// the reply that ended it.
type listFailure struct {
	method string
	r      session.Reply
}

func (e *listFailure) Error() string { return e.method + ": " + e.r.Describe() }

// unanswered reports whether the listing got no answer at all.
func (e *listFailure) unanswered() bool {
	switch e.r.Observed.Status {
	case 0:
		return e.r.Err != nil
	case expect.TimedOut, expect.Ended, expect.Flooded, expect.Aborted:
		return true
	}
	return false
}

// listFailed ends the check when err says a listing it needs gave no list
// (see the comment above) and reports whether it did; what names the
// list ("tools/list").
func (t *T) listFailed(err error, what string) bool {
	if err == nil {
		return false
	}
	var lf *listFailure
	switch {
	case errors.As(err, &lf) && lf.unanswered():
		t.Error(fmt.Errorf("precondition: %s got no answer (%s), so the check could not get to what it judges; the server declared the capability, so the check applies", what, lf.r.Describe()))
	case errors.As(err, &lf):
		t.Untestable(fmt.Sprintf("%s was not answered with a list (%s); the checks of %s judge that answer", what, lf.r.Describe(), what))
	case t.Ctx.Err() != nil:
		t.Error(fmt.Errorf("precondition: %s was cut short (%v)", what, t.Ctx.Err()))
	default:
		t.Untestable(fmt.Sprintf("%s gave no usable list: %v", what, err))
	}
	return true
}

// RequireTools is T.Tools for a check that needs the list: it returns the
// tools and true, or ends the check and returns false: n/a when the
// server declared no tools capability, a harness error when tools/list got
// no answer (the precondition failed), untestable when it was answered
// with something other than a list.
func (t *T) RequireTools() ([]mcp.Tool, bool) {
	if !t.RequireCapability("tools") {
		return nil, false
	}
	tools, ok := t.Tools()
	if ok {
		return tools, true
	}
	t.vr.mu.Lock()
	err := t.vr.toolsErr
	t.vr.mu.Unlock()
	if err == nil {
		err = errors.New("the listing was cut short")
	}
	t.listFailed(err, "tools/list")
	return nil, false
}
