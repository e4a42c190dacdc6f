package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/record"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Check is one check in progress. Record what was expected and seen with
// the outcome methods, then End it (or use Scope.Do, which ends it for
// you).
//
// Outcome rules: Error wins over everything; then violations (Fail or
// Violation): the check fails when any violated requirement is a MUST or
// MUST NOT and warns when all are SHOULD or SHOULD NOT; then NotApplicable
// and Untestable (the first one given); then Pass. A check that gets none
// of these ends as an error: every check must say what happened.
//
// Concurrency: the methods are safe for concurrent use, but a check is
// normally driven by one goroutine.
type Check struct {
	run   *Run
	id    string
	title string
	scope Scope
	mark  record.Mark
	start time.Time

	mu         sync.Mutex
	recs       []catalog.Record // the cited records in force in the version
	cited      []string
	final      reports.Outcome // NA, Untestable or Error once set
	reason     string
	violations []violation
	passed     bool
	expected   []string
	actual     []string
	ended      *reports.Check
	transcript []reports.WireEvent // set by UseTranscript
	ownTrans   bool
	rec        *record.Recorder // set by UseRecorder
	gone       string           // why a wait of the check was not made (TargetGone)
	timeouts   int              // waits of the check that went unanswered (NoteTimeout)
	retried    string           // the first attempt's verdict, on a re-run (Retried)
}

type violation struct {
	level            catalog.Level
	req              string
	expected, actual string
	at               time.Time // when it was recorded: the transcript after it is not evidence
}

// Check begins a check in this scope. It resolves the requirement IDs:
// an unknown ID, or none at all, makes the check an error and is recorded
// as a Run problem; when none of the cited requirements is in force in the
// scope's version, the check is already n/a.
func (s Scope) Check(id, title string, requirements ...string) *Check {
	s.run.begin()
	c := &Check{run: s.run, id: id, title: title, scope: s, mark: s.run.Recorder().Mark(), start: time.Now(), cited: requirements}
	if len(requirements) == 0 {
		c.programmingError(fmt.Errorf("harness: check %q cites no requirement; every check must cite at least one catalog ID", id))
		return c
	}
	var outside []string
	for _, rid := range requirements {
		rec, ok := s.run.opts.Catalog.Get(rid)
		if !ok {
			c.programmingError(fmt.Errorf("harness: check %q cites requirement %q, which is not in the catalog (see mcpcheck spec list); fix the scenario", id, rid))
			continue
		}
		if s.Version != "" && !rec.In(s.Version) {
			outside = append(outside, fmt.Sprintf("%s applies to %s", rid, rec.VersionRange()))
			continue
		}
		c.recs = append(c.recs, rec)
	}
	if c.final == 0 && len(c.recs) == 0 && len(outside) > 0 {
		c.final = reports.NA
		c.reason = fmt.Sprintf("outside the version window: %s; this run speaks %s", strings.Join(outside, ", "), s.Version)
	}
	return c
}

func (c *Check) programmingError(err error) {
	c.run.Problem(err)
	c.final, c.reason = reports.Error, err.Error()
}

// Do runs body as the check and ends it: a panic in body becomes an Error
// outcome (with the stack) instead of crashing the run.
func (s Scope) Do(id, title string, requirements []string, body func(c *Check)) reports.Check {
	c := s.Check(id, title, requirements...)
	func() {
		defer func() {
			if p := recover(); p != nil {
				c.Error(fmt.Errorf("harness: the check panicked: %v\n%s", p, debug.Stack()))
			}
		}()
		if c.Open() {
			body(c)
		}
	}()
	return c.End()
}

// ID is the check's ID.
func (c *Check) ID() string { return c.id }

// Requirements are the requirement IDs the check cites.
func (c *Check) Requirements() []string { return append([]string(nil), c.cited...) }

// Version is the protocol version the check is for.
func (c *Check) Version() spec.Version { return c.scope.Version }

// Open reports whether the check may still pass or fail: it is not n/a,
// untestable or an error already. Checks skip their work when it is false.
func (c *Check) Open() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.final == 0 && c.ended == nil
}

func (c *Check) setFinal(o reports.Outcome, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != nil {
		c.run.Problem(fmt.Errorf("harness: check %q got outcome %s after it ended", c.id, o))
		return
	}
	switch {
	case o == reports.Error && c.final != reports.Error:
		c.final, c.reason = o, reason
	case c.final == 0:
		c.final, c.reason = o, reason
	}
}

// Expect records what the target is held to, for the report (outcome
// methods with an expected text add theirs too).
func (c *Check) Expect(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expected = append(c.expected, fmt.Sprintf(format, args...))
}

// Saw records what the target did, for the report.
func (c *Check) Saw(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.actual = append(c.actual, fmt.Sprintf(format, args...))
}

// UseTranscript makes events the check's transcript instead of what the
// run's recorder saw while the check was open: for checks that judge a
// recording made before they began (the client suite judges each
// scenario's recording after the client ran).
func (c *Check) UseTranscript(events []reports.WireEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.transcript, c.ownTrans = events, true
}

// UseRecorder makes rec the check's own recorder: its transcript is what
// rec holds when the check ends, not what the run's recorder saw while the
// check was open, and Note writes to rec. Checks that run at the same time
// as others of the run use it, each attaching its own recorder to the
// connections it uses, so that no check's transcript holds another's
// traffic. Call it before the check sends anything.
func (c *Check) UseRecorder(rec *record.Recorder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rec = rec
}

// recorder is the recorder the check's notes go to.
func (c *Check) recorder() *record.Recorder {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rec != nil {
		return c.rec
	}
	return c.run.Recorder()
}

// Note adds an observation to the check's transcript (the run's recorder,
// or the check's own: UseRecorder), for example the tail of a process's
// stderr.
func (c *Check) Note(format string, args ...any) { c.recorder().Note(format, args...) }

// Pass says the target did what the check asks.
func (c *Check) Pass() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.passed = true
}

// Fail records a violation of every requirement the check cites (in
// force in its version): the check fails if one is a MUST, else warns.
func (c *Check) Fail(expected, actual string) {
	c.Violation("", expected, actual)
}

// NoteTimeout notes that a wait of the check went unanswered until its
// deadline (expect.OnTimeout): a verdict that rests on it may be the
// run's impatience or load rather than the target, and is confirmed by a
// re-run before it is reported (see TimedOut).
func (c *Check) NoteTimeout() {
	c.mu.Lock()
	c.timeouts++
	c.mu.Unlock()
}

// TimedOut reports whether a wait of the check went unanswered.
func (c *Check) TimedOut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timeouts > 0
}

// Retried notes, on a check that is a re-run, what the first attempt
// ended with: the report shows it beside the verdict, which is the
// re-run's.
func (c *Check) Retried(first string) {
	c.mu.Lock()
	c.retried = first
	c.mu.Unlock()
}

// TargetGone notes that a wait of the check was not made because the
// target is mute or dead (why says so; expect.OnSkip calls it). From then
// on the check judges nothing: later violations rest on a wait never made
// and are dropped, and unless one came before (or the check had already
// ended n/a or untestable) it ends as a harness error saying why, never
// as a pass.
func (c *Check) TargetGone(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone == "" {
		c.gone = why
	}
}

// Violation records a violation of one cited requirement (req "" means all
// of them). Its level decides between fail and warn. Citing a requirement
// the check did not cite is a programming error. After TargetGone it
// records nothing.
func (c *Check) Violation(req, expected, actual string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone != "" {
		return
	}
	level, ok := c.levelOf(req)
	if !ok {
		err := fmt.Errorf("harness: check %q records a violation of %q, which it does not cite (or which is not in force in %s)", c.id, req, c.scope.Version)
		c.run.Problem(err)
		c.final, c.reason = reports.Error, err.Error()
		return
	}
	c.violations = append(c.violations, violation{level: level, req: req, expected: expected, actual: actual, at: time.Now()})
}

// ViolationActuals returns what the target did in each violation the
// check recorded so far (their actual texts): checks that judge frames
// they did not provoke (passive checks) use it to find, before the check
// ends, the frames their verdict quotes and add them to its transcript as
// evidence.
func (c *Check) ViolationActuals() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.violations))
	for _, v := range c.violations {
		out = append(out, v.actual)
	}
	return out
}

// Interop records that the target failed an interoperability probe of
// the cited requirements: behaviour their words cover but that not every
// JSON implementation can give (an integer id beyond 2^53, which a peer
// reading JSON numbers as IEEE doubles cannot echo exactly: RFC 8259
// section 6 promises no more). No catalog statement makes it a SHOULD, so
// the check names no requirement as broken and warns, never fails; its
// expected text says why. After TargetGone it records nothing.
func (c *Check) Interop(expected, actual string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone != "" {
		return
	}
	c.violations = append(c.violations, violation{level: catalog.Should, expected: "interoperability (a warning, not a failure): " + expected, actual: actual, at: time.Now()})
}

// levelOf is the strongest level among the cited records in force (all,
// or the one named).
func (c *Check) levelOf(req string) (catalog.Level, bool) {
	best := catalog.Level("")
	rank := func(l catalog.Level) int {
		for i, x := range catalog.Levels {
			if x == l {
				return i
			}
		}
		return len(catalog.Levels)
	}
	for _, r := range c.recs {
		if req != "" && r.ID != req {
			continue
		}
		if best == "" || rank(r.Level) < rank(best) {
			best = r.Level
		}
	}
	return best, best != ""
}

// NotApplicable ends the check as n/a: the capability was not declared,
// the version is outside the window, the transport does not have the
// feature. It is never counted against the target.
func (c *Check) NotApplicable(reason string) { c.setFinal(reports.NA, reason) }

// Untestable ends the check as untestable: it applies, but a needed
// fixture or trigger is absent.
func (c *Check) Untestable(reason string) { c.setFinal(reports.Untestable, reason) }

// Interrupted ends a check the run was stopped in the middle of (a
// signal, the run's deadline): unless it does not apply (n/a stands), it
// is untestable with why: never a pass (what it saw before the stop may
// be only half of what it judges), never a harness error, and never a
// failure or a warning either: a wait the stop cut short looks like a
// target that did not answer, and a violation seen before the stop is
// only reported in the reason, since the stop is mcpcheck's, not the
// target's.
func (c *Check) Interrupted(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != nil || c.final == reports.NA {
		return
	}
	if len(c.violations) > 0 {
		v := c.violations[0]
		why += fmt.Sprintf("; before the stop it had seen what looked like %s broken (%s), not judged", orUnnamed(v.req), clipLine(v.actual, 200))
	}
	c.violations, c.passed = nil, false
	c.final, c.reason = reports.Untestable, why
}

func orUnnamed(req string) string {
	if req == "" {
		return "a requirement"
	}
	return req
}

// clipLine is s on one line, at most n bytes.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// Error ends the check as a harness error: the target was not judged.
func (c *Check) Error(err error) {
	if err == nil {
		err = errors.New("harness: Check.Error called with a nil error")
	}
	c.setFinal(reports.Error, err.Error())
}

// Judge turns an expect result into an outcome: a match passes; a
// mismatch, timeout, end of stream or flood is a violation of the cited
// requirements (Expected and Actual come from the result); an abort is a
// harness error. It returns whether the result matched.
func (c *Check) Judge(obs expect.Observed) bool {
	switch {
	case obs.OK():
		c.Expect("%s", obs.Expected)
		c.Saw("%s", obs.Actual)
		c.Pass()
		return true
	case obs.Status == expect.Aborted:
		c.Error(fmt.Errorf("waiting for %s: %s", obs.Expected, obs.Actual))
	case obs.Unauthorized() != nil:
		c.Error(obs.Unauthorized())
	case obs.NeverUp:
		c.Error(fmt.Errorf("the target ended before it said anything, and it has answered nothing in this run: it could not be judged (waiting for %s: %s)", obs.Expected, obs.Actual))
	default:
		c.Fail(obs.Expected, obs.Actual)
	}
	return false
}

// JudgeAs is Judge for a check citing several requirements when the
// observation can only break one of them: a mismatch is a violation of
// req alone (see Violation).
func (c *Check) JudgeAs(obs expect.Observed, req string) bool {
	if obs.OK() || obs.Status == expect.Aborted || obs.NeverUp || obs.Unauthorized() != nil {
		return c.Judge(obs)
	}
	c.Violation(req, obs.Expected, obs.Actual)
	return false
}

// JudgeReply is Judge for a session Reply: a reply that could not be sent
// is a harness error.
func (c *Check) JudgeReply(r session.Reply) bool {
	if r.Err != nil && r.Observed.Status == 0 {
		c.Error(r.Err)
		return false
	}
	return c.Judge(r.Observed)
}

// Findings records each session finding as a violation of req (see
// Violation), with the finding as the Actual text. It returns how many
// there were.
func (c *Check) Findings(req, expected string, fs []session.Finding) int {
	for _, f := range fs {
		c.Violation(req, expected, f.String())
	}
	return len(fs)
}

// Require ends the check as n/a with reason unless ok, and reports ok.
func (c *Check) Require(ok bool, reason string) bool {
	if !ok {
		c.NotApplicable(reason)
	}
	return ok && c.Open()
}

// RequireFixture ends the check as untestable with reason unless ok.
func (c *Check) RequireFixture(ok bool, reason string) bool {
	if !ok {
		c.Untestable(reason)
	}
	return ok && c.Open()
}

// RequireCapability ends the check as n/a unless the declared capabilities
// (mcp.ServerCapabilities or any value that encodes to JSON) have the
// dotted path, such as "tools", "resources.subscribe",
// "prompts.listChanged" or "tasks.requests.tools.call". A path that ends
// in a boolean must be true.
func (c *Check) RequireCapability(caps any, path string) bool {
	return c.Require(HasCapability(caps, path), fmt.Sprintf("the server did not declare the %s capability", path))
}

// HasCapability reports whether caps has the dotted path (see
// RequireCapability).
func HasCapability(caps any, path string) bool {
	b, err := json.Marshal(caps)
	if err != nil {
		return false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	return rules.Capabilities(m).Has(path)
}

// End decides the outcome, attaches the transcript and adds the check to
// the run. Calling it again returns the same result.
func (c *Check) End() reports.Check {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != nil {
		return *c.ended
	}
	rc := reports.Check{
		ID: c.id, Title: c.title, Requirements: append([]string(nil), c.cited...),
		Version: c.scope.Version, Transport: string(c.scope.Transport), Duration: time.Since(c.start),
	}
	if lvl, ok := c.levelOf(""); ok {
		rc.Level = lvl
	}
	if len(c.recs) > 0 {
		rc.Area = c.recs[0].Area
	} else if rec, ok := c.run.opts.Catalog.Get(firstOr(c.cited)); ok {
		rc.Area, rc.Level = rec.Area, rec.Level
	}
	expected, actual := c.expected, c.actual
	switch {
	case c.final == reports.Error:
		rc.Outcome, rc.Reason = reports.Error, c.reason
	case len(c.violations) > 0:
		rc.Outcome = reports.Warn
		expected, actual = nil, nil
		all := false
		for _, v := range c.violations {
			if v.req == "" {
				all = true
			} else if !slices.Contains(rc.Violated, v.req) {
				rc.Violated = append(rc.Violated, v.req)
			}
		}
		if all {
			rc.Violated = nil
		}
		rc.JudgedAt = c.violations[0].at.Sub(c.run.started)
		for _, v := range c.violations {
			if v.level.Mandatory() {
				rc.Outcome = reports.Fail
			}
			if !v.level.Mandatory() && !v.level.Advisory() {
				err := fmt.Errorf("harness: check %q records a violation of a %s requirement, which cannot be broken; cite the MUST or SHOULD it enforces", c.id, v.level)
				c.run.Problem(err)
				rc.Outcome, rc.Reason = reports.Error, err.Error()
				break
			}
			e, a := v.expected, v.actual
			if v.req != "" {
				e = v.req + ": " + e
			}
			expected, actual = appendNew(expected, e), append(actual, a)
		}
	case c.final != 0:
		rc.Outcome, rc.Reason = c.final, c.reason
	case c.gone != "":
		rc.Outcome, rc.Reason = reports.Error, "not judged: "+c.gone
	case c.passed:
		rc.Outcome = reports.Pass
	default:
		err := fmt.Errorf("harness: check %q ended without an outcome; call Pass, Fail, NotApplicable, Untestable or Error", c.id)
		c.run.Problem(err)
		rc.Outcome, rc.Reason = reports.Error, err.Error()
	}
	rc.Expected, rc.Actual = strings.Join(expected, "\n"), strings.Join(actual, "\n")
	if rc.Outcome != reports.Pass || c.run.opts.Verbose {
		switch {
		case c.ownTrans:
			rc.Transcript = c.run.keepTranscript(c.transcript)
		case c.rec != nil:
			rc.Transcript = c.run.keepTranscript(c.rec.Since(0))
		default:
			rc.Transcript = c.run.keepTranscript(c.run.Recorder().Since(c.mark))
		}
	}
	c.ended = &rc
	rc.Retried = c.retried
	c.run.add(rc, c.recs, c.scope.again)
	return rc
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func appendNew(ss []string, s string) []string {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}
