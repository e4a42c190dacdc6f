package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAS is an in-process authorization server plus a protected MCP
// endpoint; fields switch its behaviour and record what the client did.
type fakeAS struct {
	t   *testing.T
	srv *httptest.Server

	// Behaviour.
	issOverride   *string // iss to put in the redirect (nil: the issuer)
	advertiseIss  bool
	noS256        bool
	prmResource   string // "" means the MCP URL
	issuerInMeta  string // "" means the real issuer
	needScope     string // scope the MCP endpoint demands (403 otherwise)
	alwaysForbid  bool
	scopesSupport []string
	expiresIn     int

	mu          sync.Mutex
	paths       []string
	registered  map[string]any
	authQuery   url.Values
	tokenForms  []url.Values
	issued      map[string]string // token -> scope
	refreshUsed int
	mcpCalls    int
}

func newFakeAS(t *testing.T) *fakeAS {
	f := &fakeAS{t: t, issued: map[string]string{}, advertiseIss: true}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAS) issuer() string { return f.srv.URL + "/tenant" }
func (f *fakeAS) mcpURL() string { return f.srv.URL + "/mcp" }

func (f *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.Path)
	f.mu.Unlock()
	writeJSON := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	switch r.URL.Path {
	case "/mcp":
		f.mu.Lock()
		f.mcpCalls++
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		scope, ok := f.issued[tok]
		f.mu.Unlock()
		prm := f.srv.URL + "/.well-known/oauth-protected-resource/mcp"
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+prm+`", scope="read"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if f.alwaysForbid || (f.needScope != "" && !strings.Contains(" "+scope+" ", " "+f.needScope+" ")) {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+f.needScope+`", resource_metadata="`+prm+`"`)
			w.WriteHeader(http.StatusForbidden)
			return
		}
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "ok:%s", body)
	case "/.well-known/oauth-protected-resource/mcp":
		res := f.prmResource
		if res == "" {
			res = f.mcpURL()
		}
		writeJSON(map[string]any{"resource": res, "authorization_servers": []string{f.issuer()}, "scopes_supported": []string{"read", "write"}})
	case "/.well-known/oauth-authorization-server/tenant":
		iss := f.issuerInMeta
		if iss == "" {
			iss = f.issuer()
		}
		md := map[string]any{
			"issuer":                           iss,
			"authorization_endpoint":           f.srv.URL + "/tenant/authorize",
			"token_endpoint":                   f.srv.URL + "/tenant/token",
			"registration_endpoint":            f.srv.URL + "/tenant/register",
			"code_challenge_methods_supported": []string{"S256"},
			"authorization_response_iss_parameter_supported": f.advertiseIss,
		}
		if f.noS256 {
			delete(md, "code_challenge_methods_supported")
		}
		if f.scopesSupport != nil {
			md["scopes_supported"] = f.scopesSupport
		}
		writeJSON(md)
	case "/tenant/register":
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.registered = body
		f.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSON(map[string]any{"client_id": "dyn-client"})
	case "/tenant/authorize":
		q := r.URL.Query()
		f.mu.Lock()
		f.authQuery = q
		f.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {"the-code"}, "state": {q.Get("state")}}
		if f.issOverride != nil {
			if *f.issOverride != "" {
				v.Set("iss", *f.issOverride)
			}
		} else {
			v.Set("iss", f.issuer())
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case "/tenant/token":
		r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.tokenForms = append(f.tokenForms, r.PostForm)
		var scope string
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if base64.RawURLEncoding.EncodeToString(sum[:]) != f.authQuery.Get("code_challenge") || r.PostForm.Get("code") != "the-code" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			scope = f.authQuery.Get("scope")
		case "refresh_token":
			f.refreshUsed++
			scope = "read"
		}
		tok := fmt.Sprintf("tok-%d", len(f.tokenForms))
		f.issued[tok] = scope
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "refresh_token": "rt-" + tok, "scope": scope, "expires_in": f.expiresIn})
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeAS) client(cfg Config) (*http.Client, *Transport) {
	tr := NewTransport(nil, cfg)
	return &http.Client{Transport: tr}, tr
}

func (f *fakeAS) post(c *http.Client, body string) (*http.Response, error) {
	return c.Post(f.mcpURL(), "application/json", strings.NewReader(body))
}

func TestFullFlow(t *testing.T) {
	f := newFakeAS(t)
	c, tr := f.client(Config{})
	resp, err := f.post(c, `{"x":1}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != `ok:{"x":1}` {
		t.Fatalf("answer %d %q; want the request replayed with the token", resp.StatusCode, b)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.authQuery
	if q.Get("code_challenge_method") != "S256" || q.Get("resource") != f.mcpURL() || q.Get("scope") != "read" || q.Get("client_id") != "dyn-client" {
		t.Errorf("authorization request = %v", q)
	}
	form := f.tokenForms[0]
	if form.Get("resource") != f.mcpURL() || form.Get("client_id") != "dyn-client" || form.Get("redirect_uri") != DefaultRedirectURI {
		t.Errorf("token request = %v", form)
	}
	if f.registered["application_type"] != "native" || !strings.Contains(fmt.Sprint(f.registered["grant_types"]), "refresh_token") {
		t.Errorf("registration = %v", f.registered)
	}
	for _, p := range f.paths {
		if p == "/.well-known/oauth-protected-resource" || p == "/.well-known/oauth-authorization-server" {
			t.Errorf("requested %s although the header and the issuer path said where to look", p)
		}
	}
	if tr.Token() == nil || tr.Token().Issuer != f.issuer() {
		t.Errorf("token = %+v", tr.Token())
	}
}

func TestRejections(t *testing.T) {
	wrong := "https://evil.example"
	empty := ""
	slash := ""
	cases := map[string]struct {
		setup func(f *fakeAS)
		want  string
	}{
		"iss wrong":            {func(f *fakeAS) { f.issOverride = &wrong }, "mix-up"},
		"iss normalized":       {func(f *fakeAS) { slash = f.issuer() + "/"; f.issOverride = &slash }, "mix-up"},
		"iss missing":          {func(f *fakeAS) { f.issOverride = &empty }, "sent none"},
		"iss unadvertised bad": {func(f *fakeAS) { f.advertiseIss = false; f.issOverride = &wrong }, "mix-up"},
		"resource mismatch":    {func(f *fakeAS) { f.prmResource = "https://other.example/mcp" }, "not for"},
		"issuer mismatch":      {func(f *fakeAS) { f.issuerInMeta = "https://attacker.example" }, "issuer"},
		"no PKCE":              {func(f *fakeAS) { f.noS256 = true }, "S256"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFakeAS(t)
			tc.setup(f)
			c, _ := f.client(Config{})
			_, err := f.post(c, `{}`)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want it to mention %q", err, tc.want)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if strings.HasPrefix(name, "iss") && len(f.tokenForms) != 0 {
				t.Error("the code was sent to the token endpoint despite the bad iss")
			}
		})
	}
	t.Run("iss unadvertised absent", func(t *testing.T) {
		f := newFakeAS(t)
		f.advertiseIss = false
		f.issOverride = &empty
		c, _ := f.client(Config{})
		if resp, err := f.post(c, `{}`); err != nil || resp.StatusCode != 200 {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestStepUpAndRetryLimit(t *testing.T) {
	f := newFakeAS(t)
	f.needScope = "write"
	c, _ := f.client(Config{})
	resp, err := f.post(c, `{}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("step-up: %v %v", resp, err)
	}
	f.mu.Lock()
	if s := f.authQuery.Get("scope"); s != "read write" {
		t.Errorf("step-up scope = %q; want the union of read and write", s)
	}
	f.mu.Unlock()

	g := newFakeAS(t)
	g.alwaysForbid = true
	g.needScope = "admin"
	c2, _ := g.client(Config{MaxRetries: 3})
	resp, err = g.post(c2, `{}`)
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("retry limit: %v %v; want the 403 back", resp, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.tokenForms) > 3 || g.mcpCalls > 4 {
		t.Errorf("%d token requests and %d MCP requests; want at most 3 authorizations", len(g.tokenForms), g.mcpCalls)
	}
}

func TestRefreshInsteadOfNewFlow(t *testing.T) {
	f := newFakeAS(t)
	c, tr := f.client(Config{})
	if _, err := f.post(c, `{}`); err != nil {
		t.Fatal(err)
	}
	// The server forgets the token.
	f.mu.Lock()
	delete(f.issued, tr.Token().AccessToken)
	f.mu.Unlock()
	resp, err := f.post(c, `{}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refreshUsed != 1 || len(f.tokenForms) != 2 {
		t.Errorf("refresh used %d times, %d token requests; want one refresh and no second code flow", f.refreshUsed, len(f.tokenForms))
	}
	if f.tokenForms[1].Get("resource") != f.mcpURL() {
		t.Errorf("refresh without resource: %v", f.tokenForms[1])
	}
}

func TestPreRegisteredBasicAuth(t *testing.T) {
	f := newFakeAS(t)
	var gotUser, gotPass string
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tenant/token" {
			gotUser, gotPass, _ = r.BasicAuth()
		}
		inner.ServeHTTP(w, r)
	})
	c, _ := f.client(Config{ClientID: "pre id", ClientSecret: "s3cret"})
	if _, err := f.post(c, `{}`); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	if f.registered != nil {
		t.Error("registered dynamically despite pre-registered credentials")
	}
	f.mu.Unlock()
	if gotUser != "pre+id" || gotPass != "s3cret" {
		t.Errorf("basic auth = %q:%q", gotUser, gotPass)
	}
	c2, _ := f.client(Config{ClientID: "x", Issuer: "https://elsewhere.example"})
	if _, err := f.post(c2, `{}`); err == nil || !strings.Contains(err.Error(), "belongs to") {
		t.Errorf("credentials of another issuer: %v", err)
	}
}

func TestClientMetadataDocument(t *testing.T) {
	f := newFakeAS(t)
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-authorization-server/tenant" {
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, r)
			var md map[string]any
			json.Unmarshal(rec.Body.Bytes(), &md)
			md["client_id_metadata_document_supported"] = true
			json.NewEncoder(w).Encode(md)
			return
		}
		inner.ServeHTTP(w, r)
	})
	c, _ := f.client(Config{ClientMetadataURL: "https://client.example/meta.json"})
	if _, err := f.post(c, `{}`); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.authQuery.Get("client_id") != "https://client.example/meta.json" || f.registered != nil {
		t.Errorf("client_id = %q, registered = %v", f.authQuery.Get("client_id"), f.registered)
	}
}

func TestOfflineAccess(t *testing.T) {
	f := newFakeAS(t)
	f.scopesSupport = []string{"read", "offline_access"}
	c, _ := f.client(Config{})
	if _, err := f.post(c, `{}`); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if s := f.authQuery.Get("scope"); s != "read offline_access" {
		t.Errorf("scope = %q", s)
	}
}

func TestLegacyFallbackEndpoints(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	issued := ""
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/mcp":
			if issued == "" || r.Header.Get("Authorization") != "Bearer "+issued {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, "ok")
		case "/register":
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"client_id":"c"}`)
		case "/authorize":
			q := r.URL.Query()
			http.Redirect(w, r, q.Get("redirect_uri")+"?code=x&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
		case "/token":
			issued = "legacy-token"
			fmt.Fprint(w, `{"access_token":"legacy-token","token_type":"bearer"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := &http.Client{Transport: NewTransport(nil, Config{ProtocolVersion: "2025-03-26"})}
	resp, err := c.Get(srv.URL + "/mcp")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "/mcp /.well-known/oauth-protected-resource/mcp /.well-known/oauth-protected-resource /.well-known/oauth-authorization-server /.well-known/openid-configuration /register /authorize /token /mcp"
	if got := strings.Join(paths, " "); got != want {
		t.Errorf("paths:\n got %s\nwant %s", got, want)
	}
}

func TestParseChallenge(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://s/.well-known/oauth-protected-resource", error_description="need \"b\""`)
	ch := parseChallenge(h)
	if ch.Error != "insufficient_scope" || strings.Join(ch.Scope, ",") != "a,b" || ch.ResourceMetadata != "https://s/.well-known/oauth-protected-resource" {
		t.Fatalf("%+v", ch)
	}
	h = http.Header{"Www-Authenticate": {`Bearer realm=mcp, scope=read`}}
	if ch := parseChallenge(h); strings.Join(ch.Scope, ",") != "read" {
		t.Fatalf("token values: %+v", ch)
	}
}

func TestLoopbackUserAgent(t *testing.T) {
	f := newFakeAS(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	shown := make(chan string, 1)
	ua := Loopback{Wait: 20 * time.Second, Show: func(u string) {
		shown <- u
		// Play the person's browser: visit the URL and follow the redirect.
		go func() {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
	}}
	c, _ := f.client(Config{UserAgent: ua, RedirectURI: fmt.Sprintf("http://127.0.0.1:%d/cb", port)})
	resp, err := f.post(c, `{}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	if u := <-shown; !strings.HasPrefix(u, f.srv.URL+"/tenant/authorize?") {
		t.Errorf("shown URL %s", u)
	}
}

// TestFaultsChangeTheFlow: fault switches named in Config.Faults change
// what the flow sends, and only then.
func TestFaultsChangeTheFlow(t *testing.T) {
	f := newFakeAS(t)
	c, _ := f.client(Config{Faults: []string{FaultNoPKCE, FaultTokenWithoutResource, FaultDCRNoApplicationType}})
	// Without PKCE the fake refuses the code: the flow fails at the token
	// request, after everything this test looks at was sent.
	if resp, err := f.post(c, `{"x":1}`); err == nil {
		resp.Body.Close()
		t.Errorf("the flow without PKCE succeeded; the fake should refuse the code")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.authQuery.Has("code_challenge") || f.authQuery.Has("code_challenge_method") {
		t.Errorf("with %s the authorization request carries PKCE: %v", FaultNoPKCE, f.authQuery)
	}
	if len(f.tokenForms) == 0 || f.tokenForms[0].Has("resource") || f.tokenForms[0].Has("code_verifier") {
		t.Errorf("token requests = %v; want no resource and no code_verifier", f.tokenForms)
	}
	if _, ok := f.registered["application_type"]; ok {
		t.Errorf("with %s the registration carries application_type: %v", FaultDCRNoApplicationType, f.registered)
	}
}
