package reports

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

// The secrets sampleRun plants: in HTTP headers (Authorization, Cookie,
// Set-Cookie, the user's X-Custom-Auth), a URL query, JSON bodies (also
// nested inside a JSON string), Bearer strings in free text, a --token flag,
// an --api-key flag, an inline --header value and a literal secret passed
// in Options.
var plantedSecrets = []string{
	"SECRET-AUTH-HEADER", "SECRET-COOKIE", "SECRET-SET-COOKIE", "SECRET-CUSTOM-HEADER",
	"SECRET-QUERY-TOKEN", "SECRET-JSON-ACCESS", "SECRET-JSON-REFRESH", "SECRET-NESTED",
	"SECRET-BEARER-IN-NOTE", "SECRET-BEARER-IN-ACTUAL", "SECRET-REPRO-TOKEN",
	"sk-live-0123456789", "hunter2hunter2", "SECRET-IN-BYTES",
}

var base64RE = regexp.MustCompile(`"raw": "([A-Za-z0-9+/=]+)",\s*"base64": true`)

func TestRedactionReachesEveryWriter(t *testing.T) {
	run := sampleRun(t)
	// A secret inside bytes that are not UTF-8: only visible once decoded.
	raw, _ := RawBytes([]byte("\xff{\"password\":\"SECRET-IN-BYTES\"}"))
	run.Checks[1].Transcript = append(run.Checks[1].Transcript, WireEvent{Direction: Received, Raw: raw, Base64: true})

	for name, out := range writeAll(t, run, testOptions(t)) {
		texts := []string{out}
		if name == "json" {
			for _, m := range base64RE.FindAllStringSubmatch(out, -1) {
				b, err := base64.StdEncoding.DecodeString(m[1])
				if err != nil {
					t.Fatalf("json: base64 raw does not decode: %v", err)
				}
				texts = append(texts, string(b))
			}
		}
		for _, text := range texts {
			for _, s := range plantedSecrets {
				if strings.Contains(text, s) {
					t.Errorf("%s output leaks the secret %q", name, s)
				}
			}
		}
	}
	// The caller's run still has them: Redact works on a copy.
	if !strings.Contains(run.Checks[8].Transcript[0].HTTP.Headers["Authorization"][0], "SECRET-AUTH-HEADER") {
		t.Error("Redact modified the caller's run")
	}
}

func TestRedactText(t *testing.T) {
	r := newRedactor(Redaction{Headers: []string{"X-Tenant-Key"}, Secrets: []string{"s3cr3t-literal", "ab"}})
	cases := []struct{ in, want string }{
		{`{"access_token":"abc","token_type":"Bearer"}`, `{"access_token":"[REDACTED]","token_type":"Bearer"}`},
		{`{"refresh_token" : "a\"b"}`, `{"refresh_token" : "[REDACTED]"}`},
		{`{"id_token":"x","client_secret":"y","password":"z","api_key":"k","apiKey":"k2","token":"t"}`,
			`{"id_token":"[REDACTED]","client_secret":"[REDACTED]","password":"[REDACTED]","api_key":"[REDACTED]","apiKey":"[REDACTED]","token":"[REDACTED]"}`},
		{`{"x-tenant-key":"v"}`, `{"x-tenant-key":"[REDACTED]"}`},
		// Protocol fields that merely contain "token" stay visible.
		{`{"progressToken":"p1","max_tokens":5,"nextCursor":"c"}`, `{"progressToken":"p1","max_tokens":5,"nextCursor":"c"}`},
		{`"text":"{\"password\":\"pw\"}"`, `"text":"{\"password\":\"[REDACTED]\"}"`},
		{"Authorization: Bearer eyJhbGciOi.abc-def_ghi", "Authorization: [REDACTED]"},
		{"X-Tenant-Key: tk-123\r\nAccept: */*", "X-Tenant-Key: [REDACTED]\r\nAccept: */*"},
		{"the server said Bearer abc.def=", "the server said Bearer [REDACTED]"},
		{"a forged bearer token gets 401 with a Bearer challenge", "a forged bearer token gets 401 with a Bearer challenge"},
		// A challenge's auth-params and error codes are no credential.
		{`WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource", scope="mcp"`, `WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource", scope="mcp"`},
		{`Bearer error=invalid_token, Bearer realm=x`, `Bearer error=invalid_token, Bearer realm=x`},
		{"403 with a Bearer insufficient_scope challenge", "403 with a Bearer insufficient_scope challenge"},
		{"tokens Bearer abc= and Bearer def==, then Bearer ghi", "tokens Bearer [REDACTED] and Bearer [REDACTED], then Bearer [REDACTED]"},
		{"Basic dXNlcjpwYXNz", "Basic [REDACTED]"},
		{"GET /cb?code=1&access_token=tok&state=s", "GET /cb?code=1&access_token=[REDACTED]&state=s"},
		{"grant_type=refresh_token&refresh_token=r1&client_secret=cs", "grant_type=refresh_token&refresh_token=[REDACTED]&client_secret=[REDACTED]"},
		{"GITHUB_TOKEN=ghp_x ./server", "GITHUB_TOKEN=[REDACTED] ./server"},
		{"https://user:pa55@host/mcp", "https://user:[REDACTED]@host/mcp"},
		{"contains s3cr3t-literal here; ab stays", "contains [REDACTED] here; ab stays"},
		{"the basic lifecycle and the token were fine", "the basic lifecycle and the token were fine"},
	}
	for _, c := range cases {
		if got := r.text(c.in); got != c.want {
			t.Errorf("text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := r.text(r.text(c.in)); again != c.want {
			t.Errorf("redaction is not idempotent on %q: %q", c.in, again)
		}
	}
	cmds := []struct{ in, want string }{
		{`srv --token abc --verbose`, `srv --token [REDACTED] --verbose`},
		{`srv --api-key=abc`, `srv --api-key=[REDACTED]`},
		{`srv --header "X-Tenant-Key: abc def" --x`, `srv --header "X-Tenant-Key: [REDACTED]" --x`},
		{`srv --header 'Authorization: Bearer abc'`, `srv --header 'Authorization: [REDACTED]'`},
	}
	for _, c := range cmds {
		if got := r.command(c.in); got != c.want {
			t.Errorf("command(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestRedactHTTPHeadersByName(t *testing.T) {
	run := &Run{Target: Target{HeaderNames: []string{"X-From-Target"}}, Checks: []Check{{ID: "a", Outcome: Pass, Transcript: []WireEvent{{
		Direction: Sent, HTTP: &HTTPInfo{Headers: map[string][]string{
			"authorization": {"a"}, "COOKIE": {"c"}, "X-From-Target": {"t"}, "X-From-Options": {"o"}, "Accept": {"application/json"},
		}},
	}}}}}
	run.Target.URL = "https://alice:pa55w0rd@mcp.example/mcp?api_key=k1&page=2"
	red := Redact(run, Redaction{Headers: []string{"x-from-options"}})
	if want := "https://alice:[REDACTED]@mcp.example/mcp?api_key=[REDACTED]&page=2"; red.Target.URL != want {
		t.Errorf("target URL %q, want %q", red.Target.URL, want)
	}
	got := red.Checks[0].Transcript[0].HTTP.Headers
	for k, vs := range got {
		want := Redacted
		if k == "Accept" {
			want = "application/json"
		}
		if vs[0] != want {
			t.Errorf("header %s = %q, want %q", k, vs[0], want)
		}
	}
}
