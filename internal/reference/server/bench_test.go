package server

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// benchStdio starts ServeStdio on pipes and returns a round-trip function.
func benchStdio(b *testing.B) func(line []byte) []byte {
	s, err := New(Options{StepDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		s.ServeStdio(ctx, inR, outW, io.Discard)
		outW.Close()
		close(done)
	}()
	br := bufio.NewReaderSize(outR, 1<<16)
	b.Cleanup(func() {
		inW.Close()
		<-done
		cancel()
		s.Close()
	})
	rt := func(line []byte) []byte {
		if _, err := inW.Write(line); err != nil {
			b.Fatal(err)
		}
		resp, err := br.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	rt(append(rpc(0, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "b", "version": "1"}}), '\n'))
	inW.Write(append(note("notifications/initialized", nil), '\n'))
	return rt
}

func benchLines(method string, params any, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = append(rpc(i+1, method, params), '\n')
	}
	return out
}

func BenchmarkStdioPing(b *testing.B) {
	rt := benchStdio(b)
	lines := benchLines("ping", nil, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rt(lines[i%len(lines)])
	}
}

func BenchmarkStdioToolsCall(b *testing.B) {
	rt := benchStdio(b)
	lines := benchLines("tools/call", map[string]any{"name": "test_simple_text"}, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rt(lines[i%len(lines)])
	}
}

// benchHTTP starts the handler on a loopback httptest server and returns
// a round-trip function over one initialized session.
func benchHTTP(b *testing.B, o HTTPOptions) func(body []byte) {
	s, err := New(Options{StepDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s.HTTPHandler(o))
	b.Cleanup(func() { ts.Close(); s.Close() })
	client := ts.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 16
	var sid string
	post := func(body []byte) {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", string(spec.V20251125))
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if sid == "" {
			sid = resp.Header.Get("Mcp-Session-Id")
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	post(rpc(0, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "b", "version": "1"}}))
	post(note("notifications/initialized", nil))
	return post
}

func benchHTTPCall(b *testing.B, o HTTPOptions, method string, params any) {
	post := benchHTTP(b, o)
	bodies := make([][]byte, 1024)
	for i := range bodies {
		bodies[i] = rpc(i+1, method, params)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		post(bodies[i%len(bodies)])
	}
}

func BenchmarkHTTPPing(b *testing.B) { benchHTTPCall(b, HTTPOptions{}, "ping", nil) }
func BenchmarkHTTPPingJSON(b *testing.B) {
	benchHTTPCall(b, HTTPOptions{JSONResponses: true}, "ping", nil)
}
func BenchmarkHTTPToolsCall(b *testing.B) {
	benchHTTPCall(b, HTTPOptions{}, "tools/call", map[string]any{"name": "test_simple_text"})
}
func BenchmarkHTTPToolsCallJSON(b *testing.B) {
	benchHTTPCall(b, HTTPOptions{JSONResponses: true}, "tools/call", map[string]any{"name": "test_simple_text"})
}

// BenchmarkHTTPPingParallel measures throughput with 16 concurrent
// sessions' worth of clients sharing one server.
func BenchmarkHTTPPingParallel(b *testing.B) {
	s, err := New(Options{StepDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s.HTTPHandler(HTTPOptions{JSONResponses: true}))
	b.Cleanup(func() { ts.Close(); s.Close() })
	client := ts.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var sid string
		post := func(body []byte) {
			req, _ := http.NewRequest("POST", ts.URL+"/mcp", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if sid != "" {
				req.Header.Set("Mcp-Session-Id", sid)
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			if sid == "" {
				sid = resp.Header.Get("Mcp-Session-Id")
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		post(rpc(0, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "b", "version": "1"}}))
		i := 0
		for pb.Next() {
			i++
			post([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`))
		}
	})
}
