package fuzz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Native fuzz targets. This file compiles on its own with the package's
// production files: OSS-Fuzz's compile_native_go_fuzzer
// (.clusterfuzzlite/build.sh) builds it alone. Their seed corpora under testdata/fuzz/<Target>/ are
// built from generated, valid messages by TestWriteSeedCorpora (run with
// MCPCHECK_WRITE_CORPUS=1 to regenerate them).

func versionAt(i uint8) spec.Version { return spec.Versions[int(i)%len(spec.Versions)] }

// FuzzSchemaValidate: the validator never panics and agrees with itself:
// the same input gives the same violations twice, and validating the
// decoded instance gives the same violations as validating the bytes.
func FuzzSchemaValidate(f *testing.F) {
	f.Add(uint8(3), uint8(2), "tools/list", []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`))
	f.Fuzz(func(t *testing.T, vi, from uint8, method string, raw []byte) {
		v := versionAt(vi)
		dir := spec.Direction(from % 4)
		a := schema.Validate(v, dir, method, raw)
		b := schema.Validate(v, dir, method, raw)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("two validations of the same input differ:\n%v\n%v", a, b)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil || len(bytes.TrimSpace(raw)) == 0 {
			return
		}
		c := schema.ValidateInstance(v, dir, method, inst)
		if !reflect.DeepEqual(a, c) {
			t.Fatalf("Validate and ValidateInstance disagree on %q:\n%v\n%v", raw, a, c)
		}
	})
}

// FuzzMCPDecode: decoding any bytes as the params or result of any method
// never panics.
func FuzzMCPDecode(f *testing.F) {
	f.Add("tools/call", true, []byte(`{"content":[]}`))
	f.Fuzz(func(t *testing.T, method string, result bool, data []byte) {
		if result {
			_, _ = mcp.DecodeResult(method, data)
		} else {
			_, _ = mcp.DecodeParams(method, data)
		}
	})
}

// FuzzJudge: the oracles never panic on whatever a target writes, and judge
// the same frame the same way twice.
func FuzzJudge(f *testing.F) {
	f.Add(uint8(4), []byte(`{"jsonrpc":"2.0","id":"mcpcheck-probe-1","result":{"resultType":"complete"}}`))
	f.Fuzz(func(t *testing.T, vi uint8, data []byte) {
		v := versionAt(vi)
		j1, j2 := oracle.NewJudge(v), oracle.NewJudge(v)
		for _, j := range []*oracle.Judge{j1, j2} {
			j.Sent([]byte(`{"jsonrpc":"2.0","id":"mcpcheck-probe-1","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}`))
		}
		a, b := j1.Received(conn.Frame{Data: data}), j2.Received(conn.Frame{Data: data})
		if !reflect.DeepEqual(a.Obs, b.Obs) || !reflect.DeepEqual(a.Answered, b.Answered) {
			t.Fatalf("two judges disagree on %q", data)
		}
	})
}

// FuzzGeneratedMessages bridges the generator property to coverage-guided
// fuzzing: whatever bytes the fuzzer invents, the message drawn from them
// is valid against our schema (see generatedMessageValid: under go test
// the bytes are rapid's bit stream).
func FuzzGeneratedMessages(f *testing.F) {
	f.Add(make([]byte, 16))
	f.Add([]byte("\x03\x00\x00\x00\x00\x00\x00\x00\x07\x01\x00\x00\x00\x00\x00\x00\x02"))
	f.Fuzz(func(t *testing.T, data []byte) { generatedMessageValid(t, data) })
}

// FuzzMinimize: Minimize always returns an input that still fails and is
// no larger, within its budget, for any input and failure predicate.
func FuzzMinimize(f *testing.F) {
	f.Add([]byte("a\nbX\x00c\n"), byte('X'), uint8(40))
	f.Fuzz(func(t *testing.T, data []byte, needle byte, budget uint8) {
		fails := func(b []byte) bool { return bytes.IndexByte(b, needle) >= 0 }
		if !fails(data) {
			return
		}
		calls := 0
		got := Minimize(mutate.Input{Chunks: [][]byte{data}}, func(in mutate.Input) bool { calls++; return fails(in.Bytes()) }, int(budget))
		if !fails(got.Bytes()) || got.Size() > len(data) || calls > int(budget) {
			t.Fatalf("Minimize(%q) = %q after %d calls (budget %d)", data, got.Bytes(), calls, budget)
		}
	})
}

// corpusFile renders one seed in the go test fuzz v1 format.
func corpusFile(values ...any) []byte {
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n")
	for _, v := range values {
		switch x := v.(type) {
		case uint8:
			fmt.Fprintf(&b, "byte(%s)\n", strconv.QuoteRune(rune(x)))
		case bool:
			fmt.Fprintf(&b, "bool(%t)\n", x)
		case string:
			fmt.Fprintf(&b, "string(%s)\n", strconv.Quote(x))
		case []byte:
			fmt.Fprintf(&b, "[]byte(%s)\n", strconv.Quote(string(x)))
		}
	}
	return b.Bytes()
}

func writeSeed(t *testing.T, target string, content []byte) {
	sum := sha256.Sum256(content)
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen-"+hex.EncodeToString(sum[:6])), content, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteSeedCorpora regenerates the committed seed corpora from valid
// generated messages (and a few mutated ones) when MCPCHECK_WRITE_CORPUS=1.
// It is deterministic: the same files every time.
func TestWriteSeedCorpora(t *testing.T) {
	if os.Getenv("MCPCHECK_WRITE_CORPUS") != "1" {
		t.Skip("set MCPCHECK_WRITE_CORPUS=1 to regenerate testdata/fuzz")
	}
	for vi, v := range spec.Versions {
		gens, err := gen.NewMessages(v)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 24; i++ {
			msg, err := gen.Example(gens.Any(), uint64(1000*vi+i))
			if err != nil {
				t.Fatal(err)
			}
			raw := msg.Raw()
			writeSeed(t, "FuzzSchemaValidate", corpusFile(uint8(vi), uint8(msg.From), msg.Method, raw))
			writeSeed(t, "FuzzJudge", corpusFile(uint8(vi), raw))
			var m map[string]json.RawMessage
			_ = json.Unmarshal(raw, &m)
			if p, ok := m["params"]; ok {
				writeSeed(t, "FuzzMCPDecode", corpusFile(msg.Method, false, []byte(p)))
			}
			if r, ok := m["result"]; ok {
				writeSeed(t, "FuzzMCPDecode", corpusFile(msg.Method, true, []byte(r)))
			}
		}
		for j, name := range mutate.MutatorNames() {
			if j%3 != vi%3 {
				continue
			}
			in, err := mutate.MakeInput(v, name, uint64(vi), nil)
			if err != nil || in.Size() > 4096 {
				continue
			}
			writeSeed(t, "FuzzSchemaValidate", corpusFile(uint8(vi), uint8(1), "", bytes.TrimSuffix(in.Bytes(), []byte("\n"))))
		}
	}
}
