package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
)

const authserverUsage = `Usage:
  mcpcheck authserver [--listen 127.0.0.1:PORT] [--scope "mcp"] [--token-ttl 5m] [--fault F]...
  mcpcheck authserver --list-faults
  mcpcheck authserver mint --issuer URL --resource URL [--kind valid] [--scope "mcp"]

mcpcheck's test OAuth 2.1 authorization server. Configure the MCP server
under test to trust its issuer (the URL it prints), the way it would trust
Auth0 or Keycloak: the issuer's RFC 8414 metadata names its JWKS, and its
access tokens are ES256 JWTs whose aud is the resource the client asked for
(RFC 8707). It serves RFC 8414 and OpenID discovery, the authorization code
grant with PKCE S256 and automatic consent (iss in every authorization
response, RFC 9207), refresh tokens with rotation, client credentials,
dynamic client registration (RFC 7591) and client ID metadata documents
(https, or http on a loopback host, as a test client hosts them).
Its mint API (loopback callers only) makes the tokens the resource-server
checks present: 'mcpcheck server --url ...' finds it through the target's
protected resource metadata. It is a test fixture: it consents to
everything; never expose it beyond loopback.

mint prints a token of the issuer's mint API, for --header:
  mcpcheck server --url URL --header "Authorization:Bearer $(mcpcheck authserver mint --issuer ISSUER --resource URL)"

Kinds: valid, expired, not-yet-valid, wrong-audience, no-audience,
other-resource, wrong-issuer, bad-signature, unsigned, missing-scope.
`

// authserverMain runs "mcpcheck authserver": the test authorization server
// until interrupted, its fault list, or "mint".
func authserverMain(e *env, args []string) error {
	if len(args) > 0 && args[0] == "mint" {
		return authserverMint(e, args[1:])
	}
	fs := flag.NewFlagSet("mcpcheck authserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listen := fs.String("listen", "127.0.0.1:0", "listen on ADDR (host:port; loopback unless you know why not)")
	scope := fs.String("scope", "mcp", "scopes_supported (space-separated)")
	ttl := fs.Duration("token-ttl", 5*time.Minute, "access token lifetime")
	listFaults := fs.Bool("list-faults", false, "list the fault switches and exit")
	var faults multiFlag
	fs.Var(&faults, "fault", "turn on a fault switch (repeatable; see --list-faults)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, authserverUsage+"\nFlags:\n")
			fs.SetOutput(e.stdout)
			fs.PrintDefaults()
			return nil
		}
		return usagef("authserver: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("authserver: unexpected argument %q", fs.Arg(0))
	}
	if *listFaults {
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tREQUIREMENT\tBREAKS")
		for _, f := range authserver.Faults() {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Requirement, f.Description)
		}
		return tw.Flush()
	}
	addr := *listen
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	as, err := authserver.Start(addr, authserver.Options{MintEndpoint: true, AllowHTTPMetadataDocuments: true, Scopes: strings.Fields(*scope), TokenTTL: *ttl, Faults: faults})
	if err != nil {
		return usagef("authserver: %v", err)
	}
	defer as.Close()
	fmt.Fprintf(e.stderr, "mcpcheck authorization server: issuer %s (metadata %s/.well-known/oauth-authorization-server, mint API %s%s)\n", as.URL, as.URL, as.URL, authserver.MintPath)
	<-e.ctx.Done()
	return nil
}

// authserverMint asks an issuer's mint API for a token and prints it.
func authserverMint(e *env, args []string) error {
	fs := flag.NewFlagSet("mcpcheck authserver mint", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	issuer := fs.String("issuer", "", "the issuer (an mcpcheck authserver)")
	resource := fs.String("resource", "", "the resource (the MCP endpoint URL) the token is for")
	kind := fs.String("kind", "valid", "the kind of token")
	scope := fs.String("scope", "mcp", "the scope to grant")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, authserverUsage)
			return nil
		}
		return usagef("authserver mint: %v", err)
	}
	if *issuer == "" || *resource == "" {
		return usagef("authserver mint: give --issuer URL and --resource URL")
	}
	tok, err := mintToken(*issuer, authserver.MintRequest{Kind: authserver.Kind(*kind), Resource: *resource, Scope: *scope})
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			return err
		}
		return fmt.Errorf("authserver mint: %v", err)
	}
	fmt.Fprintln(e.stdout, tok)
	return nil
}

// mintToken asks the mint API of issuer (an mcpcheck authserver, found
// through its RFC 8414 metadata) for a token.
func mintToken(issuer string, m authserver.MintRequest) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(issuer, "/"))
	if err != nil || u.Host == "" {
		return "", usagef("authserver mint: --issuer %q is not a URL", issuer)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + u.EscapedPath())
	if err != nil {
		return "", err
	}
	var md struct {
		Mint string `json:"mcpcheck_mint_endpoint"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&md)
	resp.Body.Close()
	if err != nil || md.Mint == "" {
		return "", fmt.Errorf("%s is no mcpcheck authserver (its metadata names no mcpcheck_mint_endpoint)", issuer)
	}
	body, _ := json.Marshal(m)
	resp, err = c.Post(md.Mint, "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out authserver.Minted
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &out) != nil || out.Token == "" {
		return "", fmt.Errorf("HTTP %d %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return out.Token, nil
}

// runToken mints the valid token a whole "mcpcheck server --auth-issuer"
// run presents (unless the command line gave an Authorization header): at
// issuer's mint API, for the target URL resource, with the scopes its
// RFC 9728 protected resource metadata lists (none when it lists none or
// serves none), living lifetime (at most a day). It returns the scope too.
func runToken(issuer, resource string, lifetime time.Duration) (tok, scope string, err error) {
	if lifetime <= 0 || lifetime > authserver.MaxLifetime*time.Second {
		lifetime = authserver.MaxLifetime * time.Second
	}
	scope = strings.Join(prmScopes(resource), " ")
	tok, err = mintToken(issuer, authserver.MintRequest{Kind: authserver.Valid, Resource: resource, Scope: scope, Lifetime: int64(lifetime / time.Second)})
	return tok, scope, err
}

// prmScopes reads scopes_supported from the protected resource metadata of
// resource, at its RFC 9728 well-known URIs (path-inserted, then root).
func prmScopes(resource string) []string {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return nil
	}
	root := u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource"
	urls := []string{root}
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		urls = []string{root + p, root}
	}
	c := &http.Client{Timeout: 10 * time.Second}
	for _, m := range urls {
		resp, err := c.Get(m)
		if err != nil {
			continue
		}
		var prm struct {
			Scopes []string `json:"scopes_supported"`
		}
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&prm)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && err == nil {
			return prm.Scopes
		}
	}
	return nil
}
