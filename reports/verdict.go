package reports

import (
	"strings"
)

// RunVerdict is the one word every report and the CLI give a whole run.
// They agree on it: the exit code of mcpcheck follows from it (pass and
// incomplete 0, fail 1, not judged 3, interrupted 5), and no report calls
// a run by another word.
type RunVerdict string

// The run verdicts, in the order they take precedence.
const (
	// VerdictInterrupted: a signal or the deadline ended the run; the
	// checks it did not reach were not run.
	VerdictInterrupted RunVerdict = "interrupted"
	// VerdictNotJudged: the run is no verdict on its target: nothing (or
	// not all it set out to) was judged, or the harness had problems.
	VerdictNotJudged RunVerdict = "not judged"
	// VerdictFail: unexpected failures, harness errors, stale baseline
	// entries or failing fuzz findings (with strict, unexpected warnings
	// and legacy baseline entries too).
	VerdictFail RunVerdict = "fail"
	// VerdictIncomplete: nothing fails the run, but some checks were
	// untestable: not everything was shown to pass.
	VerdictIncomplete RunVerdict = "incomplete"
	// VerdictPass: every check judged passed or is expected by the
	// baseline, and nothing was left untestable.
	VerdictPass RunVerdict = "pass"
)

// Label is the verdict as headlines print it: PASS, FAIL, INCOMPLETE,
// NOT JUDGED, INTERRUPTED.
func (v RunVerdict) Label() string { return strings.ToUpper(string(v)) }

// Class is the verdict's CSS-friendly name (not-judged).
func (v RunVerdict) Class() string { return strings.ReplaceAll(string(v), " ", "-") }

// OK reports whether the verdict lets a CI job pass (pass, incomplete).
func (v RunVerdict) OK() bool { return v == VerdictPass || v == VerdictIncomplete }

// Word is the run's verdict (see RunVerdict): interrupted, then not
// judged, then fail (Failed), then incomplete (untestable checks), else
// pass.
func (j Judgement) Word(strict bool) RunVerdict {
	switch {
	case j.Interrupted != "":
		return VerdictInterrupted
	case j.Unjudged != "":
		return VerdictNotJudged
	case j.Failed(strict):
		return VerdictFail
	case j.Untestable > 0:
		return VerdictIncomplete
	}
	return VerdictPass
}

// Sentence says the verdict in one line, the same in every report: the
// word and what it rests on ("FAIL: 2 unexpected failures, 1 harness
// error", "NOT JUDGED: the target never completed initialization ...",
// "PASS: no unexpected failures (3 unexpected warnings)").
func (j Judgement) Sentence(strict bool) string {
	return j.Word(strict).Label() + ": " + j.Reason(strict)
}

// Reason is what the verdict rests on: Sentence without the verdict.
func (j Judgement) Reason(strict bool) string {
	switch j.Word(strict) {
	case VerdictInterrupted:
		return j.Interrupted + "; the checks it did not reach are marked not run"
	case VerdictNotJudged:
		s := j.Unjudged
		if j.Failed(strict) {
			s += " (" + j.failParts(strict) + " among what was judged)"
		}
		return s
	case VerdictFail:
		return j.failParts(strict)
	}
	s := "no unexpected failures"
	var more []string
	if n := len(j.Warnings); n > 0 {
		more = append(more, plural(n, "unexpected warning", "unexpected warnings"))
	}
	if j.Untestable > 0 {
		more = append(more, plural(j.Untestable, "check untestable", "checks untestable")+", not counted as passing")
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, "; ") + ")"
	}
	return s
}

// failParts lists what fails the run: "2 unexpected failures, 1 harness
// error, 1 stale baseline entry".
func (j Judgement) failParts(strict bool) string {
	var parts []string
	if n := len(j.Failures); n > 0 {
		parts = append(parts, plural(n, "unexpected failure", "unexpected failures"))
	}
	if n := len(j.Unexpected); n > 0 {
		parts = append(parts, plural(n, "new broken requirement", "new broken requirements")+" in checks the baseline lists ("+joinKeys(j.Unexpected, 3)+")")
	}
	if n := len(j.Errors); n > 0 {
		parts = append(parts, plural(n, "harness error", "harness errors"))
	}
	if n := len(j.Stale); n > 0 {
		parts = append(parts, plural(n, "stale baseline entry", "stale baseline entries"))
	}
	if n := len(j.Findings); n > 0 {
		parts = append(parts, plural(n, "fuzz finding", "fuzz findings")+" (a crash, a hang or a MUST-level violation)")
	}
	if strict {
		if n := len(j.Warnings); n > 0 {
			parts = append(parts, plural(n, "unexpected warning", "unexpected warnings")+" (strict)")
		}
		if n := len(j.Legacy); n > 0 {
			parts = append(parts, plural(n, "baseline entry", "baseline entries")+" without requirements (strict)")
		}
	} else if n := len(j.Warnings); n > 0 {
		parts = append(parts, plural(n, "unexpected warning", "unexpected warnings"))
	}
	if len(parts) == 0 {
		return "the run failed"
	}
	return strings.Join(parts, ", ")
}

// verdictOf is the verdict of a prepared run under opts.
func verdictOf(run *Run, opts Options) (Judgement, RunVerdict) {
	j := Verdict(run)
	return j, j.Word(opts.Strict)
}
