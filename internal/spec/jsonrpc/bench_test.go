package jsonrpc

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

var (
	benchSmallRequest = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`)
	benchToolsList    = makeToolsList(64 << 10)
)

// makeToolsList builds a tools/list-like response of about size bytes.
func makeToolsList(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":"req-1","result":{"tools":[`)
	for i := 0; b.Len() < size-200; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"Does thing number %d, with \"quotes\" and unicode é.","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer","minimum":0}},"required":["a"]}}`, i, i)
	}
	b.WriteString(`],"nextCursor":"abc"}}`)
	return []byte(b.String())
}

func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct {
		name string
		in   []byte
		kind Kind
	}{
		{"small-request", benchSmallRequest, KindRequest},
		{"tools-list-64KiB", benchToolsList, KindResponse},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if m := Decode(bc.in); m.Kind != bc.kind {
				b.Fatalf("benchmark input decodes as %s: %v", m.Kind, m.Problems)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				Decode(bc.in)
			}
		})
	}
}

func BenchmarkNewRequest(b *testing.B) {
	params := map[string]any{"name": "get_weather", "arguments": map[string]string{"city": "Paris"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewRequest(IntID(42), "tools/call", params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLineReader(b *testing.B) {
	line := append(append([]byte{}, benchSmallRequest...), '\n')
	var all []byte
	for len(all) < 1<<20 {
		all = append(all, line...)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(all)))
	for b.Loop() {
		lr := NewLineReader(strings.NewReader(string(all)), 0)
		for {
			if _, err := lr.ReadLine(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
