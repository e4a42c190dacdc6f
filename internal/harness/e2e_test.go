package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

func helperTarget(t *testing.T, mode string) target.Target {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tg := target.Command(self)
	tg.Env = []string{helperEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"}
	tg.Timeouts.Grace = time.Second
	return tg
}

// pingCheck is written the way a scenario would be: borrow a session,
// send, accept every permitted outcome, judge.
func pingCheck(ctx context.Context, s Scope, pool *Pool[*Shared]) reports.Check {
	return s.Do("ping/answers-empty-result", "the server answers ping with an empty result", []string{"t.must"}, func(c *Check) {
		sh, release, err := pool.Get(ctx, string(s.Version))
		if err != nil {
			c.Error(err)
			return
		}
		defer release(true)
		if sh.OpenErr != nil {
			c.Untestable("the handshake failed: " + sh.OpenErr.Error())
			return
		}
		if !c.RequireCapability(sh.Stateful.ServerCapabilities(), "tools") {
			return
		}
		id, _, err := sh.Stateful.Request(ctx, spec.MethodPing, nil)
		if err != nil {
			c.Error(err)
			return
		}
		c.Judge(sh.Stateful.Wait(ctx, expect.Result(id, "an empty result", nil)))
	})
}

func TestEndToEndOverStdioWithASharedSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run, err := NewRun(RunOptions{Catalog: testCatalog})
	if err != nil {
		t.Fatal(err)
	}
	pool := SessionPool(helperTarget(t, "good"), session.Config{Timeout: 30 * time.Second}, run.Recorder())
	defer pool.Shutdown()
	s := run.Scope(spec.V20251125, "stdio")
	got := pingCheck(ctx, s, pool)
	if got.Outcome != reports.Pass || got.Transcript != nil {
		t.Fatalf("ping: %+v", got)
	}
	// More checks on the same version reuse the process.
	for _, id := range []string{"a", "b", "c"} {
		s.Do("tools/list/"+id, "", []string{"t.must"}, func(c *Check) {
			sh, release, err := pool.Get(ctx, "2025-11-25")
			if err != nil {
				c.Error(err)
				return
			}
			defer release(true)
			c.JudgeReply(sh.Stateful.Call(ctx, spec.MethodToolsList, nil))
		})
	}
	if pool.Created() != 1 {
		t.Errorf("%d processes started for 4 checks of one version", pool.Created())
	}
	for _, c := range run.Checks() {
		if c.Outcome != reports.Pass {
			t.Errorf("%s: %v %s %s", c.ID, c.Outcome, c.Actual, c.Reason)
		}
	}
}

func TestEndToEndAgainstASloppyServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run, _ := NewRun(RunOptions{Catalog: testCatalog})
	sh, err := Open(ctx, helperTarget(t, "sloppy"), spec.V20250618, OpenOptions{Session: session.Config{Timeout: 30 * time.Second}, Taps: []wire.Tap{run.Recorder()}})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	s := run.Scope(spec.V20250618, "stdio")
	got := s.Do("ping/answers-empty-result", "", []string{"t.must"}, func(c *Check) {
		id := sh.Stateful.NextID()
		if _, err := sh.Stateful.RequestWithID(ctx, id, spec.MethodPing, nil); err != nil {
			c.Error(err)
			return
		}
		obs := sh.Stateful.Wait(ctx, expect.Result(id, "an empty result", nil), expect.Error(id, jsonrpc.MethodNotFound))
		c.Judge(obs)
	})
	if got.Outcome != reports.Fail || !strings.Contains(got.Actual, "-32603 (InternalError)") {
		t.Fatalf("%+v", got)
	}
	if len(got.Transcript) < 2 || got.Transcript[0].Direction != reports.Sent {
		t.Errorf("a failing check keeps its transcript: %+v", got.Transcript)
	}
	purity := s.Do("transport-stdio/stdout-only-messages", "", []string{"t.must"}, func(c *Check) {
		for _, f := range sh.Stateful.Irregular() {
			if f.Kind == wire.KindGarbage {
				c.Fail("only MCP messages on stdout", "a line that is not JSON: "+string(f.Raw))
				return
			}
		}
		c.Pass()
	})
	if purity.Outcome != reports.Fail || !strings.Contains(purity.Actual, "sloppy server ready") {
		t.Errorf("%+v", purity)
	}
}

// A target that never answers and one that answers HTTP 500 with HTML:
// both give checks an outcome (untestable), and nothing hangs.
func TestHostileTargetsGetVerdicts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(500)
		io.WriteString(w, "<h1>Internal Server Error</h1>")
	}))
	defer srv.Close()
	httpTarget := target.URL(srv.URL + "/mcp")
	httpTarget.Transport = target.Streamable
	for name, tg := range map[string]target.Target{"silent stdio": helperTarget(t, "silent"), "http 500": httpTarget} {
		run, _ := NewRun(RunOptions{Catalog: testCatalog})
		// A short start-up allowance: the silent target is silent for
		// good, and this test is about the verdict, not the allowance.
		sh, err := Open(ctx, tg, spec.V20251125, OpenOptions{Session: session.Config{Timeout: 200 * time.Millisecond, StartupTimeout: 500 * time.Millisecond}, Taps: []wire.Tap{run.Recorder()}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := run.Scope(spec.V20251125, wire.Transport(name)).Do("lifecycle/initialize", "", []string{"t.must"}, func(c *Check) {
			if sh.OpenErr != nil {
				c.Untestable(sh.OpenErr.Error())
				return
			}
			c.Pass()
		})
		sh.Close()
		// The verdict is the target's: it came before the test's own
		// deadline (ctx), which only bounds the test.
		if got.Outcome != reports.Untestable || ctx.Err() != nil {
			t.Errorf("%s: %v %q (test deadline passed: %v)", name, got.Outcome, got.Reason, ctx.Err() != nil)
		}
		t.Logf("%s: %s", name, got.Reason)
	}
}

// A pool on an Auto URL target detects the transport once, not per
// session.
func TestSessionPoolDetectsOnce(t *testing.T) {
	var mu sync.Mutex
	discovers := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage
			Method string
		}
		json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		if m.Method != "server/discover" {
			w.WriteHeader(404)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
			return
		}
		mu.Lock()
		discovers++
		mu.Unlock()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}}`, m.ID)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pool := SessionPool(target.URL(srv.URL), session.Config{}, nil)
	defer pool.Shutdown()
	a, ra, err := pool.Get(ctx, "2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	b, rb, err := pool.Get(ctx, "2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	ra(true)
	rb(true)
	if !a.Supported() || !b.Supported() || a.Conn.Mode != target.Streamable {
		t.Fatalf("sessions: %v %v %v %v", a.OpenErr, b.OpenErr, a.Conn.Mode, a.Negotiated())
	}
	if discovers != 3 { // one detection probe, one server/discover per session
		t.Errorf("%d server/discover requests, want 3", discovers)
	}
}
