package fuzz

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/spec"
	"pgregory.net/rapid"
)

// TestCarefulServerHasNoFindings runs every mutator on a few seeds against
// the careful test server of every version: the oracles must stay silent
// (no false positives), and the server must stay alive.
func TestCarefulServerHasNoFindings(t *testing.T) {
	t.Parallel()
	for _, v := range spec.Versions {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			target := inprocHelper(v, "")
			s, err := openSession(context.Background(), target, v, 5*time.Second, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { s.close() }()
			tools := s.listTools()
			if len(tools) != 1 || tools[0].Name != "echo" {
				t.Fatalf("tools/list gave %+v", tools)
			}
			seeds := uint64(10)
			if raceEnabled {
				seeds = 2
			}
			for _, m := range mutate.Mutators() {
				for seed := uint64(0); seed < seeds; seed++ {
					in, err := mutate.MakeInput(v, m.Name, seed, tools)
					if err != nil {
						t.Fatal(err)
					}
					if in.Fresh || s == nil {
						s.close()
						if s, err = openSession(context.Background(), target, v, 5*time.Second, 0, in.Fresh); err != nil {
							t.Fatal(err)
						}
					}
					s.reset()
					out := s.exec(in)
					for _, o := range out.obs {
						t.Errorf("%s seed %d: %s %s: %s\ninput: %q", m.Name, seed, o.Kind, o.Check, o.Message, trimmed(in.Bytes()))
					}
					if out.dead {
						s.close()
						if s, err = openSession(context.Background(), target, v, 5*time.Second, 0, false); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}

func trimmed(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

// TestDualEraStreamJudgedByNegotiatedVersion: in a stateless campaign, an
// initialize on the shared stream of a dual-era server opens a legacy
// session there; the answers to later requests without a _meta protocol
// version follow the version that initialize negotiated (2025-11-25 here,
// whose tools/list result has no cacheScope) and must be judged by it,
// while requests that declare the campaign's version are still judged by
// the campaign's rules.
func TestDualEraStreamJudgedByNegotiatedVersion(t *testing.T) {
	v := spec.V20260728
	s, err := openSession(context.Background(), helperTarget(t, v, "dual-era"), v, 5*time.Second, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	inputs := []mutate.Input{
		mutate.Single(gen.InitializeRequest(v, "mcpcheck-init-again")),
		mutate.Single(gen.Marshal(map[string]any{"jsonrpc": "2.0", "id": "legacy-list", "method": spec.MethodToolsList})),
		mutate.Single(gen.Marshal(gen.Request(v, "stateless-list", spec.MethodToolsList, nil))),
		mutate.Single(gen.Marshal(map[string]any{"jsonrpc": "2.0", "id": "legacy-ping", "method": spec.MethodPing})),
	}
	for i, in := range inputs {
		out := s.exec(in)
		if out.dead {
			t.Fatalf("input %d: the session died", i)
		}
		for _, o := range out.obs {
			t.Errorf("input %d %q: false finding %s %s: %s", i, in.Bytes(), o.Kind, o.Check, o.Message)
		}
	}
	if s.judge.Legacy != spec.V20251125 {
		t.Errorf("the judge did not follow the legacy session: legacy = %q", s.judge.Legacy)
	}
	// Campaigns keep their shared instance in the campaign's era: an input
	// that initializes gets an instance of its own.
	for _, v := range []spec.Version{spec.V20260728, spec.V20251125} {
		in, err := mutate.MakeInput(v, "protocol/double-initialize", 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := v.Era() == spec.Stateless; in.Fresh != want {
			t.Errorf("%s: protocol/double-initialize Fresh = %v, want %v", v, in.Fresh, want)
		}
	}
}

// TestJudgeBoundRecyclesTheSession: a session whose judge remembers
// oracle.MaxJudgeIDs ids (requests the target never answered, say) asks to be
// replaced, instead of forgetting ids (a false finding on a late answer)
// or growing without bound.
func TestJudgeBoundRecyclesTheSession(t *testing.T) {
	v := spec.V20251125
	s, err := openSession(context.Background(), helperTarget(t, v, ""), v, 5*time.Second, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	in := mutate.Single(gen.Marshal(gen.Request(v, "one", spec.MethodToolsList, nil)))
	if out := s.exec(in); out.recycle || out.dead || len(out.obs) > 0 {
		t.Fatalf("a fresh session: %+v", out)
	}
	for i := 0; len(s.judge.RawIDs) < oracle.MaxJudgeIDs; i++ {
		s.judge.RawIDs[strconv.Itoa(i)] = true
	}
	if out := s.exec(in); !out.recycle || out.dead || len(out.obs) > 0 {
		t.Fatalf("a full judge: %+v", out)
	}
}

// countingTarget starts instances that do nothing, counting the starts
// and the closes; started receives one value per start.
type countingTarget struct {
	mu      sync.Mutex
	starts  int
	closes  int
	started chan struct{}
}

func (c *countingTarget) Describe() string { return "counting" }

func (c *countingTarget) Start(context.Context) (conn.Conn, error) {
	c.mu.Lock()
	c.starts++
	c.mu.Unlock()
	c.started <- struct{}{}
	return &idleConn{t: c}, nil
}

// idleConn is an instance that never answers.
type idleConn struct {
	t      *countingTarget
	closed sync.Once
}

func (*idleConn) Send([]byte) error                  { return nil }
func (*idleConn) CloseSend() error                   { return nil }
func (*idleConn) Recv(time.Time) (conn.Frame, error) { return conn.Frame{}, conn.ErrDeadline }
func (*idleConn) Exit(time.Time) *conn.ExitStatus    { return nil }
func (*idleConn) StderrTail() []byte                 { return nil }
func (c *idleConn) Close() error {
	c.closed.Do(func() { c.t.mu.Lock(); c.t.closes++; c.t.mu.Unlock() })
	return nil
}

// TestWarmPoolKeepsDepthAhead: once a kind is asked for, the pool keeps
// depth instances of it started ahead, each one taken is replaced, and
// close ends every instance left; warmDepth stays within 1 and maxEnding.
func TestWarmPoolKeepsDepthAhead(t *testing.T) {
	const depth = 3
	target := &countingTarget{started: make(chan struct{}, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	pool := newWarm(ctx, target, spec.V20251125, time.Second, 0, depth)
	var taken []*session
	s, err := pool.get(ctx, true) // the first: started now, and depth more ahead
	if err != nil {
		t.Fatal(err)
	}
	taken = append(taken, s)
	waitStart := func(what string) {
		t.Helper()
		select {
		case <-target.started:
		case <-time.After(10 * time.Second):
			target.mu.Lock()
			defer target.mu.Unlock()
			t.Fatalf("%s was never started (%d instances started, depth %d)", what, target.starts, depth)
		}
	}
	for i := range 1 + depth {
		waitStart("instance " + strconv.Itoa(i+1) + " of the first get")
	}
	for i := range 5 {
		if s, err = pool.get(ctx, true); err != nil {
			t.Fatal(err)
		}
		taken = append(taken, s)
		waitStart("the replacement of instance " + strconv.Itoa(i+2))
		target.mu.Lock()
		if want := 2 + depth + i; target.starts != want {
			t.Errorf("after %d instances taken: %d started, want %d (depth %d ahead)", i+2, target.starts, want, depth)
		}
		target.mu.Unlock()
	}
	cancel()
	pool.close()
	for _, s := range taken {
		s.close()
	}
	target.mu.Lock()
	defer target.mu.Unlock()
	if target.closes != target.starts {
		t.Errorf("%d instances started, %d closed", target.starts, target.closes)
	}
	for _, w := range []int{1, 2, 64, 1 << 10} {
		if d := warmDepth(w); d < 1 || d > maxEnding {
			t.Errorf("warmDepth(%d) = %d, want 1..%d", w, d, maxEnding)
		}
	}
}

// TestSequenceStateMachine drives the careful test server with the session
// model as a rapid state machine: after every action the new messages are
// sent, followed by a liveness probe, and the invariant is that the oracles
// see nothing and the server stays up.
func TestSequenceStateMachine(t *testing.T) {
	versions := []spec.Version{spec.V20250326, spec.V20251125, spec.V20260728}
	if raceEnabled {
		versions = versions[1:2] // one process per check; the race detector needs one era
	}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			target := inprocHelper(v, "")
			rapid.Check(t, func(rt *rapid.T) {
				s, err := openSession(context.Background(), target, v, 10*time.Second, 0, true)
				if err != nil {
					rt.Fatal(err)
				}
				defer s.close()
				seq, err := gen.NewSequence(v)
				if err != nil {
					rt.Fatal(err)
				}
				sent := 0
				acts := seq.Actions()
				acts[""] = func(rt *rapid.T) {
					if sent == len(seq.Lines) {
						return
					}
					out := s.exec(mutate.Single(seq.Lines[sent:]...))
					sent = len(seq.Lines)
					for _, o := range out.obs {
						rt.Fatalf("%s %s: %s", o.Kind, o.Check, o.Message)
					}
					if out.dead {
						rt.Fatalf("the server went away after %v", seq.Methods)
					}
				}
				rt.Repeat(acts)
			})
		})
	}
}
