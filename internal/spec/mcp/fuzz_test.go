package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The native fuzz targets of this package. This file compiles on its own
// with the package's production files: OSS-Fuzz's compile_native_go_fuzzer
// (.clusterfuzzlite/build.sh) builds it alone.

// FuzzDecodeEncode checks that any params or result that decodes also
// encodes, and that encoding is stable: decoding the encoding and encoding
// again gives the same bytes. Seeds are the messages under testdata/.
func FuzzDecodeEncode(f *testing.F) {
	methods := RegisteredMethods()
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var msgs []wireMessage
		if err := json.Unmarshal(b, &msgs); err != nil {
			f.Fatal(err)
		}
		for _, m := range msgs {
			if m.Method != nil && m.Params != nil {
				f.Add(indexOf(methods, *m.Method), false, []byte(m.Params))
			}
			if m.Result != nil {
				for i := range methods {
					f.Add(i, true, []byte(m.Result))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, mi int, result bool, data []byte) {
		if mi < 0 || mi >= len(methods) {
			return
		}
		method := methods[mi]
		decode := func(b []byte) (any, error) {
			if result {
				return DecodeResult(method, b)
			}
			return DecodeParams(method, b)
		}
		v, err := decode(data)
		if err != nil {
			return
		}
		first, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: decoded %T from %q but cannot encode it: %v", method, v, data, err)
		}
		v2, err := decode(first)
		if err != nil {
			t.Fatalf("%s: cannot decode own encoding %s: %v", method, first, err)
		}
		second, err := json.Marshal(v2)
		if err != nil {
			t.Fatalf("%s: second encode: %v", method, err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("%s: encoding is not stable:\n first %s\nsecond %s", method, first, second)
		}
	})
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// wireMessage is the JSON-RPC envelope as the round-trip test (and
// FuzzDecodeEncode's seeding) reads it.
type wireMessage struct {
	JSONRPC *string          `json:"jsonrpc"`
	ID      json.RawMessage  `json:"id"`
	Method  *string          `json:"method"`
	Params  json.RawMessage  `json:"params"`
	Result  json.RawMessage  `json:"result"`
	Error   *json.RawMessage `json:"error"`
}
