// Package expect is mcpcheck's event loop: wait for the frame a check is
// about while collecting every other frame, accept any of several outcomes
// the specification permits, and say in words what was expected and what
// was seen.
//
// Like h2spec's verifier, Wait treats everything that can happen as an
// event: a frame that settles an alternative, a frame that is about the
// check but wrong (a rejection with the wrong code is not a pass), the end
// of the stream, and a timeout. An alternative may accept a timeout
// (Silence) or an end of stream, so "the target must not answer" is as
// easy to write as "the target must answer".
package expect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// Source is where frames come from: a wire.Conn or a session.
type Source interface {
	Recv(ctx context.Context) (wire.Frame, error)
}

// Verdict is what an alternative says about one frame.
type Verdict int

// The verdicts.
const (
	// Unrelated: the frame is not about this alternative.
	Unrelated Verdict = iota
	// Accepted: the frame satisfies the alternative.
	Accepted
	// Rejected: the frame is the one the alternative is about, but it is
	// wrong; the reason says how.
	Rejected
)

// Alt is one outcome the specification permits.
type Alt struct {
	// Desc says what the alternative accepts, for reports: "an error
	// response to id 3 with code -32601 (MethodNotFound)".
	Desc string
	// On judges a frame. It may be nil for alternatives about silence only.
	On func(f wire.Frame) (Verdict, string)
	// OnTimeout makes silence until the timeout this alternative.
	OnTimeout bool
	// Answers is the id of the request whose answer the alternative
	// accepts (zero when it is about no one request), so that the wait
	// can tell what it is waiting on (session: Options.Working).
	Answers jsonrpc.ID
}

// Status is how a wait ended.
type Status int

// The statuses.
const (
	// Matched: a frame (or the timeout) satisfied an alternative.
	Matched Status = iota + 1
	// Mismatched: a frame the check is about arrived, and it satisfied no
	// alternative.
	Mismatched
	// TimedOut: nothing settled the wait in time, and no alternative
	// accepts silence.
	TimedOut
	// Ended: the stream the check waits on ended (or the request failed)
	// first.
	Ended
	// Flooded: more frames than Options.MaxFrames arrived without one that
	// settles the wait.
	Flooded
	// Aborted: the harness gave up (its context was cancelled or the
	// connection closed under it): the target is not to blame.
	Aborted
)

var statusNames = [...]string{"", "matched", "mismatched", "timed out", "ended", "flooded", "aborted"}

// String names the status: "matched", "timed out", ...
func (s Status) String() string {
	if s > 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Options bound a wait. Zero fields take the defaults.
type Options struct {
	// Timeout bounds the wait (default 10 s).
	Timeout time.Duration
	// MaxFrames bounds how many other frames may arrive (default 10000).
	MaxFrames int
	// Stream, when set, is the HTTP exchange the answer must come on: its
	// end or failure settles the wait, and so does a non-SSE answer on it
	// that matches nothing (it is the exchange's only answer). On stdio the
	// end of stdout always settles the wait. On the HTTP+SSE transport an
	// empty 2xx answer to the POST (wire.Frame.Ack) settles nothing: the
	// answer comes on the SSE stream, whose end settles the wait.
	Stream string
	// KeepOthers bounds how many other frames the result keeps (default
	// 256; the rest are counted).
	KeepOthers int
	// Stray, when set, is asked about every frame no alternative is about;
	// a non-empty answer says the frame proves the awaited answer will not
	// come as it should (a response carrying an id no request had: the
	// target does not echo ids), and the wait ends at once as Mismatched
	// with that reason instead of running into its deadline.
	Stray func(wire.Frame) string
	// Working marks a wait for an answer that waits on work the target
	// does (a tool runs, tasks/result holds until the task ends): the
	// run's Health does not shorten it, since how long the work takes
	// says nothing of whether the target still answers.
	Working bool
}

// Observed is how a wait ended, with the evidence.
type Observed struct {
	Status Status
	// Alt is the index of the alternative that matched, -1 otherwise.
	Alt int
	// Frame is the frame that settled the wait (zero on a timeout).
	Frame wire.Frame
	// Others are the frames that arrived meanwhile, in order, at most
	// Options.KeepOthers of them; Dropped counts the rest.
	Others  []wire.Frame
	Dropped int
	// Expected and Actual say what was accepted and what happened, in
	// words for a report.
	Expected string
	Actual   string
	// Err is set when Status is Aborted.
	Err     error
	Elapsed time.Duration
	// NeverUp is set when the stream ended (Ended) before the target had
	// said anything on the connection while it had answered nothing in
	// the whole run either: it never got going (it exits at once, it
	// cannot start), which judges nothing of what the wait was about.
	NeverUp bool
}

// OK reports whether an alternative matched.
func (r Observed) OK() bool { return r.Status == Matched }

// Unauthorized returns, when the wait ended on an HTTP 401 (the target
// asks for authorization: see wire.Frame.Challenge), an error wrapping
// wire.ErrUnauthorized that says what was waited for, the challenge and
// what to do; nil otherwise. A 401 refuses a request for want of a token
// and says nothing of what the wait was about.
func (r Observed) Unauthorized() error {
	if r.Status != Ended {
		return nil
	}
	ch, ok := r.Frame.Challenge()
	if !ok {
		return nil
	}
	return wire.UnauthorizedError("waiting for "+r.Expected, ch)
}

// TargetFault reports whether the result is the target's doing (it did not
// match, and the harness did not abort).
func (r Observed) TargetFault() bool { return r.Status != Matched && r.Status != Aborted }

// Describe lists alternatives as "A; or B; or C".
func Describe(alts []Alt) string {
	var ds []string
	for _, a := range alts {
		ds = append(ds, a.Desc)
	}
	return strings.Join(ds, "; or ")
}

// errMute is the Err of a wait skipped because the target is mute.
var errMute = errors.New("the target answers nothing: not waited for")

// Wait receives frames from src until one settles an alternative, one is
// about the check but wrong, the stream ends, the timeout passes or too
// many frames arrive. Frames that are about none of the alternatives are
// collected in Observed.Others. Wait never blocks longer than the timeout
// (or ctx).
func Wait(ctx context.Context, src Source, o Options, alts ...Alt) Observed {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxFrames <= 0 {
		o.MaxFrames = 10000
	}
	if o.KeepOthers <= 0 {
		o.KeepOthers = 256
	}
	start := time.Now()
	res := Observed{Alt: -1, Expected: Describe(alts)}
	health := HealthOf(ctx)
	handshake, startup := isHandshake(ctx), isStartup(ctx)
	if mute, why := health.skip(handshake); mute {
		skipped(ctx, why)
		res.Status, res.Err, res.Actual = Aborted, errMute, why
		return res
	}
	full, timeout, shortened := o.Timeout, o.Timeout, ""
	switch {
	case startup:
		// A start-up wait keeps its whole allowance (a process still
		// starting has not been silent yet), and a target whose starts
		// have come close to it gets more: three times its slowest
		// start so far.
		full = health.startupAllowance(o.Timeout)
		timeout = full
	case !o.Working:
		timeout, shortened = health.deadline(o.Timeout)
	}
	// fullCtx bounds the wait by what it asked for; wctx is the deadline
	// it keeps, the Health's shorter one while the target stays silent.
	// Anything the target sends during the wait shows it is not silent
	// (it reports progress, it answers other requests), so the first
	// frame restores the deadline asked for: the Health cuts waits short
	// on a silent target, never on a busy one.
	fullCtx, cancelFull := context.WithTimeout(ctx, full)
	defer cancelFull()
	wctx, cancel := fullCtx, context.CancelFunc(func() {})
	if timeout < full {
		wctx, cancel = context.WithTimeout(fullCtx, timeout)
	}
	defer func() { cancel() }()
	finish := func(s Status, actual string) Observed {
		res.Status, res.Actual, res.Elapsed = s, actual, time.Since(start)
		if s == Ended && startup && !health.Answered() {
			res.NeverUp = true
		}
		if s == TimedOut {
			timedOut(ctx)
			if startup {
				res.Actual += " (the target had sent nothing on this connection yet: the wait was its start-up allowance)"
			}
		}
		health.record(res, (s == Matched || s == Mismatched) && res.Frame.Kind != 0, handshake, startup)
		return res
	}
	seen := 0
	for {
		f, err := src.Recv(wctx)
		if err != nil {
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				for i, a := range alts {
					if a.OnTimeout {
						res.Alt = i
						return finish(Matched, fmt.Sprintf("nothing within %v%s%s", timeout, res.meanwhile(), shortened))
					}
				}
				return finish(TimedOut, fmt.Sprintf("no answer within %v%s%s", timeout, res.meanwhile(), shortened))
			default:
				res.Err = err
				return finish(Aborted, fmt.Sprintf("the harness stopped waiting: %v", err))
			}
		}
		if wctx != fullCtx {
			cancel()
			wctx, timeout, shortened = fullCtx, full, ""
		}
		var reasons []string
		rejected := false
		for i, a := range alts {
			if a.On == nil {
				continue
			}
			v, why := a.On(f)
			switch v {
			case Accepted:
				res.Alt, res.Frame = i, f
				return finish(Matched, "got "+f.Describe())
			case Rejected:
				rejected = true
				if why != "" {
					reasons = append(reasons, why)
				}
			}
		}
		if rejected {
			res.Frame = f
			actual := "got " + f.Describe()
			if len(reasons) > 0 {
				actual += ": " + strings.Join(dedupe(reasons), "; ")
			}
			return finish(Mismatched, actual)
		}
		if o.Stray != nil {
			if why := o.Stray(f); why != "" {
				res.Frame = f
				return finish(Mismatched, "got "+f.Describe()+": "+why)
			}
		}
		if settlesByEnd(f, o.Stream) {
			res.Frame = f
			return finish(Ended, "before that, "+f.Describe()+res.meanwhile())
		}
		if o.Stream != "" && f.Stream == o.Stream && f.HTTP != nil && !f.InSSE && !f.Ack {
			// A JSON body or a bare status is the whole answer of its
			// exchange: nothing more will come on this stream.
			res.Frame = f
			return finish(Ended, "the exchange's only answer was "+f.Describe()+res.meanwhile())
		}
		seen++
		if len(res.Others) < o.KeepOthers {
			res.Others = append(res.Others, f)
		} else {
			res.Dropped++
		}
		if seen >= o.MaxFrames {
			return finish(Flooded, fmt.Sprintf("%d frames arrived without one that settles the check (the target floods)", seen))
		}
	}
}

func settlesByEnd(f wire.Frame, stream string) bool {
	if f.Kind != wire.KindEnd && f.Kind != wire.KindTransportError {
		return false
	}
	if f.Stream == wire.StreamStdio || (stream != "" && f.Stream == stream) {
		return true
	}
	// The GET stream of the HTTP+SSE transport carries every answer: once it
	// is gone, nothing waited for on one of its POSTs can arrive.
	return stream != "" && f.Stream == wire.StreamSSE
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// meanwhile summarises the other frames for an Actual text.
func (r Observed) meanwhile() string {
	n := len(r.Others) + r.Dropped
	if n == 0 {
		return ""
	}
	const show = 3
	var ds []string
	for i, f := range r.Others {
		if i == show {
			break
		}
		ds = append(ds, f.Describe())
	}
	more := ""
	if n > show {
		more = fmt.Sprintf("; and %d more", n-show)
	}
	return fmt.Sprintf(" (meanwhile %d other frame(s): %s%s)", n, strings.Join(ds, "; "), more)
}
