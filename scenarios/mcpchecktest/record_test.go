package mcpchecktest

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// record is a tester that keeps what a test reported instead of failing
// the test running it, the way testing/fstest's tests look at the error
// TestFS returns: the outer test asserts that the inner one failed, and
// why.
type record struct {
	name   string
	ctx    context.Context
	logs   []string
	errors []string
	skips  []string
	fatals []string
	subs   []*record
}

func newRecord(ctx context.Context, name string) *record { return &record{name: name, ctx: ctx} }

func (r *record) Helper()                     {}
func (r *record) Name() string                { return r.name }
func (r *record) Context() context.Context    { return r.ctx }
func (r *record) Deadline() (time.Time, bool) { return time.Time{}, false }
func (r *record) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *record) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *record) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}
func (r *record) Skip(args ...any) { r.skips = append(r.skips, fmt.Sprint(args...)) }
func (r *record) failed() bool     { return len(r.errors) > 0 || len(r.fatals) > 0 }
func (r *record) skipped() bool    { return len(r.skips) > 0 }

func (r *record) Run(name string, f func(tester)) bool {
	s := newRecord(r.ctx, r.name+"/"+name)
	r.subs = append(r.subs, s)
	f(s)
	return !s.failed()
}

// sub returns the subtest named name (below r), or nil.
func (r *record) sub(name string) *record {
	for _, s := range r.subs {
		if s.name == r.name+"/"+name {
			return s
		}
	}
	return nil
}

// failedSubs lists the names of the subtests that failed.
func (r *record) failedSubs() []string {
	var out []string
	for _, s := range r.subs {
		if s.failed() {
			out = append(out, strings.TrimPrefix(s.name, r.name+"/"))
		}
	}
	return out
}

// String is everything r reported, for failure messages.
func (r *record) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: errors %q fatals %q skips %q\n", r.name, r.errors, r.fatals, r.skips)
	for _, s := range r.subs {
		fmt.Fprintf(&b, "  %s: errors %q skips %q\n", s.name, s.errors, s.skips)
	}
	return b.String()
}
