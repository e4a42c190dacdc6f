package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Security rules a client keeps that the wire shows: it fetches no URL an
// elicitation names on its own. seURLScenario sends a URL-mode
// elicitation whose URL points at a loopback listener of the suite's own
// (seConsent), which counts every request for it: a client that opens or
// previews the URL before (or without) the user's consent is caught there.

// seURLScenario sends a URL-mode elicitation to a client that declared it.
const seURLScenario = "mcpcheck-elicitation-url"

// seConsent is the process-wide listener the elicitation URLs point at; it
// counts requests per token and answers 204.
var seConsent struct {
	once sync.Once
	base string
	err  error
	mu   sync.Mutex
	hits map[string]int
}

// seConsentBase starts the listener (once) and returns its base URL.
func seConsentBase() (string, error) {
	seConsent.once.Do(func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			seConsent.err = fmt.Errorf("client suite: cannot listen on 127.0.0.1 for elicitation URLs: %w", err)
			return
		}
		seConsent.hits = map[string]int{}
		seConsent.base = "http://" + ln.Addr().String()
		srv := &http.Server{ReadHeaderTimeout: seConsentTimeout, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tok, ok := strings.CutPrefix(r.URL.Path, "/mcpcheck-consent/"); ok {
				seConsent.mu.Lock()
				if len(seConsent.hits) < 4096 {
					seConsent.hits[tok]++
				}
				seConsent.mu.Unlock()
			}
			w.WriteHeader(http.StatusNoContent)
		})}
		go func() { _ = srv.Serve(ln) }()
	})
	return seConsent.base, seConsent.err
}

// seConsentTimeout bounds a request head on the consent listener.
const seConsentTimeout = 5 * time.Second

// seHits returns how many requests asked for the URL of token.
func seHits(token string) int {
	seConsent.mu.Lock()
	defer seConsent.mu.Unlock()
	return seConsent.hits[token]
}

var _ = RegisterScenarios(Scenario{
	Name: seURLScenario, Since: spec.V20251125, Until: spec.V20251125,
	Title: "while serving the client's first request the stage sends a URL-mode elicitation (for a client that declared URL mode) whose URL points at a loopback page that counts its visitors",
	Stage: func(env Env) stage.Config {
		var asked atomic.Bool
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{echoTool}, Director: func(c *server.Call) (any, error, bool) {
			switch c.Method() {
			case spec.MethodInitialize, spec.MethodPing, spec.MethodServerDiscover:
				return nil, nil, false
			}
			if !c.ClientCapabilities().Elicitation.SupportsURL() || !asked.CompareAndSwap(false, true) {
				return nil, nil, false
			}
			base, err := seConsentBase()
			if err != nil {
				return nil, err, true
			}
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			tok := hex.EncodeToString(b)
			ctx, cancel := context.WithTimeout(c.Context(), askTimeout)
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = c.Request(spec.MethodElicitationCreate, map[string]any{"mode": "url", "message": "mcpcheck asks you to open a page (it counts its visitors)",
					"url": base + "/mcpcheck-consent/" + tok, "elicitationId": "mcpcheck-consent-" + tok})
			}()
			select {
			case <-done:
			case <-ctx.Done():
			}
			return nil, nil, false
		}}}
	},
})

var _ = Register(Def{
	ID: "client/security/url-not-fetched", Area: "security", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{seURLScenario},
	Title:        "the client fetches no URL an elicitation names on its own: the page counts no visit before the client answers",
	Requirements: []string{"security.elicitation.url-no-prefetch"},
	Proofs:       []Proof{{Fault: "elicitation-url-prefetch", Version: spec.V20251125, Want: reports.Fail}},
	Judge: func(t *T) {
		n, bad := 0, 0
		for _, c := range t.Cases() {
			for _, a := range elAnswers(c, spec.MethodElicitationCreate) {
				var p struct {
					URL string `json:"url"`
				}
				_ = json.Unmarshal(a.Request.Msg.Params, &p)
				i := strings.Index(p.URL, "/mcpcheck-consent/")
				if i < 0 {
					continue
				}
				tok := p.URL[i+len("/mcpcheck-consent/"):]
				n++
				if hits := seHits(tok); hits > 0 {
					bad++
					t.Fail("no request for the elicitation's URL from the client itself",
						fmt.Sprintf("the URL was requested %d time(s) while the client handled the elicitation (answered %s) (%s)", hits, excerpt(a.Response), c.Scenario.Name))
				}
			}
		}
		if n == 0 {
			t.NeedAction(false, "declare URL-mode elicitation and make a request after initialization")
			return
		}
		t.settle(n, bad, "", "%d URL elicitations, none fetched by the client")
	},
})
