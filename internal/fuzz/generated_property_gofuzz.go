//go:build gofuzz

package fuzz

import (
	"hash/fnv"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
)

// generatedMessageValid is the generated-messages fuzz target's property in a libFuzzer
// build (go-118-fuzz-build builds with -tags gofuzz; see
// .clusterfuzzlite/build.sh). Its testing.T is not the standard library's,
// so rapid's bit stream (rapid.MakeFuzz) cannot be driven: the first byte
// picks the version and a hash of the rest seeds the generator.
func generatedMessageValid(t interface{ Fatalf(string, ...any) }, data []byte) {
	if len(data) == 0 {
		return
	}
	v := spec.Versions[int(data[0])%len(spec.Versions)]
	gens, err := gen.NewMessages(v)
	if err != nil {
		t.Fatalf("%s: %v", v, err)
	}
	h := fnv.New64a()
	h.Write(data[1:])
	msg, err := gen.Example(gens.Any(), h.Sum64())
	if err != nil {
		t.Fatalf("%s: %v", v, err)
	}
	if vs := schema.Validate(v, msg.From, msg.Method, msg.Raw()); len(vs) > 0 {
		t.Fatalf("%s: %s\n%v", v, msg.Raw(), vs)
	}
}
