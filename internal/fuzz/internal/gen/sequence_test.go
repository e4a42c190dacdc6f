package gen

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
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
