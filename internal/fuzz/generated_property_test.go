//go:build !gofuzz

package fuzz

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
	"pgregory.net/rapid"
)

// generatedMessageValid is the generated-messages fuzz target's property under go test:
// data is rapid's bit stream (rapid.MakeFuzz), so the fuzzer's coverage
// guides every choice the generators make. A libFuzzer build has its own
// (generated_property_gofuzz.go).
func generatedMessageValid(t *testing.T, data []byte) {
	rapid.MakeFuzz(func(t *rapid.T) {
		v := rapid.SampledFrom(spec.Versions).Draw(t, "version")
		gens, err := gen.NewMessages(v)
		if err != nil {
			t.Fatal(err)
		}
		msg := gens.Any().Draw(t, "message")
		if vs := schema.Validate(v, msg.From, msg.Method, msg.Raw()); len(vs) > 0 {
			t.Fatalf("%s: %s\n%v", v, msg.Raw(), vs)
		}
	})(t, data)
}
