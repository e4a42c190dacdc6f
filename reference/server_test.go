package reference_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reference"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// exchange serves s over stdio, sends lines, and returns the answers read
// until n have come (or a bounded wait ends), then closes the input and
// returns what ServeStdio returned.
func exchange(t *testing.T, s reference.Server, n int, lines ...string) ([]map[string]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW); outW.Close() }()
	go func() {
		for _, l := range lines {
			if _, err := io.WriteString(inW, l+"\n"); err != nil {
				return
			}
		}
	}()
	var got []map[string]any
	sc := bufio.NewScanner(outR)
	for len(got) < n && sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", sc.Text())
		}
		got = append(got, m)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case err := <-done:
		return got, err
	case <-ctx.Done():
		t.Fatal("ServeStdio did not return after its input ended")
	}
	return got, nil
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestServeStdioIsAConformingServer: over stdio the server negotiates the
// version asked for, answers ping with an empty result, and returns nil
// when its input ends.
func TestServeStdioIsAConformingServer(t *testing.T) {
	got, err := exchange(t, reference.Server{}, 2, initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if err != nil {
		t.Errorf("ServeStdio returned %v when its input ended, want nil", err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d answers, want 2: %v", len(got), got)
	}
	res, _ := got[0]["result"].(map[string]any)
	if res["protocolVersion"] != "2025-11-25" || res["serverInfo"] == nil {
		t.Errorf("initialize answered %v, want protocolVersion 2025-11-25 and serverInfo", got[0])
	}
	if r, ok := got[1]["result"].(map[string]any); !ok || len(r) != 0 || got[1]["id"] != float64(2) {
		t.Errorf("ping answered %v, want an empty result under id 2", got[1])
	}
}

// TestAFaultBreaksItsRequirement: with ping-nonempty-result switched on,
// ping's result is no longer empty; that fault names the requirement it
// breaks.
func TestAFaultBreaksItsRequirement(t *testing.T) {
	got, _ := exchange(t, reference.Server{Faults: []string{"ping-nonempty-result"}}, 2, initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if len(got) != 2 {
		t.Fatalf("got %d answers, want 2: %v", len(got), got)
	}
	if r, _ := got[1]["result"].(map[string]any); len(r) == 0 {
		t.Errorf("with ping-nonempty-result, ping answered %v; want a non-empty result", got[1])
	}
	found := false
	for _, f := range reference.Faults() {
		if f.Name == "ping-nonempty-result" {
			found = f.Requirement == "ping.response.prompt-empty-result"
		}
	}
	if !found {
		t.Error("Faults does not list ping-nonempty-result with requirement ping.response.prompt-empty-result")
	}
}

// TestUnknownFaultIsRefused: a fault name the server does not know is an
// error that names it, from ServeStdio and NewHandler alike, never a
// conforming server in its place.
func TestUnknownFaultIsRefused(t *testing.T) {
	s := reference.Server{Faults: []string{"no-such-fault"}}
	if err := s.ServeStdio(context.Background(), strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), "no-such-fault") {
		t.Errorf("ServeStdio with an unknown fault: %v, want an error naming it", err)
	}
	if h, err := s.NewHandler(); err == nil || !strings.Contains(err.Error(), "no-such-fault") {
		if h != nil {
			h.Close()
		}
		t.Errorf("NewHandler with an unknown fault: %v, want an error naming it", err)
	}
}

// TestFaultsCiteTheCatalog: every fault has a unique name, a description,
// and a requirement the catalog knows.
func TestFaultsCiteTheCatalog(t *testing.T) {
	faults := reference.Faults()
	if len(faults) < 50 {
		t.Fatalf("Faults lists %d faults; the reference server has well over 50", len(faults))
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range faults {
		if seen[f.Name] {
			t.Errorf("fault %s is listed twice", f.Name)
		}
		seen[f.Name] = true
		if f.Description == "" {
			t.Errorf("fault %s has no description", f.Name)
		}
		if _, ok := cat.Get(f.Requirement); !ok {
			t.Errorf("fault %s cites %q, which the catalog does not know", f.Name, f.Requirement)
		}
	}
}

// TestHandlerServesStreamableHTTP: the handler answers initialize at /mcp
// with a session, and refuses requests once closed.
func TestHandlerServesStreamableHTTP(t *testing.T) {
	h, err := reference.Server{JSONResponses: true}.NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // binds 127.0.0.1
	defer srv.Close()
	post := func() *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post()
	var body map[string]any
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err != nil || resp.Header.Get("Mcp-Session-Id") == "" || body["result"] == nil {
		t.Errorf("POST initialize: status %d, session %q, body %v (%v); want 200, a session id and a result", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body, err)
	}
	if err := h.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	resp = post()
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Error("POST initialize after Close answered 200; a closed server refuses requests")
	}
}
