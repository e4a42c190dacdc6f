package oracle

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
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

// clientCrashRe finds the line of a crash in a client's stderr: a Go
// panic or fatal error, a Python traceback's exception, a Rust panic, a
// Node.js uncaught exception (Node ends its report with its version), a
// segmentation fault.
var (
	goCrashRe     = regexp.MustCompile(`(?m)^(panic: .*|fatal error: .*)$`)
	rustCrashRe   = regexp.MustCompile(`(?m)^thread '.*' panicked at.*$`)
	segvRe        = regexp.MustCompile(`(?m)^.*(Segmentation fault|core dumped).*$`)
	tracebackRe   = regexp.MustCompile(`(?m)^Traceback \(most recent call last\):`)
	nodeTrailerRe = regexp.MustCompile(`(?m)^Node\.js v[0-9]`)
	exceptionRe   = regexp.MustCompile(`(?m)^(Uncaught )?[A-Za-z_.]*(Error|Exception)\b.*$`)
)

// crashSignals are the signals (as 128+N exit statuses of a shell) that
// mean a crash rather than a deliberate exit: SIGILL, SIGABRT, SIGBUS,
// SIGFPE, SIGSEGV.
var crashSignals = map[int]string{4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 11: "SIGSEGV"}

// ClientCrash decides whether a client that exited by itself crashed: it
// was killed by a signal, its shell reports a crash signal, or it exited
// with a failure status and its stderr holds a crash report. A client that
// refuses a hostile server with an error message and a failure status did
// not crash.
func ClientCrash(st *os.ProcessState, stderr []byte) (Observation, bool) {
	if st == nil {
		return Observation{}, false
	}
	code := st.ExitCode()
	raw := crashReportLine(stderr)
	line := blankCrashLine(raw)
	var what string
	switch {
	case code == -1:
		what = "was killed by " + strings.TrimPrefix(st.String(), "signal: ")
	case crashSignals[code-128] != "":
		what = "exited with status " + strconv.Itoa(code) + " (" + crashSignals[code-128] + ")"
	case code != 0 && line != "":
		what = "exited with status " + strconv.Itoa(code)
	default:
		return Observation{}, false
	}
	check := "crash/" + strings.ReplaceAll(what, " ", "-")
	msg := "the client " + what
	if line != "" {
		fn := CrashFunction(stderr, raw)
		check = WithFunction("crash/"+line, fn)
		msg += "; stderr: " + line
		if fn != "" {
			msg += ", in " + fn
		}
	}
	return Observation{Kind: reports.FindingCrash, Check: check, Message: msg + " (under a hostile server)"}, true
}

// CrashLine is the crash report's line in stderr, numbers blanked so that
// one bug gives one signature; "" when stderr holds no crash report.
func CrashLine(stderr []byte) string { return blankCrashLine(crashReportLine(stderr)) }

// crashReportLine is the crash report's line in stderr as written; nil
// when stderr holds no crash report.
func crashReportLine(stderr []byte) []byte {
	var m []byte
	switch {
	case goCrashRe.Match(stderr):
		m = goCrashRe.Find(stderr)
	case rustCrashRe.Match(stderr):
		m = rustCrashRe.Find(stderr)
	case tracebackRe.Match(stderr):
		all := exceptionRe.FindAll(stderr[tracebackRe.FindIndex(stderr)[0]:], -1)
		if len(all) > 0 {
			m = all[len(all)-1]
		} else {
			m = []byte("Traceback")
		}
	case nodeTrailerRe.Match(stderr):
		if m = exceptionRe.Find(stderr); m == nil {
			m = []byte("uncaught exception")
		}
	case segvRe.Match(stderr):
		m = segvRe.Find(stderr)
	}
	return m
}

// blankCrashLine trims a crash report's line and blanks its numbers.
func blankCrashLine(m []byte) string {
	if m == nil {
		return ""
	}
	s := NumberRe.ReplaceAllString(strings.TrimSpace(string(m)), "N")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
