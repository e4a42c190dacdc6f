package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// The native fuzz targets of this package. This file compiles on its own
// with the package's production files: OSS-Fuzz's compile_native_go_fuzzer
// (.clusterfuzzlite/build.sh) builds it alone.

// FuzzSessionMessages feeds arbitrary lines to a stdio session (after a
// handshake) and to the stateless path: the server must never panic and
// every line it writes must be a valid JSON-RPC message.
func FuzzSessionMessages(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ref_progress","arguments":{"steps":2},"_meta":{"progressToken":"t"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://template/1/data"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"abc"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":6,"result":{}}`,
		`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"test_input_required_result_multi_round","requestState":"x.y","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":""}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":1}}}`,
	} {
		f.Add([]byte(seed))
	}
	s, err := New(Options{StepDelay: -1, MaxMessageSize: 1 << 16, DrainGrace: 20 * time.Millisecond})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"f","version":"1"},"protocolVersion":"2025-11-25"}}`
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, b := range line {
			if b == '\n' || b == '\r' {
				return // one line per input
			}
		}
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- s.ServeStdio(context.Background(), inR, outW, io.Discard)
			outW.Close()
		}()
		lines := make(chan []byte, 64)
		go func() {
			defer close(lines)
			lr := jsonrpc.NewLineReader(outR, 0)
			for {
				b, err := lr.ReadLine()
				if err != nil {
					io.Copy(io.Discard, outR)
					return
				}
				lines <- b
			}
		}()
		io.WriteString(inW, init+"\n")
		inW.Write(append(append([]byte{}, line...), '\n'))
		inW.Close()
		var outs [][]byte
		for b := range lines {
			outs = append(outs, b)
		}
		if err := <-done; err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		for _, b := range outs {
			if m := jsonrpc.Decode(b); !m.Valid() && !(m.Shape.IsResponse() && m.IDNull) {
				t.Fatalf("server wrote an invalid message %q for input %q: %v", b, line, m.Problems)
			}
		}
	})
}

// FuzzHTTPPost feeds arbitrary bodies and header values to the HTTP
// handler's POST path (both eras): it must never panic and must answer
// with a status code and, when it says JSON, valid JSON.
func FuzzHTTPPost(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), "2026-07-28", "tools/list", "")
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ref_header_params","arguments":{"region":"eu"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), "2026-07-28", "tools/call", "ref_header_params")
	f.Add([]byte(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`), "", "", "")
	f.Add([]byte(`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`), "2025-03-26", "ping", "")
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "2026-07-28", "notifications/initialized", "")
	s, err := New(Options{StepDelay: -1, MaxMessageSize: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.HTTPHandler(HTTPOptions{})
	f.Fuzz(func(t *testing.T, body []byte, version, method, name string) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, "POST", "http://127.0.0.1/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range map[string]string{"MCP-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name, "Mcp-Param-Region": name} {
			if v != "" && validHeaderValue(v) {
				req.Header.Set(k, v)
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code < 200 || rec.Code > 599 {
			t.Fatalf("status %d", rec.Code)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && rec.Body.Len() > 0 && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("invalid JSON body %q for %q", rec.Body.Bytes(), body)
		}
	})
}

func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}
