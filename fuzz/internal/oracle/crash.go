package oracle

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
)

// A crash's check names the crash report's line (panicLine, crashLine)
// and, when the report has a stack, the function that failed: two nil
// dereferences in two functions are two bugs, one signature each.
var (
	goroutineRe = regexp.MustCompile(`(?m)^goroutine [0-9]+ \[[^\]]*\]:`)
	jsFrameRe   = regexp.MustCompile(`(?m)^\s+at (?:async )?((?:new )?[^\s(]+)(?: \[as [^\]]+\])? \(`)
	pyFrameRe   = regexp.MustCompile(`(?m)^\s+File ".*", line [0-9]+, in (\S+)\s*$`)
)

// crashFunctionOpen and crashFunctionClose enclose the failing function in
// a crash's check: "crash/panic: … [in pkg.(*T).m]".
const (
	crashFunctionOpen  = " [in "
	crashFunctionClose = "]"
)

// CrashFunction names the function a crash report in stderr says failed,
// given the report's line as found in stderr (before numbers were
// blanked): in a Go trace the first function of the goroutine after the
// panic that is not the runtime's, in a JavaScript stack the first named
// frame after the error line, in a Python traceback the innermost frame.
// "" when stderr holds no stack (or was cut before it).
func CrashFunction(stderr []byte, line []byte) string {
	at := bytes.Index(stderr, line)
	if at < 0 || len(line) == 0 {
		return ""
	}
	after := stderr[at+len(line):]
	var fn string
	switch {
	case bytes.HasPrefix(line, []byte("panic: ")) || bytes.HasPrefix(line, []byte("fatal error: ")):
		fn = goFunction(after)
	case bytes.HasPrefix(stderr, []byte("Traceback")) || bytes.Contains(stderr[:at], []byte("\nTraceback")):
		if all := pyFrameRe.FindAllSubmatch(stderr[:at], -1); len(all) > 0 {
			fn = string(all[len(all)-1][1])
		}
	default:
		if m := jsFrameRe.FindSubmatchIndex(after); m != nil && bytes.Count(after[:m[0]], []byte{'\n'}) <= 2 {
			fn = string(after[m[2]:m[3]])
		}
	}
	if len(fn) > 100 {
		fn = fn[:100]
	}
	return fn
}

// goFunction is the function that panicked in a Go trace: in the first
// goroutine's frames, the first after the last panic( frame (frames above
// it are deferred calls run while panicking, such as a recover that
// prints the stack) that is not the runtime's, its arguments cut.
func goFunction(trace []byte) string {
	loc := goroutineRe.FindIndex(trace)
	if loc == nil {
		return ""
	}
	var frames []string
	for _, l := range strings.Split(strings.TrimLeft(string(trace[loc[1]:]), "\r\n"), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.HasPrefix(l, "\t") {
			continue // a frame's file and line
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "goroutine ") || strings.HasPrefix(l, "created by ") {
			break
		}
		frames = append(frames, l)
	}
	for i := len(frames) - 1; i >= 0; i-- {
		if strings.HasPrefix(frames[i], "panic(") {
			frames = frames[i+1:]
			break
		}
	}
	for _, f := range frames {
		if strings.HasPrefix(f, "runtime.") || strings.HasPrefix(f, "runtime/") || strings.HasPrefix(f, "panic(") {
			continue
		}
		if i := strings.LastIndex(f, "("); i > 0 {
			return f[:i]
		}
		return strings.TrimSpace(f)
	}
	return ""
}

// refinedChecks are the checks a later mcpcheck split into refinements
// (CHECK/what): a replay file expecting one is reproduced by any of them.
var refinedChecks = map[string]bool{"sse/valid-stream-refused": true}

// WithFunction adds the failing function to a crash's check ("" adds
// nothing).
func WithFunction(check, fn string) string {
	if fn == "" {
		return check
	}
	return check + crashFunctionOpen + fn + crashFunctionClose
}

// WithoutFunction is a crash's check without its failing function.
func WithoutFunction(check string) string {
	if i := strings.LastIndex(check, crashFunctionOpen); i >= 0 && strings.HasSuffix(check, crashFunctionClose) {
		return check[:i]
	}
	return check
}

// SameBug reports whether o shows the bug of the finding whose first
// observation was want: the same signature; a refinement of want's check
// (a finding written before its check was refined, such as
// sse/valid-stream-refused before sse/valid-stream-refused/bom); or a
// crash with the same report line where one of the two stderr tails names
// no failing function (one taken before the target had written its
// stack).
func SameBug(o, want Observation) bool {
	if o.Signature() == want.Signature() {
		return true
	}
	if o.Kind == want.Kind && o.Requirement == want.Requirement && refinedChecks[want.Check] && strings.HasPrefix(o.Check, want.Check+"/") {
		return true
	}
	if o.Kind != reports.FindingCrash || want.Kind != reports.FindingCrash || o.Requirement != want.Requirement {
		return false
	}
	a, b := WithoutFunction(o.Check), WithoutFunction(want.Check)
	return a == b && (a == o.Check || b == want.Check)
}
