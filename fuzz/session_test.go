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
					s.events = nil
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
