package target

import (
	"strings"
	"testing"
)

// TestValidateAuthFields: an authorization issuer is an http(s) URL and an
// authorization upstream a loopback host:port, both for URL targets only.
func TestValidateAuthFields(t *testing.T) {
	ok := URL("http://127.0.0.1:3000/mcp")
	ok.AuthIssuer, ok.AuthUpstream = "http://127.0.0.1:9000", "127.0.0.1:9001"
	if err := ok.Validate(); err != nil {
		t.Fatalf("a valid issuer and upstream: %v", err)
	}
	for _, c := range []struct {
		tg   Target
		want string
	}{
		{Target{URL: "http://127.0.0.1:3000/mcp", AuthIssuer: "ftp://x"}, "not an http"},
		{Target{Command: "x", AuthIssuer: "http://127.0.0.1:9000"}, "applies to an HTTP target"},
		{Target{URL: "http://127.0.0.1:3000/mcp", AuthUpstream: "127.0.0.1"}, "host:port"},
		{Target{URL: "http://127.0.0.1:3000/mcp", AuthUpstream: "127.0.0.1:0"}, "host:port"},
		{Target{URL: "http://127.0.0.1:3000/mcp", AuthUpstream: "10.0.0.1:9001"}, "not a loopback"},
		{Target{Command: "x", AuthUpstream: "127.0.0.1:9001"}, "applies to an HTTP target"},
	} {
		if err := c.tg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.tg, err, c.want)
		}
	}
}
