package fuzz

import (
	"context"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestCarefulServerHasNoFindings runs every mutator on a few seeds against
// the careful test server of every version: the oracles must stay silent
// (no false positives), and the server must stay alive.
func TestCarefulServerHasNoFindings(t *testing.T) {
	for _, v := range spec.Versions {
		t.Run(string(v), func(t *testing.T) {
			target := helperTarget(t, v, "")
			s, err := openSession(context.Background(), target, v, 5*time.Second, false)
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
			for _, m := range Mutators() {
				for seed := uint64(0); seed < seeds; seed++ {
					in, err := MakeInput(v, m.Name, seed, tools)
					if err != nil {
						t.Fatal(err)
					}
					if in.Fresh || s == nil {
						s.close()
						if s, err = openSession(context.Background(), target, v, 5*time.Second, in.Fresh); err != nil {
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
						if s, err = openSession(context.Background(), target, v, 5*time.Second, false); err != nil {
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
	s, err := openSession(context.Background(), helperTarget(t, v, "dual-era"), v, 5*time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	inputs := []Input{
		single(initializeRequest(v, "mcpcheck-init-again")),
		single(marshal(map[string]any{"jsonrpc": "2.0", "id": "legacy-list", "method": spec.MethodToolsList})),
		single(marshal(request(v, "stateless-list", spec.MethodToolsList, nil))),
		single(marshal(map[string]any{"jsonrpc": "2.0", "id": "legacy-ping", "method": spec.MethodPing})),
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
	if s.judge.legacy != spec.V20251125 {
		t.Errorf("the judge did not follow the legacy session: legacy = %q", s.judge.legacy)
	}
	// Campaigns keep their shared instance in the campaign's era: an input
	// that initializes gets an instance of its own.
	for _, v := range []spec.Version{spec.V20260728, spec.V20251125} {
		in, err := MakeInput(v, "protocol/double-initialize", 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := v.Era() == spec.Stateless; in.Fresh != want {
			t.Errorf("%s: protocol/double-initialize Fresh = %v, want %v", v, in.Fresh, want)
		}
	}
}

// TestJudgeBoundRecyclesTheSession: a session whose judge remembers
// maxJudgeIDs ids (requests the target never answered, say) asks to be
// replaced, instead of forgetting ids (a false finding on a late answer)
// or growing without bound.
func TestJudgeBoundRecyclesTheSession(t *testing.T) {
	v := spec.V20251125
	s, err := openSession(context.Background(), helperTarget(t, v, ""), v, 5*time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	in := single(marshal(request(v, "one", spec.MethodToolsList, nil)))
	if out := s.exec(in); out.recycle || out.dead || len(out.obs) > 0 {
		t.Fatalf("a fresh session: %+v", out)
	}
	for i := 0; len(s.judge.rawIDs) < maxJudgeIDs; i++ {
		s.judge.rawIDs[itoa(i)] = true
	}
	if out := s.exec(in); !out.recycle || out.dead || len(out.obs) > 0 {
		t.Fatalf("a full judge: %+v", out)
	}
}
