package scenarios

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestOneDefectOneVerdict: a server that answers the request id 1.5 with
// id 1 (go-sdk over HTTP) fails base/invalid-ids, citing the id-echo
// requirement, and nothing else: the stray id-1 answer is not the
// response to the session's initialize (id 1), so
// http/responses-on-own-streams does not call it initialize's response
// on a second stream, and base/wire-schema does not validate an empty
// ping result as an initialize result.
func TestOneDefectOneVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	const fault = "fraction-ids-truncated"
	v := spec.V20251125
	only := []string{"base/invalid-ids", "base/wire-schema", "http/responses-on-own-streams"}
	t.Run("streamable", func(t *testing.T) {
		t.Parallel()
		res := runURL(t, httpReference(t, fault), target.Streamable, Config{Only: only, Versions: []spec.Version{v}})
		judgeOneVerdict(t, res, v, "http/responses-on-own-streams")
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		res := runReference(t, Config{Only: only[:2], Versions: []spec.Version{v}, Direct: true}, fault)
		judgeOneVerdict(t, res, v)
	})
}

// judgeOneVerdict holds a run of TestOneDefectOneVerdict to its one
// failure: base/invalid-ids, naming id 1, and every other check passing.
func judgeOneVerdict(t *testing.T, res Result, v spec.Version, more ...string) {
	t.Helper()
	c, ok := expectOutcome(t, res, "base/invalid-ids", v, reports.Fail, "fault fraction-ids-truncated")
	if ok && (!strings.Contains(c.Actual, "id 1,") || !strings.Contains(c.Expected, reqIDEcho)) {
		t.Errorf("base/invalid-ids does not charge the id 1 answer to %s:\n  expected: %s\n  actual: %s", reqIDEcho, c.Expected, c.Actual)
	}
	for _, id := range append([]string{"base/wire-schema"}, more...) {
		expectOutcome(t, res, id, v, reports.Pass, "fault fraction-ids-truncated (one defect, judged by base/invalid-ids alone)")
	}
}

// TestIDBeyond253IsAnInteropProbe: a server that echoes integer ids
// through a 64-bit float (every JavaScript one: 9007199254740993 comes
// back as 9007199254740992) breaks no MUST base/invalid-ids judges, whose
// ids every JSON implementation carries exactly; base/id-beyond-2-53
// warns, naming no requirement broken, and passes against the faithful
// reference server.
func TestIDBeyond253IsAnInteropProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	v := spec.V20251125
	only := []string{"base/invalid-ids", "base/id-beyond-2-53"}
	t.Run("float64-ids", func(t *testing.T) {
		t.Parallel()
		res := runReference(t, Config{Only: only, Versions: []spec.Version{v}, Direct: true}, "ids-through-float64")
		expectOutcome(t, res, "base/invalid-ids", v, reports.Pass, "fault ids-through-float64")
		if c, ok := expectOutcome(t, res, "base/id-beyond-2-53", v, reports.Warn, "fault ids-through-float64"); ok {
			if len(c.Violated) > 0 || !strings.Contains(c.Expected, "interoperability") || !strings.Contains(c.Actual, "9007199254740992") {
				t.Errorf("the warning does not say it is an interoperability probe with the id that came back:\n  violated: %v\n  expected: %s\n  actual: %s", c.Violated, c.Expected, c.Actual)
			}
		}
	})
	t.Run("faithful", func(t *testing.T) {
		t.Parallel()
		res := runReference(t, Config{Only: only, Versions: []spec.Version{v}, Direct: true})
		for _, id := range only {
			expectOutcome(t, res, id, v, reports.Pass, "the faithful reference server")
		}
	})
}
