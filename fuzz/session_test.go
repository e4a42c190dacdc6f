package fuzz

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// TestPipelinedExecsJudgeLikeSequentialOnes: writing each input ahead,
// before the exec before it is judged (the campaign's pipelining), must not
// change what is judged: the same inputs against the same deterministic
// target give the same observations, credited to the same inputs, and the
// same transcript per exec as one exec after the other. The target holds
// back the answer to every tools/call (with result and error, a violation)
// until the next line, so late answers cross exec boundaries.
func TestPipelinedExecsJudgeLikeSequentialOnes(t *testing.T) {
	v := spec.V20251125
	target := helperTarget(t, v, "late-both")
	var inputs []Input
	for i := 0; len(inputs) < 60; i++ {
		for _, m := range []string{"protocol/valid", "protocol/tool-call", "json/null-id", "json/duplicate-key", "bytes/garbage-line", "framing/split-writes", "protocol/duplicate-id"} {
			in, err := MakeInput(v, m, uint64(i), []Tool{{Name: "echo"}})
			if err != nil {
				t.Fatal(err)
			}
			if !in.Fresh && !in.CloseAfter && in.HTTP == nil && len(in.Chunks) > 0 {
				inputs = append(inputs, in)
			}
		}
	}
	type execView struct {
		obs        []string
		transcript []string
	}
	ahead := 0
	run := func(pipelined bool) []execView {
		s, err := openSession(context.Background(), target, v, 5*time.Second, false)
		if err != nil {
			t.Fatal(err)
		}
		defer s.close()
		var views []execView
		for i, in := range inputs {
			s.reset()
			var out execOutcome
			if pipelined {
				out = s.execDeferred(in)
				if i+1 < len(inputs) && !out.dead && s.pipelines(inputs[i+1]) {
					s.sendAhead(inputs[i+1])
					ahead++
				}
				s.finish(&out)
			} else {
				out = s.exec(in)
			}
			if out.dead {
				t.Fatalf("exec %d (%s) killed the session: %+v", i, in.Mutator, out.obs)
			}
			var view execView
			for _, o := range out.obs {
				view.obs = append(view.obs, fmt.Sprintf("%s %s origin %d", o.Kind, o.Check, o.origin))
			}
			for _, e := range s.events {
				view.transcript = append(view.transcript, fmt.Sprintf("%s %q %s", e.dir, e.data, e.note))
			}
			views = append(views, view)
		}
		return views
	}
	seq, pipe := run(false), run(true)
	found := 0
	for i := range seq {
		found += len(seq[i].obs)
		if diff := cmp.Diff(seq[i], pipe[i], cmp.AllowUnexported(execView{})); diff != "" {
			t.Errorf("exec %d (%s): pipelined differs from sequential (-sequential +pipelined):\n%s", i, inputs[i].Mutator, diff)
		}
	}
	if found == 0 {
		t.Fatal("no observation at all: the held-back answers were not judged, the test shows nothing")
	}
	if ahead < len(inputs)/2 {
		t.Fatalf("only %d of %d inputs were written ahead: the test shows little", ahead, len(inputs))
	}
}
