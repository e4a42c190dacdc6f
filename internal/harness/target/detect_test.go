package target

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

func modernServer(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage
		Method string
	}
	json.Unmarshal(body, &m)
	w.Header().Set("Content-Type", "application/json")
	if m.Method != "server/discover" || r.Header.Get("Mcp-Protocol-Version") != "2026-07-28" {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2026-07-28"]}}}`, m.ID)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{}}}`, m.ID)
}

// A 2025-11-25 server: discover before initialize is a 400 with a
// non-modern error; initialize is answered on an SSE stream.
func streamableServer(deleted chan<- string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deleted <- r.Header.Get("Mcp-Session-Id")
			return
		}
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"initialize"`) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Mcp-Session-Id", "sess-9")
		io.WriteString(w, "id: p\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"mcpcheck-detect-2\",\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\n")
	}
}

func legacyServer(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: /messages?sessionId=1\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	default:
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func TestDetect(t *testing.T) {
	deleted := make(chan string, 1)
	cases := []struct {
		name string
		h    http.HandlerFunc
		want Transport
	}{
		{"modern", modernServer, Streamable},
		{"streamable", streamableServer(deleted), Streamable},
		{"legacy", legacyServer, SSE},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			defer srv.CloseClientConnections()
			d, err := Detect(ctxT(t, 30*time.Second), wire.HTTPOptions{URL: srv.URL + "/mcp"}, 20*time.Second)
			if err != nil || d.Transport != tc.want || d.Modern != (tc.name == "modern") {
				t.Fatalf("Detect = %v, %v (evidence %q), want %v", d.Transport, err, d.Evidence, tc.want)
			}
		})
	}
	select {
	case s := <-deleted:
		if s != "sess-9" {
			t.Errorf("DELETE carried session %q", s)
		}
	default:
		t.Error("the session opened by the initialize probe was not ended with DELETE")
	}
}

func TestDetectNothing(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := Detect(ctxT(t, 30*time.Second), wire.HTTPOptions{URL: srv.URL}, 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), "none of the MCP HTTP transports") {
		t.Fatalf("err = %v", err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	_, err = Detect(ctxT(t, 30*time.Second), wire.HTTPOptions{URL: "http://" + addr}, 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("err = %v", err)
	}
}

func TestHeadersFromEnv(t *testing.T) {
	tg := URL("http://127.0.0.1:1/mcp")
	tg.Headers = []Header{{Name: "Authorization", Env: "MCPCHECK_TEST_TOKEN"}, {Name: "X-Team", Value: "a"}}
	if _, err := tg.HTTPHeader(); err == nil || !strings.Contains(err.Error(), "MCPCHECK_TEST_TOKEN") {
		t.Fatalf("unset env: %v", err)
	}
	t.Setenv("MCPCHECK_TEST_TOKEN", "Bearer s3cret")
	h, err := tg.HTTPHeader()
	if err != nil || h.Get("Authorization") != "Bearer s3cret" || h.Get("X-Team") != "a" {
		t.Fatalf("%v %v", h, err)
	}
	if r := tg.Report(); strings.Contains(fmt.Sprint(r), "s3cret") || len(r.HeaderNames) != 2 {
		t.Errorf("report leaks or loses headers: %+v", r)
	}
	if err := (Target{Command: "x", URL: "http://a"}).Validate(); err == nil {
		t.Error("a target with both a command and a URL must not validate")
	}
}

// protectedEndpoint answers every request as an OAuth-protected MCP
// server does without a token: 401 with a Bearer challenge.
func protectedEndpoint(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp", scope="mcp"`)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	io.WriteString(w, `{"error":"unauthorized"}`)
}

// TestDetectProtectedEndpoint: an endpoint that asks for authorization is
// no endpoint that "speaks none of the MCP HTTP transports": detection
// stops at the 401, wraps wire.ErrUnauthorized, quotes the challenge and
// says how to give mcpcheck a token.
func TestDetectProtectedEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(protectedEndpoint))
	defer srv.Close()
	_, err := Detect(ctxT(t, 30*time.Second), wire.HTTPOptions{URL: srv.URL}, 20*time.Second)
	if !errors.Is(err, wire.ErrUnauthorized) {
		t.Fatalf("Detect on a 401 endpoint: err = %v; want one wrapping wire.ErrUnauthorized", err)
	}
	for _, want := range []string{"resource_metadata=", "--header-env Authorization:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "none of the MCP HTTP transports") {
		t.Errorf("a protected endpoint was called one that speaks no MCP transport: %v", err)
	}
}
