package session

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// statelessServer is a 2026-07-28 server that validates the required
// headers against the body and needs one elicitation round before it
// answers tools/call.
type statelessServer struct {
	mu   sync.Mutex
	ids  []string
	errs []string
}

func (s *statelessServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage
		Method string
		Params struct {
			Meta           map[string]json.RawMessage `json:"_meta"`
			Name           string
			Arguments      map[string]any
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			RequestState   string                     `json:"requestState"`
		}
	}
	json.Unmarshal(body, &m)
	s.mu.Lock()
	s.ids = append(s.ids, string(m.ID))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	reject := func(why string) {
		s.mu.Lock()
		s.errs = append(s.errs, why)
		s.mu.Unlock()
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32020,"message":%q}}`, m.ID, why)
	}
	var pv string
	json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &pv)
	switch {
	case pv == "" || m.Params.Meta["io.modelcontextprotocol/clientCapabilities"] == nil:
		reject("missing _meta")
		return
	case r.Header.Get("Mcp-Protocol-Version") != pv:
		reject("MCP-Protocol-Version does not match _meta")
		return
	case r.Header.Get("Mcp-Method") != m.Method:
		reject("Mcp-Method does not match")
		return
	}
	switch m.Method {
	case "server/discover":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private"}}`, m.ID)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[{"name":"book","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}}`, m.ID)
	case "tools/call":
		if r.Header.Get("Mcp-Name") != m.Params.Name {
			reject("Mcp-Name does not match")
			return
		}
		if region, _ := m.Params.Arguments["region"].(string); r.Header.Get("Mcp-Param-Region") != mcp.EncodeHeaderValue(region) {
			reject("Mcp-Param-Region does not match")
			return
		}
		if m.Params.RequestState == "" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","requestState":"st-1","inputRequests":{"who":{"method":"elicitation/create","params":{"mode":"form","message":"who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}}`, m.ID)
			return
		}
		var er mcp.ElicitResult
		json.Unmarshal(m.Params.InputResponses["who"], &er)
		if m.Params.RequestState != "st-1" || er.Action != mcp.ActionAccept {
			reject("bad round two")
			return
		}
		var name string
		json.Unmarshal(er.Content["name"], &name)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[{"type":"text","text":"booked for %s"}]}}`, m.ID, name)
	default:
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
	}
}

func TestStatelessHeadersMetaAndMRTR(t *testing.T) {
	fake := &statelessServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	conn, err := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s := NewStateless(conn, Config{})
	ctx := ctxT(t)
	d, _, err := s.Discover(ctx)
	if err != nil || len(d.SupportedVersions) != 1 || s.ServerCapabilities().Tools == nil {
		t.Fatalf("discover: %v %+v", err, d)
	}
	if r := s.Call(ctx, "tools/list", nil); !r.OK() {
		t.Fatal(r.Describe())
	}
	r := s.Call(ctx, "tools/call", map[string]any{"name": "book", "arguments": map[string]any{"region": "eu west 1 "}})
	if !r.OK() || len(r.Rounds) != 1 || !strings.Contains(string(r.Result), "booked for") {
		t.Fatalf("tools/call: %s (rounds %d) %s", r.Describe(), len(r.Rounds), r.Result)
	}
	if r.Rounds[0].ID == r.ID {
		t.Error("the second round must use a fresh id")
	}
	if len(fake.errs) != 0 {
		t.Errorf("the server rejected: %v", fake.errs)
	}
	if fs := s.Findings(); len(fs) != 0 {
		t.Errorf("findings: %v", fs)
	}
	// A deliberately wrong header is rejected, and the rejection is a reply
	// to judge, not a Go error.
	id := s.NextID()
	p, _ := s.Params(nil)
	h, _ := s.Headers(spec.MethodToolsList, p)
	h.Set("Mcp-Method", "prompts/list")
	stream, err := s.RequestRaw(ctx, id, spec.MethodToolsList, p, h)
	if err != nil {
		t.Fatal(err)
	}
	reply := s.waitResponse(ctx, id, spec.MethodToolsList, stream)
	if reply.Error == nil || reply.Error.Code != -32020 || reply.Observed.Frame.Status() != 400 {
		t.Fatalf("%+v", reply.Observed)
	}
}

func TestProbeEra(t *testing.T) {
	conn, _ := startFake(t, "")
	era, why, err := ProbeEra(ctxT(t), conn, 0)
	if err != nil || era != spec.Stateful || !strings.Contains(why, "-32601") {
		t.Fatalf("%v %q %v", era, why, err)
	}
}

// A server that asks for input forever: the loop stops after MaxRounds
// with an error that says so.
func TestMRTRIsBounded(t *testing.T) {
	checkGoroutines(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct{ ID json.RawMessage }
		json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","requestState":"again","inputRequests":{"r":{"method":"roots/list"}}}}`, m.ID)
	}))
	defer srv.Close()
	conn, _ := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL})
	defer conn.Close()
	s := NewStateless(conn, Config{MaxRounds: 3})
	r := s.Call(ctxT(t), "tools/call", map[string]any{"name": "loop"})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "after 3 rounds") || len(r.Rounds) != 2 {
		t.Fatalf("%v rounds=%d", r.Err, len(r.Rounds))
	}
}

func TestProbeEraModernAndSilent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		want  spec.Era
	}{
		{"discover result", `{"jsonrpc":"2.0","id":"mcpcheck-probe","result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{}}}`, spec.Stateless},
		{"modern error", `{"jsonrpc":"2.0","id":"mcpcheck-probe","error":{"code":-32022,"message":"unsupported","data":{"supported":["2027-01-01"]}}}`, spec.Stateless},
		{"silent", "", spec.Stateful},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, peer := wire.Pipe(wire.Limits{})
			defer conn.Close()
			go func() {
				buf := make([]byte, 4096)
				peer.Read(buf)
				if tc.reply != "" {
					io.WriteString(peer, tc.reply+"\n")
				}
			}()
			wait := 30 * time.Second
			if tc.reply == "" {
				wait = 200 * time.Millisecond // silence is the outcome under test
			}
			era, why, err := ProbeEra(ctxT(t), conn, wait)
			if err != nil || era != tc.want {
				t.Fatalf("%v %q %v", era, why, err)
			}
		})
	}
}
