package transport

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The HTTP+SSE transport of 2024-11-05: the HTTP client is given the
// stage's SSE endpoint; after the endpoint event on that stream it must
// POST every message to the URI the event announced.

const scenSSEEndpoint = "mcpcheck-sse-endpoint"

var _ = client.RegisterScenarios(client.Scenario{
	Name: scenSSEEndpoint, Until: spec.V20241105, Transports: streamableOnly,
	Title: "the stage serves the 2024-11-05 HTTP+SSE transport and gives the client its SSE endpoint, whose endpoint event names the URI to POST to",
	Stage: func(client.Env) stage.Config {
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{client.EchoTool}}, HTTP: server.HTTPOptions{LegacySSE: true}, Middleware: refuseProbe()}
	},
	URL: func(c *stage.Case) string { return c.SSEURL() },
})

var _ = client.Register(client.OnlyIf(client.Def{
	ID: "client/transport-sse/endpoint-uri", Area: "transport-sse", Until: spec.V20241105, Transports: streamableOnly,
	Scenarios:    []string{scenSSEEndpoint},
	Title:        "after the endpoint event the client POSTs every message to the URI it announced",
	Requirements: []string{"transport-sse.post.client-uses-endpoint-uri"},
	Proofs:       []client.Proof{{Fault: "sse-post-without-session", Transport: client.Streamable, Want: reports.Fail}},
	Body: func(t *client.T) {
		n, bad, endpoints := 0, 0, 0
		for _, c := range t.Cases() {
			var announced []*url.URL
			for _, e := range c.Events {
				switch {
				case e.From == stage.FromStage && e.Kind == wire.KindEndpoint:
					endpoints++
					if u, err := url.Parse(strings.TrimSpace(string(e.Raw))); err == nil {
						announced = append(announced, u)
					}
				case e.From == stage.FromClient && e.HTTP != nil && len(announced) > 0 && isRPC(e):
					n++
					why := ""
					switch {
					case e.HTTP.Method != http.MethodPost:
						why = fmt.Sprintf("%s carried a message with HTTP %s", describe(e), e.HTTP.Method)
					case !sseAnnounced(announced, e.HTTP.URL):
						why = fmt.Sprintf("%s went to %s, not to the announced %s", describe(e), e.HTTP.URL, announced[len(announced)-1])
					}
					if why != "" {
						bad++
						if bad <= 10 {
							t.Fail("every message after the endpoint event is POSTed to the URI it announced", why+" ("+c.Scenario.Name+")")
						}
					}
				}
			}
		}
		if endpoints == 0 {
			t.NeedAction(false, "open the SSE stream it was given (GET) and wait for the endpoint event")
			return
		}
		t.Settle(n, bad, "the client sent no message after the endpoint event", "%d messages, each POSTed to the announced URI")
	},
}, client.SpeaksSSE))

// refuseProbe answers a POST to the SSE endpoint, the probe of a client
// that supports both HTTP transports (it tries streamable HTTP first, as
// the 2025-03-26 backwards-compatibility advice says), with 405 as a
// server of the old transport does. The refusal carries a session id of
// its own, so that the checks, which group HTTP exchanges by session id
// (Case.Session), file the probe apart from the HTTP+SSE session: its
// initialize is no reused id there and no unanswered initialize.
func refuseProbe() func(http.Handler) http.Handler {
	var mu sync.Mutex
	probes := 0
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != "/sse" {
				next.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			probes++
			n := probes
			mu.Unlock()
			w.Header().Set(hdrSession, fmt.Sprintf("mcpcheck-probe-%d", n))
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "Method Not Allowed: this is the SSE endpoint of the 2024-11-05 HTTP+SSE transport; open it with GET", http.StatusMethodNotAllowed)
		})
	}
}

// sseAnnounced reports whether a request URL, as the stage recorded it
// (without the case's path prefix), is one of the announced endpoint URIs:
// the announced path ends with the recorded one and the queries are equal.
func sseAnnounced(announced []*url.URL, recorded string) bool {
	r, err := url.Parse(recorded)
	if err != nil || r.Path == "" || r.Path == "/" {
		return false
	}
	for _, a := range announced {
		if strings.HasSuffix(a.Path, r.Path) && sameQuery(a.Query(), r.Query()) {
			return true
		}
	}
	return false
}

func sameQuery(a, b url.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, vs := range a {
		ws := b[k]
		if len(ws) != len(vs) {
			return false
		}
		for i := range vs {
			if vs[i] != ws[i] {
				return false
			}
		}
	}
	return true
}
