package fuzz

import (
	"context"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/schema"
	"pgregory.net/rapid"
)

// TestSequencesAreValid: every message of every generated session is valid
// against our schema, as a message the client sends.
func TestSequencesAreValid(t *testing.T) {
	for _, v := range spec.Versions {
		t.Run(string(v), func(t *testing.T) {
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				seq := Sequences(v, 30).Draw(rt, "session")
				for i, l := range seq.Lines {
					n++
					if vs := schema.Validate(v, spec.ClientToServer, "", l); len(vs) > 0 {
						rt.Fatalf("line %d (%s) of the session is invalid: %s\n%v", i, seq.Methods[i], l, vs)
					}
				}
			})
			t.Logf("%s: %d session messages validated", v, n)
		})
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
				seq, err := NewSequence(v)
				if err != nil {
					rt.Fatal(err)
				}
				sent := 0
				acts := seq.Actions()
				acts[""] = func(rt *rapid.T) {
					if sent == len(seq.Lines) {
						return
					}
					out := s.exec(single(seq.Lines[sent:]...))
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
