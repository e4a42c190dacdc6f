package mutate

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestMutatorsAreDeterministic builds every mutator's input twice from the
// same seed for every version and requires identical results, and different
// seeds to give different inputs at least sometimes.
func TestMutatorsAreDeterministic(t *testing.T) {
	t.Parallel()
	tools := []Tool{{Name: "echo", InputSchema: []byte(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}}
	seeds := uint64(12)
	if raceEnabled {
		seeds = 4
	}
	for _, v := range spec.Versions {
		for _, m := range Mutators() {
			differ := false
			var first []byte
			for seed := uint64(0); seed < seeds; seed++ {
				a, err := MakeInput(v, m.Name, seed, tools)
				if err != nil {
					t.Fatalf("%s %s seed %d: %v", v, m.Name, seed, err)
				}
				b, _ := MakeInput(v, m.Name, seed, tools)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%s %s seed %d: two builds differ:\n%q\n%q", v, m.Name, seed, a.Bytes(), b.Bytes())
				}
				if a.Size() == 0 {
					t.Fatalf("%s %s seed %d: empty input", v, m.Name, seed)
				}
				if a.Mutator != m.Name || a.Seed != seed {
					t.Fatalf("%s %s: input records mutator %q seed %d", v, m.Name, a.Mutator, a.Seed)
				}
				if seed == 0 {
					first = a.Bytes()
				} else if !bytes.Equal(first, a.Bytes()) {
					differ = true
				}
			}
			switch m.Name {
			case "protocol/double-initialize", "framing/two-per-line", "protocol/cancel-initialize", "json/null-id":
			default:
				if !differ && m.Name != "json/not-object" && !raceEnabled {
					t.Errorf("%s %s: %d seeds gave the same input", v, m.Name, seeds)
				}
			}
		}
	}
}

func TestMutatorFamiliesAndNames(t *testing.T) {
	fam := map[string]int{}
	seen := map[string]bool{}
	for _, m := range Mutators() {
		if seen[m.Name] {
			t.Errorf("duplicate mutator %s", m.Name)
		}
		seen[m.Name] = true
		fam[m.Family()]++
		if m.Doc == "" {
			t.Errorf("%s has no Doc", m.Name)
		}
	}
	for _, f := range []string{"bytes", "framing", "json", "protocol"} {
		if fam[f] == 0 {
			t.Errorf("no %s mutator", f)
		}
	}
	if _, err := SelectMutators([]string{"json", "bytes/flip"}); err != nil {
		t.Error(err)
	}
	if _, err := SelectMutators([]string{"nope"}); err == nil {
		t.Error("an unknown mutator pattern was accepted")
	}
}

// TestMutatorsDoWhatTheySay spot-checks the defining property of some
// mutators on many seeds.
func TestMutatorsDoWhatTheySay(t *testing.T) {
	t.Parallel()
	v := spec.V20251125
	seeds := uint64(50)
	if raceEnabled {
		seeds = 16 // the property holds on fewer; the race detector needs the code paths
	}
	for seed := uint64(0); seed < seeds; seed++ {
		in, _ := MakeInput(v, "bytes/line-separator", seed, nil)
		if !bytes.Contains(in.Bytes(), []byte("\u2028")) && !bytes.Contains(in.Bytes(), []byte("\u2029")) {
			t.Fatalf("line-separator seed %d: %q", seed, in.Bytes())
		}
		in, _ = MakeInput(v, "framing/crlf", seed, nil)
		if !bytes.HasSuffix(in.Bytes(), []byte("\r\n")) {
			t.Fatalf("crlf seed %d: %q", seed, in.Bytes())
		}
		in, _ = MakeInput(v, "framing/missing-final-newline", seed, nil)
		if bytes.HasSuffix(in.Bytes(), []byte("\n")) || !in.CloseAfter {
			t.Fatalf("missing-final-newline seed %d: %q", seed, in.Bytes())
		}
		in, _ = MakeInput(v, "framing/split-writes", seed, nil)
		if len(in.Chunks) < 2 {
			t.Fatalf("split-writes seed %d: %d chunks", seed, len(in.Chunks))
		}
		in, _ = MakeInput(v, "json/null-id", seed, nil)
		if msg := jsonrpc.Decode(bytes.TrimSuffix(in.Bytes(), []byte("\n"))); !msg.IDNull {
			t.Fatalf("null-id seed %d: %q", seed, in.Bytes())
		}
		in, _ = MakeInput(v, "framing/giant-line", seed, nil)
		if in.Size() < 60<<10 || in.Size() > giantLineMax+2 {
			t.Fatalf("giant-line seed %d: %d bytes", seed, in.Size())
		}
		in, _ = MakeInput(v, "protocol/valid", seed, nil)
		if msg := jsonrpc.Decode(bytes.TrimSuffix(in.Bytes(), []byte("\n"))); !msg.Valid() {
			t.Fatalf("valid seed %d: %q: %v", seed, in.Bytes(), msg.Problems)
		}
	}
}

func TestHTTPMutatorsAreDeterministic(t *testing.T) {
	t.Parallel()
	seeds := uint64(8)
	if raceEnabled {
		seeds = 3 // as TestMutatorsAreDeterministic: big bodies copied under the race detector
	}
	for _, v := range spec.Versions {
		for _, m := range HTTPMutators() {
			for seed := uint64(0); seed < seeds; seed++ {
				a, err := MakeHTTPRequest(v, m.Name, seed)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := MakeHTTPRequest(v, m.Name, seed)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%s %s seed %d differs", v, m.Name, seed)
				}
				if a.Method == "" || len(a.Body) > httpBodyMax+1 {
					t.Fatalf("%s %s seed %d: method %q, %d-byte body", v, m.Name, seed, a.Method, len(a.Body))
				}
			}
		}
	}
	if _, err := MakeHTTPRequest(spec.Latest, "http/nope", 1); err == nil {
		t.Error("an unknown HTTP mutator was accepted")
	}
}
