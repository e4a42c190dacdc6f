package fuzz

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// httpServer is the careful test server behind streamable HTTP, in
// process. Fault "500-on-garbage" answers a body that is not JSON with a
// server error.
func httpServer(t testing.TB, v spec.Version, fault string) *httptest.Server {
	var mu sync.Mutex
	sessions := map[string]bool{}
	n := 0
	stateful := v.Era() == spec.Stateful && v != spec.V20241105
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		switch r.Method {
		case http.MethodPost:
		case http.MethodDelete:
			mu.Lock()
			delete(sessions, sid)
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		fail := func(status int, code int64, msg string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write(errorReply(nil, code, msg))
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			fail(http.StatusUnsupportedMediaType, jsonrpc.InvalidRequest, "Content-Type must be application/json")
			return
		}
		if pv := r.Header.Values("Mcp-Protocol-Version"); len(pv) > 1 || (len(pv) == 1 && pv[0] != string(v)) {
			fail(http.StatusBadRequest, jsonrpc.InvalidRequest, "unsupported MCP-Protocol-Version")
			return
		}
		msg := jsonrpc.Decode(body)
		if msg.Has(jsonrpc.ReasonNotJSON) && fault == "500-on-garbage" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		isInit := msg.Shape == jsonrpc.KindRequest && msg.Method == spec.MethodInitialize
		if stateful && !isInit {
			mu.Lock()
			ok := sessions[sid]
			mu.Unlock()
			if sid == "" || len(r.Header.Values("Mcp-Session-Id")) > 1 {
				fail(http.StatusBadRequest, jsonrpc.InvalidRequest, "Mcp-Session-Id required")
				return
			}
			if !ok {
				fail(http.StatusNotFound, jsonrpc.InvalidRequest, "unknown session")
				return
			}
		}
		replies := handle(v, "", bytes.TrimSpace(body))
		if len(replies) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if stateful && isInit {
			mu.Lock()
			n++
			sid = fmt.Sprintf("session-%d", n)
			sessions[sid] = true
			mu.Unlock()
			w.Header().Set("Mcp-Session-Id", sid)
		}
		w.Header().Set("Content-Type", "application/json")
		if m := jsonrpc.Decode(replies[0]); m.IDNull {
			w.WriteHeader(http.StatusBadRequest)
		}
		_, _ = w.Write(replies[0])
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPCampaignCarefulServerIsClean(t *testing.T) {
	for _, v := range []spec.Version{spec.V20250326, spec.V20251125, spec.V20260728} {
		t.Run(string(v), func(t *testing.T) {
			srv := httpServer(t, v, "")
			res, err := Run(context.Background(), Config{Target: HTTPTarget{URL: srv.URL + "/mcp"}, Version: v, MaxExecs: 150, Seed: 9, Wait: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				t.Errorf("finding on the careful HTTP server: %s %s (%s seed %d): %s", f.Kind, f.Check, f.Mutator, f.Seed, f.Message)
			}
			if res.Mutators["http/forged-session"]+res.Mutators["http/wrong-method"]+res.Mutators["http/missing-accept"] == 0 {
				t.Errorf("no HTTP mutator ran: %v", res.Mutators)
			}
			for name := range res.Mutators {
				if LookupFamily(name) == "framing" {
					t.Errorf("framing mutator %s ran against an HTTP target", name)
				}
			}
		})
	}
}

func TestHTTPCampaignFindsServerErrorAndDeadServer(t *testing.T) {
	v := spec.V20251125
	srv := httpServer(t, v, "500-on-garbage")
	res, err := Run(context.Background(), Config{Target: HTTPTarget{URL: srv.URL}, Version: v, MaxExecs: 6, Seed: 1, Mutators: []string{"bytes/garbage-line"}, Wait: 10 * time.Second, MinimizeBudget: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || res.Findings[0].Check != "http/status-500" || !res.Findings[0].Reproduced {
		t.Fatalf("want a reproduced http/status-500 finding, got %+v", res.Findings)
	}
	if r := res.Findings[0].Reproducer; !strings.Contains(r, "--url "+srv.URL) {
		t.Errorf("reproducer %q does not name the URL", r)
	}
	if s := res.Summary(nil, 10); s.Findings[0].Reproducer != res.Findings[0].Reproducer {
		t.Errorf("summary reproducer %q", s.Findings[0].Reproducer)
	}
	// A server that is gone: the target cannot even start a session.
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	if _, err := Run(context.Background(), Config{Target: HTTPTarget{URL: url}, Version: v, MaxExecs: 1}); err == nil {
		t.Error("a campaign against a closed port started")
	}
	_ = reports.FindingCrash
}
