package authserver

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// start runs a server with the faults on; it returns it and an HTTP client
// that does not follow redirects.
func start(t *testing.T, faults ...string) (*Running, *http.Client) {
	t.Helper()
	r, err := Start("127.0.0.1:0", Options{MintEndpoint: true, AllowHTTPMetadataDocuments: true, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func getJSON(t *testing.T, c *http.Client, u string) (int, map[string]any) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func postForm(t *testing.T, c *http.Client, u string, v url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := c.PostForm(u, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func TestMetadataAndFaults(t *testing.T) {
	r, c := start(t)
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		st, md := getJSON(t, c, r.URL+p)
		if st != 200 || md["issuer"] != r.URL || md["authorization_response_iss_parameter_supported"] != true {
			t.Fatalf("%s: %d %v", p, st, md)
		}
		if m, _ := md["code_challenge_methods_supported"].([]any); len(m) != 1 || m[0] != "S256" {
			t.Errorf("%s: code_challenge_methods_supported %v", p, md["code_challenge_methods_supported"])
		}
		if md["registration_endpoint"] != r.URL+"/register" || md["mcpcheck_mint_endpoint"] != r.URL+MintPath {
			t.Errorf("%s: endpoints %v", p, md)
		}
	}
	cases := map[string]func(int, map[string]any) bool{
		FaultNoMetadata:    func(st int, _ map[string]any) bool { return st == 404 },
		FaultNoPKCEMethods: func(_ int, md map[string]any) bool { return md["code_challenge_methods_supported"] == nil },
		FaultIssNotAdvertised: func(_ int, md map[string]any) bool {
			return md["authorization_response_iss_parameter_supported"] == nil
		},
		FaultNoRegistration: func(_ int, md map[string]any) bool { return md["registration_endpoint"] == nil },
	}
	for f, ok := range cases {
		r, c := start(t, f)
		if st, md := getJSON(t, c, r.URL+"/.well-known/oauth-authorization-server"); !ok(st, md) {
			t.Errorf("fault %s: metadata %d %v", f, st, md)
		}
	}
	if _, err := New(Options{Issuer: "http://127.0.0.1:1", Faults: []string{"nope"}}); err == nil {
		t.Error("an unknown fault switch was accepted")
	}
}

// TestMintKinds: a valid token passes a resource server's validation, and
// every other kind fails it, each for its own reason.
func TestMintKinds(t *testing.T) {
	r, c := start(t)
	const res = "http://127.0.0.1:9/mcp"
	st, body := getJSON(t, c, r.URL+"/jwks")
	if st != 200 {
		t.Fatal(st)
	}
	b, _ := json.Marshal(body)
	ks, err := ParseJWKS(b)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Kind]string{
		Valid: "", Expired: "expired", NotYetValid: "not valid before", WrongAudience: "does not name this resource",
		NoAudience: "no audience", OtherResource: "does not name this resource", WrongIssuer: "issued by",
		BadSignature: "does not verify", Unsigned: "no key", MissingScope: "",
	}
	for _, k := range Kinds {
		m, err := r.Mint(MintRequest{Kind: k, Resource: res, Scope: "mcp"})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := ks.Verify(m.Token)
		if err == nil {
			err = cl.Validate(Expectation{Issuer: r.URL, Resource: res, Now: time.Now()})
		}
		switch w := want[k]; {
		case w == "" && err != nil:
			t.Errorf("%s: %v", k, err)
		case w != "" && (err == nil || !strings.Contains(err.Error(), w)):
			t.Errorf("%s: error %v, want one saying %q", k, err, w)
		}
		if k == MissingScope && (cl.HasScope("mcp") || !cl.HasScope(UnrelatedScope)) {
			t.Errorf("missing-scope token has scope %q", cl.Scope)
		}
	}
	// Over HTTP, as a checker in another process mints.
	resp, err := c.Post(r.URL+MintPath, "application/json", strings.NewReader(`{"kind":"expired","resource":"`+res+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m Minted
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.Kind != Expired || m.Claims.Expiry >= time.Now().Unix() {
		t.Fatalf("mint over HTTP: %v %+v", err, m)
	}
	if _, err := r.Mint(MintRequest{Kind: "bogus", Resource: res}); err == nil {
		t.Error("an unknown kind was minted")
	}
}

// TestMintLifetime: a valid token may be minted for a whole run (up to a
// day); other kinds, and longer or negative lifetimes, are refused.
func TestMintLifetime(t *testing.T) {
	r, _ := start(t)
	const res = "http://127.0.0.1:9/mcp"
	m, err := r.Mint(MintRequest{Kind: Valid, Resource: res, Scope: "mcp", Lifetime: 3600})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Claims.Expiry - m.Claims.IssuedAt; got != 3600 {
		t.Errorf("a valid token minted for 3600 s lives %d s", got)
	}
	d, err := r.Mint(MintRequest{Kind: Valid, Resource: res, Scope: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Claims.Expiry - d.Claims.IssuedAt; got != int64((5 * time.Minute).Seconds()) {
		t.Errorf("a valid token without a lifetime lives %d s, want the token TTL (300 s)", got)
	}
	for _, bad := range []MintRequest{
		{Kind: Valid, Resource: res, Lifetime: MaxLifetime + 1},
		{Kind: Valid, Resource: res, Lifetime: -1},
		{Kind: Expired, Resource: res, Lifetime: 60},
	} {
		if _, err := r.Mint(bad); err == nil || !strings.Contains(err.Error(), "lifetime") {
			t.Errorf("%+v: error %v, want one about the lifetime", bad, err)
		}
	}
}

type flow struct {
	t        *testing.T
	r        *Running
	c        *http.Client
	client   string
	redirect string
	verifier string
}

func newFlow(t *testing.T, faults ...string) *flow {
	r, c := start(t, faults...)
	f := &flow{t: t, r: r, c: c, redirect: "http://127.0.0.1:7777/callback", verifier: strings.Repeat("v", 50)}
	resp, err := c.Post(r.URL+"/register", "application/json",
		strings.NewReader(`{"redirect_uris":["`+f.redirect+`"],"token_endpoint_auth_method":"none","client_name":"test"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&reg)
	if resp.StatusCode != 201 || reg["client_id"] == nil || reg["client_secret"] != nil {
		t.Fatalf("register: %d %v", resp.StatusCode, reg)
	}
	f.client = reg["client_id"].(string)
	return f
}

func s256(v string) string {
	sum := sha256.Sum256([]byte(v))
	return b64.EncodeToString(sum[:])
}

// authorize sends an authorization request with q over the defaults and
// returns the status and the redirect's location.
func (f *flow) authorize(q url.Values) (int, *url.URL) {
	v := url.Values{"response_type": {"code"}, "client_id": {f.client}, "redirect_uri": {f.redirect}, "state": {"st-1"},
		"code_challenge": {s256(f.verifier)}, "code_challenge_method": {"S256"}, "resource": {"http://127.0.0.1:9/mcp"}, "scope": {"mcp"}}
	for k, x := range q {
		if x == nil {
			delete(v, k)
		} else {
			v[k] = x
		}
	}
	resp, err := f.c.Get(f.r.URL + "/authorize?" + v.Encode())
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := resp.Location()
	return resp.StatusCode, loc
}

func (f *flow) exchange(code string) (int, map[string]any) {
	return postForm(f.t, f.c, f.r.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {f.client},
		"redirect_uri": {f.redirect}, "code_verifier": {f.verifier}, "resource": {"http://127.0.0.1:9/mcp"}})
}

// TestAuthorizationCodeFlow: DCR, PKCE S256 with automatic consent, iss in
// the response, the code once only, a JWT whose aud is the resource, and
// refresh with rotation.
func TestAuthorizationCodeFlow(t *testing.T) {
	f := newFlow(t)
	st, loc := f.authorize(nil)
	if st != http.StatusFound || loc == nil {
		t.Fatalf("authorize: %d", st)
	}
	q := loc.Query()
	if q.Get("state") != "st-1" || q.Get("iss") != f.r.URL || q.Get("code") == "" || !strings.HasPrefix(loc.String(), f.redirect) {
		t.Fatalf("authorization response %s", loc)
	}
	st, tok := f.exchange(q.Get("code"))
	if st != 200 || tok["token_type"] != "Bearer" || tok["refresh_token"] == nil {
		t.Fatalf("token: %d %v", st, tok)
	}
	cl, err := f.r.KeySet().Verify(tok["access_token"].(string))
	if err != nil || cl.Validate(Expectation{Issuer: f.r.URL, Resource: "http://127.0.0.1:9/mcp", Now: time.Now()}) != nil || cl.Scope != "mcp" || cl.ClientID != f.client {
		t.Fatalf("access token: %v %+v", err, cl)
	}
	if st, body := f.exchange(q.Get("code")); st != 400 || body["error"] != "invalid_grant" {
		t.Errorf("a code redeemed twice: %d %v", st, body)
	}
	rt := tok["refresh_token"].(string)
	st, tok2 := postForm(t, f.c, f.r.URL+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {f.client}})
	if st != 200 || tok2["refresh_token"] == rt || tok2["refresh_token"] == nil {
		t.Fatalf("refresh: %d %v", st, tok2)
	}
	if st, body := postForm(t, f.c, f.r.URL+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {f.client}}); st != 400 || body["error"] != "invalid_grant" {
		t.Errorf("a rotated refresh token was honoured: %d %v", st, body)
	}
	if f.r.Issued() != 2 {
		t.Errorf("issued %d tokens, want 2", f.r.Issued())
	}

	nf := newFlow(t, FaultRefreshNotRotated)
	_, loc = nf.authorize(nil)
	_, tok = nf.exchange(loc.Query().Get("code"))
	rt = tok["refresh_token"].(string)
	for range 2 {
		st, tok2 := postForm(t, nf.c, nf.r.URL+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {nf.client}})
		if st != 200 || tok2["refresh_token"] != rt {
			t.Fatalf("fault %s: %d %v", FaultRefreshNotRotated, st, tok2)
		}
	}
	nf = newFlow(t, FaultNoIssInResponse)
	if _, loc := nf.authorize(nil); loc.Query().Has("iss") {
		t.Errorf("fault %s: %s", FaultNoIssInResponse, loc)
	}
}

// TestAuthorizationRequestsRefused: PKCE is required and S256 only; a
// redirect URI must match exactly and an unregistered one is never
// redirected to; a code needs its verifier.
func TestAuthorizationRequestsRefused(t *testing.T) {
	f := newFlow(t)
	for name, q := range map[string]url.Values{
		"no challenge": {"code_challenge": nil, "code_challenge_method": nil},
		"plain":        {"code_challenge": {f.verifier}, "code_challenge_method": {"plain"}},
		"token flow":   {"response_type": {"token"}},
		"bad resource": {"resource": {"mcp#frag"}},
	} {
		st, loc := f.authorize(q)
		if st != http.StatusFound || loc.Query().Get("error") == "" || loc.Query().Has("code") || loc.Query().Get("iss") != f.r.URL {
			t.Errorf("%s: %d %v", name, st, loc)
		}
	}
	for name, u := range map[string]string{"prefix": f.redirect + "/evil", "other": "https://evil.example/cb", "other port on a name": "http://localhost:7777/callback"} {
		if st, loc := f.authorize(url.Values{"redirect_uri": {u}}); st != http.StatusBadRequest || loc != nil {
			t.Errorf("redirect %s: %d %v", name, st, loc)
		}
	}
	if st, loc := f.authorize(url.Values{"redirect_uri": {"http://127.0.0.1:9999/callback"}}); st != http.StatusFound || loc.Port() != "9999" {
		t.Errorf("a loopback IP redirect on another port (RFC 8252): %d %v", st, loc)
	}
	_, loc := f.authorize(nil)
	f.verifier = strings.Repeat("w", 50)
	if st, body := f.exchange(loc.Query().Get("code")); st != 400 || body["error"] != "invalid_grant" {
		t.Errorf("a wrong code_verifier: %d %v", st, body)
	}

	pf := newFlow(t, FaultRedirectPrefixMatch)
	if st, _ := pf.authorize(url.Values{"redirect_uri": {pf.redirect + "/evil"}}); st != http.StatusFound {
		t.Errorf("fault %s: %d", FaultRedirectPrefixMatch, st)
	}
	ef := newFlow(t, FaultErrorToUnregistered)
	if st, loc := ef.authorize(url.Values{"redirect_uri": {"https://evil.example/cb"}}); st != http.StatusFound || loc.Host != "evil.example" {
		t.Errorf("fault %s: %d %v", FaultErrorToUnregistered, st, loc)
	}
	nf := newFlow(t, FaultPKCENotRequired)
	st, loc := nf.authorize(url.Values{"code_challenge": nil, "code_challenge_method": nil})
	if st != http.StatusFound || loc.Query().Get("code") == "" {
		t.Fatalf("fault %s: %d %v", FaultPKCENotRequired, st, loc)
	}
	if st, _ := postForm(t, nf.c, nf.r.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"client_id": {nf.client}, "redirect_uri": {nf.redirect}}); st != 200 {
		t.Errorf("fault %s: exchange %d", FaultPKCENotRequired, st)
	}
}

func TestClientCredentialsAndLifetime(t *testing.T) {
	for _, fault := range []string{"", FaultLongLivedTokens} {
		var faults []string
		if fault != "" {
			faults = append(faults, fault)
		}
		r, c := start(t, faults...)
		resp, err := c.Post(r.URL+"/register", "application/json", strings.NewReader(`{"grant_types":["client_credentials"]}`))
		if err != nil {
			t.Fatal(err)
		}
		var reg map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&reg)
		resp.Body.Close()
		id, secret := reg["client_id"].(string), reg["client_secret"].(string)
		if st, body := postForm(t, c, r.URL+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {"wrong"}}); st != 401 || body["error"] != "invalid_client" {
			t.Errorf("wrong secret: %d %v", st, body)
		}
		req, _ := http.NewRequest(http.MethodPost, r.URL+"/token", strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "resource": {"http://127.0.0.1:9/mcp"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(id, secret)
		resp, err = c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var tok map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&tok)
		resp.Body.Close()
		if resp.StatusCode != 200 || tok["refresh_token"] != nil {
			t.Fatalf("client_credentials: %d %v", resp.StatusCode, tok)
		}
		long := tok["expires_in"].(float64) > 24*3600
		if long != (fault == FaultLongLivedTokens) {
			t.Errorf("fault %q: expires_in %v", fault, tok["expires_in"])
		}
	}
}

// TestClientIDMetadataDocument: a URL client_id is fetched, and a document
// naming another client_id is refused (accepted under the fault).
func TestClientIDMetadataDocument(t *testing.T) {
	var docURL string
	claimed := ""
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := docURL
		if claimed != "" {
			id = claimed
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": id, "redirect_uris": []string{"http://127.0.0.1:7777/callback"}, "token_endpoint_auth_method": "none"})
	}))
	defer ts.Close()
	docURL = ts.URL + "/client.json"
	for _, fault := range []string{"", FaultCIMDClientIDMismatch} {
		var faults []string
		if fault != "" {
			faults = append(faults, fault)
		}
		f := newFlow(t, faults...)
		f.client = docURL
		claimed = ""
		if st, loc := f.authorize(nil); st != http.StatusFound || loc.Query().Get("code") == "" {
			t.Fatalf("a metadata-document client: %d %v", st, loc)
		}
		claimed = "https://someone-else.example/client.json"
		f.r.mu.Lock()
		f.r.cimd = map[string]cimdEntry{}
		f.r.mu.Unlock()
		st, _ := f.authorize(nil)
		if want := map[string]int{"": http.StatusBadRequest, FaultCIMDClientIDMismatch: http.StatusFound}[fault]; st != want {
			t.Errorf("fault %q: a document naming another client_id: %d, want %d", fault, st, want)
		}
	}
}
