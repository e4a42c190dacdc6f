package harness

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

type fakeCatalog map[string]catalog.Record

func (f fakeCatalog) Get(id string) (catalog.Record, bool) { r, ok := f[id]; return r, ok }

var testCatalog = fakeCatalog{
	"t.must":      {ID: "t.must", Level: catalog.Must, Area: "base", Since: spec.V20241105},
	"t.should":    {ID: "t.should", Level: catalog.Should, Area: "ping", Since: spec.V20241105},
	"t.may":       {ID: "t.may", Level: catalog.May, Area: "base", Since: spec.V20241105},
	"t.stateless": {ID: "t.stateless", Level: catalog.Must, Area: "discovery", Since: spec.V20260728},
}

func newRun(t *testing.T) *Run {
	t.Helper()
	r, err := NewRun(RunOptions{Catalog: testCatalog, Version: spec.V20251125, Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOutcomes(t *testing.T) {
	r := newRun(t)
	cases := []struct {
		name string
		reqs []string
		do   func(c *Check)
		want reports.Outcome
	}{
		{"pass", []string{"t.must"}, func(c *Check) { c.Pass() }, reports.Pass},
		{"must", []string{"t.must", "t.should"}, func(c *Check) { c.Fail("x", "y") }, reports.Fail},
		{"should only", []string{"t.must", "t.should"}, func(c *Check) { c.Violation("t.should", "x", "y") }, reports.Warn},
		{"violation beats pass", []string{"t.must"}, func(c *Check) { c.Pass(); c.Fail("x", "y") }, reports.Fail},
		{"error beats violation", []string{"t.must"}, func(c *Check) { c.Fail("x", "y"); c.Error(errors.New("broke")) }, reports.Error},
		{"na", []string{"t.must"}, func(c *Check) { c.RequireCapability(mcp.ServerCapabilities{}, "tools") }, reports.NA},
		{"untestable", []string{"t.must"}, func(c *Check) { c.RequireFixture(false, "no fixture") }, reports.Untestable},
		{"window", []string{"t.stateless"}, func(c *Check) { c.Pass() }, reports.NA},
		{"no outcome", []string{"t.must"}, func(c *Check) {}, reports.Error},
		{"unknown id", []string{"t.nope"}, func(c *Check) { c.Pass() }, reports.Error},
		{"may cannot fail", []string{"t.may"}, func(c *Check) { c.Fail("x", "y") }, reports.Error},
		{"panic", []string{"t.must"}, func(c *Check) { panic("scenario bug") }, reports.Error},
		{"gone: no pass", []string{"t.must"}, func(c *Check) { c.TargetGone("dead"); c.Pass() }, reports.Error},
		{"gone: later violations dropped", []string{"t.must"}, func(c *Check) { c.TargetGone("dead"); c.Fail("x", "y") }, reports.Error},
		{"gone: earlier violations stand", []string{"t.must"}, func(c *Check) { c.Fail("x", "y"); c.TargetGone("dead") }, reports.Fail},
		{"gone: n/a stands", []string{"t.must"}, func(c *Check) { c.NotApplicable("no"); c.TargetGone("dead") }, reports.NA},
	}
	for _, tc := range cases {
		got := r.Scope(spec.V20251125, "stdio").Do("c/"+tc.name, tc.name, tc.reqs, tc.do)
		if got.Outcome != tc.want {
			t.Errorf("%s: outcome %v (%s), want %v", tc.name, got.Outcome, got.Reason, tc.want)
		}
	}
	if n := len(r.Problems()); n != 3 { // unknown id, no outcome, may
		t.Errorf("%d problems recorded: %v", n, r.Problems())
	}
	checks := r.Checks()
	if c := checks[2]; c.Level != catalog.Must || !strings.Contains(c.Expected, "t.should: x") {
		t.Errorf("should-only check: %+v", c)
	}
	if c := checks[5]; !strings.Contains(c.Reason, "did not declare the tools capability") {
		t.Errorf("na reason: %q", c.Reason)
	}
	if c := checks[7]; !strings.Contains(c.Reason, "t.stateless applies to 2026-07-28..") {
		t.Errorf("window reason: %q", c.Reason)
	}
	run := r.Report(reports.Tool{Name: "mcpcheck"}, reports.Target{Kind: reports.TargetStdio})
	if len(run.Versions) != 1 || run.Transport != "stdio" || run.Requirements["t.must"].Level != catalog.Must {
		t.Errorf("report: %+v", run)
	}
	for _, c := range run.Checks {
		if !c.Outcome.Valid() {
			t.Errorf("check %s has no valid outcome", c.ID)
		}
	}
}

func TestDuplicateCheckIsAProblem(t *testing.T) {
	r := newRun(t)
	r.Check("same", "", "t.must").End()
	c := r.Check("same", "", "t.must")
	c.Pass()
	c.End()
	if len(r.Problems()) != 2 { // no outcome on the first, duplicate key
		t.Errorf("problems: %v", r.Problems())
	}
}

func TestJudgeAndCapabilities(t *testing.T) {
	r := newRun(t)
	c := r.Check("judge", "", "t.must")
	c.Judge(expect.Observed{Status: expect.Mismatched, Expected: "an error with code -32601", Actual: "got code -32603"})
	got := c.End()
	if got.Outcome != reports.Fail || got.Expected != "an error with code -32601" || got.Actual != "got code -32603" {
		t.Errorf("%+v", got)
	}
	c = r.Check("abort", "", "t.must")
	c.Judge(expect.Observed{Status: expect.Aborted, Actual: "cancelled"})
	if got := c.End(); got.Outcome != reports.Error {
		t.Errorf("%+v", got)
	}
	caps := mcp.ServerCapabilities{Resources: &mcp.ResourcesCapability{Subscribe: mcp.Bool(false)}, Logging: mcp.Present()}
	for path, want := range map[string]bool{"resources": true, "resources.subscribe": false, "logging": true, "tools": false, "resources.listChanged": false} {
		if HasCapability(caps, path) != want {
			t.Errorf("HasCapability(%s) = %v", path, !want)
		}
	}
}

func TestPool(t *testing.T) {
	closed := 0
	p := &Pool[int]{
		New:   func(ctx context.Context, key string) (int, error) { return len(key), nil },
		Close: func(int) error { closed++; return nil },
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for i := 0; i < 5; i++ {
		_, release, err := p.Get(ctx, "2025-11-25")
		if err != nil {
			t.Fatal(err)
		}
		release(true)
	}
	_, release, _ := p.Get(ctx, "2025-11-25")
	release(false)
	release(true) // ignored: release runs once
	if p.Created() != 1 || closed != 1 {
		t.Errorf("created %d closed %d", p.Created(), closed)
	}
	p.Get(ctx, "2025-06-18")
	p.Shutdown()
	if _, _, err := p.Get(ctx, "x"); err == nil {
		t.Error("Get after Shutdown must fail")
	}
}

// TestPoolIdle: Idle lends the idle values of a key to fn, where Get
// cannot take them, and takes them back afterwards; a pool shut down
// meanwhile closes them instead.
func TestPoolIdle(t *testing.T) {
	n, closed := 0, 0
	p := &Pool[int]{
		New:     func(context.Context, string) (int, error) { n++; return n, nil },
		Close:   func(int) error { closed++; return nil },
		MaxIdle: 2,
	}
	ctx := context.Background()
	a, ra, _ := p.Get(ctx, "k")
	b, rb, _ := p.Get(ctx, "k")
	ra(true)
	rb(true)
	var lent []int
	p.Idle("k", func(vs []int) {
		lent = append(lent, vs...)
		if v, release, _ := p.Get(ctx, "k"); v == a || v == b {
			t.Errorf("Get took %d, lent to Idle", v)
		} else {
			release(false)
		}
	})
	if len(lent) != 2 {
		t.Fatalf("Idle lent %v, want the 2 idle values", lent)
	}
	created := p.Created()
	v, release, _ := p.Get(ctx, "k")
	if p.Created() != created || (v != a && v != b) {
		t.Errorf("after Idle, Get made a new value (%d) instead of reusing one", v)
	}
	release(true)
	p.Idle("k", func([]int) { p.Shutdown() })
	if closed != 3 {
		t.Errorf("%d values closed, want 3 (one released unused, two taken back after Shutdown)", closed)
	}
}

// TestJudgeOnAnUnauthorizedAnswer: a wait that ended on an HTTP 401 (the
// target asks for a token) judges nothing of what it waited for: the
// check is a harness error that says so, never the target's failure.
func TestJudgeOnAnUnauthorizedAnswer(t *testing.T) {
	r := newRun(t)
	c := r.Check("judge-401", "", "t.must")
	f := wire.Frame{Kind: wire.KindMessage, HTTP: &wire.HTTPInfo{Method: "POST", Status: http.StatusUnauthorized, Header: http.Header{"Www-Authenticate": {`Bearer scope="mcp"`}}}}
	c.Judge(expect.Observed{Status: expect.Ended, Frame: f, Expected: "an empty result", Actual: "the exchange's only answer was HTTP 401"})
	got := c.End()
	if got.Outcome != reports.Error || !strings.Contains(got.Reason, "asks for authorization") || !strings.Contains(got.Reason, `scope="mcp"`) {
		t.Errorf("a 401 was judged %s (%q); want an error saying the target asks for authorization, with its challenge", got.Outcome, got.Reason)
	}
}
