// Command gosdk-bearer is a go-sdk MCP server over streamable HTTP behind
// go-sdk's bearer-token middleware (auth.RequireBearerToken), verifying
// the ES256 JWT access tokens of an mcpcheck authserver the way a server
// trusting any OAuth issuer would: the issuer's RFC 8414 metadata names
// its JWKS; a token must be signed by a key of it and name the issuer
// (iss), this server's URL (aud), a current validity window (exp, nbf) and
// the scope "mcp". It serves RFC 9728 protected resource metadata naming
// the issuer. It is a lab peer for mcpcheck's resource-server checks; it
// lives in its own module so that mcpcheck never depends on go-sdk.
//
//	gosdk-bearer -http 127.0.0.1:PORT -issuer URL
//	gosdk-bearer -http 127.0.0.1:PORT -mcpcheck /path/to/mcpcheck [-stateless] [-upstream URL]
//
// With -mcpcheck it starts "mcpcheck authserver" itself and trusts it.
// With -stateless the handler keeps no sessions, the only way go-sdk
// v1.8.0 speaks 2026-07-28. With -upstream it calls that API with a
// credential of its own while serving each request, so that mcpcheck's
// token passthrough check has calls to watch.
package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "listen address (loopback)")
	issuer := flag.String("issuer", "", "the trusted issuer")
	mcpcheck := flag.String("mcpcheck", "", "start 'mcpcheck authserver' from this binary and trust it")
	scope := flag.String("scope", "mcp", "the scope every request needs")
	tokenOut := flag.String("token-out", "", "with -mcpcheck: write a valid token for this server (Authorization value) to this file")
	upstream := flag.String("upstream", "", "call the upstream API at this loopback URL (GET, with a credential of this server's own) while serving each authorized POST, as 'mcpcheck server --auth-upstream' plays it")
	stateless := flag.Bool("stateless", false, "serve streamable HTTP statelessly (go-sdk serves 2026-07-28 only then)")
	flag.Parse()
	if *mcpcheck != "" {
		is, stop, err := startAuthserver(*mcpcheck)
		if err != nil {
			log.Fatal(err)
		}
		defer stop() // main returns on SIGINT and SIGTERM, so the authserver ends with it
		*issuer = is
	}
	if *issuer == "" {
		log.Fatal("give -issuer URL or -mcpcheck PATH")
	}
	// Listen first, so that port 0 can be asked for: the resource URL
	// names the port bound, and the line below is printed once the port
	// accepts connections.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Print(err)
		return
	}
	if h, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(h).IsLoopback() {
		ln.Close()
		log.Printf("refusing to serve on %s: loopback addresses only", ln.Addr())
		return
	}
	base := "http://" + ln.Addr().String()
	resource := base + "/mcp"
	if *tokenOut != "" {
		if err := writeToken(*issuer, resource, *scope, *tokenOut); err != nil {
			log.Print(err)
			return
		}
	}
	keys, err := fetchJWKS(*issuer)
	if err != nil {
		log.Print(err)
		return
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-bearer", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami", Description: "the subject and scopes of the caller's token"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			ti := auth.TokenInfoFromContext(ctx)
			text := "no token"
			if ti != nil {
				text = fmt.Sprintf("%s %v", ti.UserID, ti.Scopes)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	// go-sdk v1.8.0 negotiates 2026-07-28 only on a stateless handler
	// (StreamableServerTransport.SupportsProtocolVersion); a stateful one
	// lists up to 2025-11-25 in its server/discover answer.
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: *stateless})
	prmURL := base + "/.well-known/oauth-protected-resource/mcp"
	verifier := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return verify(keys, *issuer, resource, token)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", auth.RequireBearerToken(verifier, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: strings.Fields(*scope)})(callUpstream(*upstream, handler)))
	prm := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{*issuer},
		ScopesSupported: strings.Fields(*scope), BearerMethodsSupported: []string{"header"}})
	mux.Handle("/.well-known/oauth-protected-resource/mcp", prm)
	mux.Handle("/.well-known/oauth-protected-resource", prm)
	log.Printf("gosdk-bearer: %s, trusting %s", resource, *issuer)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	go func() {
		<-ctx.Done()
		sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer scancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Print(err)
	}
}

// callUpstream calls the upstream API at u (if any) with this server's own
// credential before serving each POST: an MCP server that uses an upstream
// API the way the spec asks, never with the client's token.
func callUpstream(u string, next http.Handler) http.Handler {
	if u == "" {
		return next
	}
	c := &http.Client{Timeout: 5 * time.Second}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, u, nil)
			if err == nil {
				req.Header.Set("Authorization", "Bearer gosdk-bearer-own-upstream-credential")
				if resp, err := c.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
					resp.Body.Close()
				} else {
					log.Printf("upstream %s: %v", u, err)
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// startAuthserver runs "mcpcheck authserver" and reads its issuer from the
// line it prints.
func startAuthserver(bin string) (string, func(), error) {
	cmd := exec.Command(bin, "authserver", "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("mcpcheck authserver said nothing: %v", err)
	}
	go func() { _, _ = io.Copy(os.Stderr, stderr) }()
	m := regexp.MustCompile(`issuer (\S+)`).FindStringSubmatch(line)
	if m == nil {
		stop()
		return "", nil, fmt.Errorf("no issuer in %q", line)
	}
	return strings.TrimSuffix(m[1], ","), stop, nil
}

// fetchJWKS reads the issuer's RFC 8414 metadata and the JWKS it names.
func fetchJWKS(issuer string) (map[string]*ecdsa.PublicKey, error) {
	c := &http.Client{Timeout: 10 * time.Second}
	var md struct {
		JWKS string `json:"jwks_uri"`
	}
	if err := getJSON(c, strings.TrimSuffix(issuer, "/")+"/.well-known/oauth-authorization-server", &md); err != nil || md.JWKS == "" {
		return nil, fmt.Errorf("the issuer's metadata: %v (jwks_uri %q)", err, md.JWKS)
	}
	var set struct {
		Keys []struct{ Kty, Crv, Kid, X, Y string } `json:"keys"`
	}
	if err := getJSON(c, md.JWKS, &set); err != nil {
		return nil, err
	}
	keys := map[string]*ecdsa.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "EC" || k.Crv != "P-256" {
			continue
		}
		x, err1 := base64.RawURLEncoding.DecodeString(k.X)
		y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
		if err1 != nil || err2 != nil {
			continue
		}
		keys[k.Kid] = &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	}
	if len(keys) == 0 {
		return nil, errors.New("no P-256 key in the issuer's JWKS")
	}
	return keys, nil
}

func getJSON(c *http.Client, u string, v any) error {
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// verify checks an ES256 JWT access token.
func verify(keys map[string]*ecdsa.PublicKey, issuer, resource, token string) (*auth.TokenInfo, error) {
	bad := func(f string, a ...any) (*auth.TokenInfo, error) {
		return nil, fmt.Errorf("%w: %s", auth.ErrInvalidToken, fmt.Sprintf(f, a...))
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return bad("not a JWT")
	}
	var hdr struct{ Alg, Kid string }
	if b, err := base64.RawURLEncoding.DecodeString(parts[0]); err != nil || json.Unmarshal(b, &hdr) != nil {
		return bad("bad header")
	}
	key := keys[hdr.Kid]
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if hdr.Alg != "ES256" || key == nil || err != nil || len(sig) != 64 {
		return bad("not an ES256 token of a known key")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(key, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return bad("bad signature")
	}
	var cl struct {
		Iss   string          `json:"iss"`
		Sub   string          `json:"sub"`
		Aud   json.RawMessage `json:"aud"`
		Exp   int64           `json:"exp"`
		Nbf   int64           `json:"nbf"`
		Scope string          `json:"scope"`
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(b, &cl) != nil {
		return bad("bad claims")
	}
	var aud []string
	if json.Unmarshal(cl.Aud, &aud) != nil {
		var one string
		if json.Unmarshal(cl.Aud, &one) == nil {
			aud = []string{one}
		}
	}
	now := time.Now().Unix()
	switch {
	case cl.Iss != issuer:
		return bad("issuer %q", cl.Iss)
	case !slices.ContainsFunc(aud, func(a string) bool { return sameResource(a, resource) }):
		return bad("audience %v", aud)
	case cl.Exp == 0 || now >= cl.Exp:
		return bad("expired")
	case cl.Nbf != 0 && now < cl.Nbf:
		return bad("not valid yet")
	}
	return &auth.TokenInfo{Scopes: strings.Fields(cl.Scope), Expiration: time.Unix(cl.Exp, 0), UserID: cl.Sub}, nil
}

// writeToken asks the mcpcheck authserver's mint API for a valid token for
// resource and writes "Bearer TOKEN" to path.
func writeToken(issuer, resource, scope, path string) error {
	c := &http.Client{Timeout: 10 * time.Second}
	var md struct {
		Mint string `json:"mcpcheck_mint_endpoint"`
	}
	if err := getJSON(c, strings.TrimSuffix(issuer, "/")+"/.well-known/oauth-authorization-server", &md); err != nil || md.Mint == "" {
		return fmt.Errorf("no mint API at %s: %v", issuer, err)
	}
	body, _ := json.Marshal(map[string]string{"kind": "valid", "resource": resource, "scope": scope})
	resp, err := c.Post(md.Mint, "application/json", strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Token string `json:"access_token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil || out.Token == "" {
		return fmt.Errorf("minting: HTTP %d: %v", resp.StatusCode, err)
	}
	return os.WriteFile(path, []byte("Bearer "+out.Token), 0o600)
}

// sameResource reports whether the audience aud names resource: canonical
// server URIs compare their scheme and host without regard to case, and
// the rest byte for byte.
func sameResource(aud, resource string) bool {
	lower := func(u string) string {
		scheme, rest, ok := strings.Cut(u, "://")
		if !ok {
			return u
		}
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		return strings.ToLower(scheme+"://"+rest[:end]) + rest[end:]
	}
	return lower(aud) == lower(resource)
}
