package session

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// TestHandshakeOnAProtectedServer: an initialize answered with HTTP 401
// (an OAuth-protected server given no token) is no broken handshake and
// no invalid JSON-RPC: the error wraps ErrUnauthorized, quotes the
// challenge and says how to give mcpcheck a token.
func TestHandshakeOnAProtectedServer(t *testing.T) {
	checkGoroutines(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"unauthorized"}`)
	}))
	defer srv.Close()
	conn, err := wire.NewHTTP(wire.HTTPOptions{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s := NewStateful(conn, Config{})
	_, r, err := s.Initialize(ctxT(t), nil)
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("initialize answered 401: err = %v; want one wrapping ErrUnauthorized", err)
	}
	if r.Observed.Unauthorized() == nil {
		t.Errorf("the reply's observation does not say the target asks for authorization: %+v", r.Observed)
	}
	for _, want := range []string{"resource_metadata=", "--header-env"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "jsonrpc") {
		t.Errorf("the 401's body was judged as JSON-RPC: %v", err)
	}
}
