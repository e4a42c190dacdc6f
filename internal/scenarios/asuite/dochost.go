package asuite

import (
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"time"
)

// docHost serves the client ID metadata documents of the CIMD checks on a
// loopback port and counts how often each is fetched. An authorization
// server on another machine cannot reach it: its CIMD checks then end
// untestable.
type docHost struct {
	base string
	srv  *http.Server

	mu    sync.Mutex
	docs  map[string]docSpec
	count map[string]int
}

// docSpec is one hosted document.
type docSpec struct {
	redirect string // its only redirect URI; none when empty
	clientID string // the client_id it names; its own URL when empty
	raw      string // served as is instead of a JSON document
	cache    string // its Cache-Control header; "no-store" when empty
}

func startDocHost() (*docHost, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &docHost{base: "http://" + ln.Addr().String(), docs: map[string]docSpec{}, count: map[string]int{}}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = h.srv.Serve(ln) }()
	return h, nil
}

func (h *docHost) close() { _ = h.srv.Close() }

// add hosts a document and returns its URL, the client_id it stands for.
func (h *docHost) add(d docSpec) string {
	u := h.base + "/clients/" + randomString(6) + "/client.json"
	h.mu.Lock()
	h.docs[u] = d
	h.mu.Unlock()
	return u
}

// fetches is how often the document at u was fetched.
func (h *docHost) fetches(u string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count[u]
}

// ServeHTTP serves a hosted document.
func (h *docHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u := h.base + r.URL.Path
	h.mu.Lock()
	d, ok := h.docs[u]
	if ok {
		h.count[u]++
	}
	h.mu.Unlock()
	if !ok || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	cc := d.cache
	if cc == "" {
		cc = "no-store"
	}
	w.Header().Set("Cache-Control", cc)
	w.Header().Set("Content-Type", "application/json")
	if d.raw != "" {
		_, _ = w.Write([]byte(d.raw))
		return
	}
	doc := map[string]any{"client_id": u, "client_name": "mcpcheck authserver-check", "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}}
	if d.clientID != "" {
		doc["client_id"] = d.clientID
	}
	if d.redirect != "" {
		doc["redirect_uris"] = []string{d.redirect}
	}
	_ = json.NewEncoder(w).Encode(doc)
}
