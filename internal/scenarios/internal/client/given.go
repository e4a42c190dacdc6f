package client

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Optional behaviour. Many client requirements bind only a client that
// does something the protocol leaves to it: cursors are opaque to a client
// that follows nextCursor (it may stop at the first page), progress tokens
// are strings or integers on a client that asks for progress, a cancelled
// request's late answer is ignored by a client that cancels, tasks are
// polled by a client that uses them, sampling requests are checked by a
// client that declared sampling. A check of such a requirement names the
// behaviour it is conditional on (OnlyIf), and when it finds nothing to
// judge, T.Untestable tells the two cases apart with the whole run:
//
//   - the client showed the behaviour in none of the run's launches (every
//     scenario, every version, the official scenarios it was run as
//     included): the requirement does not bind this client, and the check
//     is n/a with a reason naming what it never did;
//   - it showed it in some launch: the requirement binds it, and the check
//     stays untestable (here the trigger was missing or the evidence too
//     thin).
//
// Only a finding of nothing is changed: a check that judged anything
// (pass, fail, warn) keeps its verdict. A behaviour the spec asks of every
// client (a MUST or SHOULD to do it: set timeouts, follow the pages of a
// prompt list it reads) is never a condition: such a check names the
// optional thing it rests on (giving up at all, listing prompts at all) or
// nothing, and stays untestable. A run that was stopped before all its
// launches ended decides nothing: the check stays untestable.

// behaviour is an optional thing a client may do, as a run's launches
// show it.
type behaviour struct {
	// Does completes "a client that ...": what the behaviour is, for the
	// n/a reason.
	Does string
	// In reports whether case c shows it.
	In func(c *Case) bool
}

// conditional maps a check ID to the behaviours its requirements bind
// only a client showing (all of them; filled by OnlyIf at package
// initialisation, read-only afterwards).
var conditional = map[string][]*behaviour{}

// OnlyIf declares d's requirements conditional on the behaviours bs and
// returns d, for Register.
func OnlyIf(d Def, bs ...*behaviour) Def {
	if len(bs) == 0 || conditional[d.ID] != nil {
		panic("client: onlyIf(" + d.ID + "): no behaviour, or declared twice")
	}
	conditional[d.ID] = bs
	return d
}

// The optional behaviours client checks are conditional on.
var (
	// DoesPaginate: the client sends a list request with a cursor.
	DoesPaginate = &behaviour{Does: "follows a nextCursor (sends a list request with a cursor)", In: func(c *Case) bool {
		for _, m := range pgListMethods {
			for _, l := range pgListings(c, m) {
				if l.cursor != nil {
					return true
				}
			}
		}
		return false
	}}
	// doesListPrompts: the client asks for the prompts.
	doesListPrompts = &behaviour{Does: "lists prompts (prompts/list)", In: func(c *Case) bool {
		return len(c.Requests(spec.MethodPromptsList)) > 0
	}}
	// doesAskProgress: a request of the client carries a progressToken.
	doesAskProgress = &behaviour{Does: "asks for progress (a progressToken in a request's _meta)", In: func(c *Case) bool {
		for _, m := range c.Requests("") {
			if _, ok := prToken(m); ok {
				return true
			}
		}
		return false
	}}
	// doesCancel: the client cancels a request or a task.
	doesCancel = &behaviour{Does: "cancels a request (notifications/cancelled or tasks/cancel)", In: clientCancels}
	// doesGiveUp: the client gives up on a request left unanswered: it
	// cancels something, or it left, or went on without it, before the
	// stage's own answer to never_answers.
	doesGiveUp = &behaviour{Does: "gives up on a request left unanswered (cancels it, or leaves or goes on without its answer)", In: func(c *Case) bool {
		if clientCancels(c) {
			return true
		}
		for _, cc := range caCalls(c, "never_answers") {
			if cc.patience && cc.movedOn || !cc.patience && !StillWaiting(c) {
				return true
			}
		}
		return false
	}}
	// DoesUseTasks: the client makes a task-augmented request or a tasks/*
	// request.
	DoesUseTasks = &behaviour{Does: "uses tasks as a requestor (a task-augmented request or a tasks/* request)", In: func(c *Case) bool {
		for _, m := range c.Requests("") {
			if strings.HasPrefix(m.Msg.Method, "tasks/") || TaskAugmented(m.Msg.Params) {
				return true
			}
		}
		return false
	}}
	// declaresSampling: the client declares the sampling capability.
	declaresSampling = &behaviour{Does: "declares sampling", In: func(c *Case) bool {
		caps, ok := c.Declared()
		return ok && caps.Sampling != nil
	}}
	// declaresURLElicitation: the client declares URL-mode elicitation.
	declaresURLElicitation = &behaviour{Does: "declares URL-mode elicitation", In: func(c *Case) bool {
		caps, ok := c.Declared()
		return ok && caps.Elicitation.SupportsURL()
	}}
	// SpeaksSSE: the client opens a 2024-11-05 HTTP+SSE stream and gets
	// its endpoint event.
	SpeaksSSE = &behaviour{Does: "speaks the 2024-11-05 HTTP+SSE transport (opens the SSE stream and takes its endpoint event)", In: func(c *Case) bool {
		for _, e := range c.Events {
			if e.From == stage.FromStage && e.Kind == wire.KindEndpoint {
				return true
			}
		}
		return false
	}}
)

// clientCancels reports whether the client cancelled anything in c.
func clientCancels(c *Case) bool {
	return len(c.Notifications(spec.MethodCancelled)) > 0 || len(c.Requests(spec.MethodTasksCancel)) > 0
}

// launches is what a check learns of the whole run: every launch of the
// client, once all have ended.
type launches interface {
	// shows reports whether any launch shows b; n is how many launches
	// there were, and ok is false when the run ended before all of them
	// did (nothing can be told then).
	shows(b *behaviour) (shown bool, n int, ok bool)
}

// caseList is the launches of a judgement outside a run: its own cases.
type caseList []*Case

func (cs caseList) shows(b *behaviour) (bool, int, bool) {
	for _, c := range cs {
		if b.In(c) {
			return true, len(cs), true
		}
	}
	return false, len(cs), true
}

// neverShown says why the check does not apply to this client: a
// behaviour its requirements are conditional on that no launch of the run
// showed ("" when there is none, or when it cannot be told).
func (t *T) neverShown() string {
	bs := conditional[t.ID()]
	if len(bs) == 0 {
		return ""
	}
	var run launches = caseList(t.cases)
	if t.launches != nil {
		run = t.launches
	}
	for _, b := range bs {
		shown, n, ok := run.shows(b)
		if !ok {
			return ""
		}
		if !shown {
			return fmt.Sprintf("this check's requirements bind only a client that %s, and in none of its %d launches of this run did the client do so", b.Does, n)
		}
	}
	return ""
}

// Untestable ends the check as untestable (harness.Check.Untestable),
// unless its requirements bind only a client that does something optional
// and this client did it in no launch of the run: then the check is n/a,
// saying what the client never did (see OnlyIf).
func (t *T) Untestable(reason string) {
	if why := t.neverShown(); why != "" {
		t.Check.NotApplicable(why)
		return
	}
	t.Check.Untestable(reason)
}
