package authorization

import "testing"

// TestAuthUpperSchemeHost: only the scheme and host change case.
func TestAuthUpperSchemeHost(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/mcp":     "HTTP://127.0.0.1:8080/mcp",
		"https://example.com/a/Mcp?x=y": "HTTPS://EXAMPLE.COM/a/Mcp?x=y",
		"http://localhost:1?q=a":        "HTTP://LOCALHOST:1?q=a",
		"http://localhost":              "HTTP://LOCALHOST",
	} {
		if got := upperSchemeHost(in); got != want {
			t.Errorf("authUpperSchemeHost(%q) = %q, want %q", in, got, want)
		}
	}
}
