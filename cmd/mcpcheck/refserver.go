package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
)

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// referenceServerMain runs "mcpcheck reference server ARGS": the reference
// MCP server over stdio (--stdio) or HTTP (--http ADDR). Its io comes from
// e; it stops when e.ctx is cancelled.
func referenceServerMain(e *env, args []string) error {
	fs := flag.NewFlagSet("mcpcheck reference server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	stdio := fs.Bool("stdio", false, "serve one client on stdin/stdout")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on ADDR (host:port; the host defaults to 127.0.0.1)")
	legacy := fs.Bool("legacy-sse", false, "also serve the 2024-11-05 HTTP+SSE transport (GET /sse, POST /message)")
	jsonResp := fs.Bool("json-responses", false, "answer POSTs with application/json instead of SSE streams")
	pageSize := fs.Int("page-size", 100, "items per page of every list")
	listFaults := fs.Bool("list-faults", false, "list the fault switches and exit")
	startDelay := fs.String("start-delay", "", "wait a random time in MIN-MAX (or exactly D) before serving, as a server on a busy host starts late (for testing harnesses; the spec sets no start-up deadline)")
	authIssuer := fs.String("auth-issuer", "", "act as an OAuth 2.1 resource server trusting the tokens of the authorization server at URL (--http only)")
	authEmbedded := fs.Bool("auth", false, "act as an OAuth 2.1 resource server trusting an embedded mcpcheck authorization server (as 'mcpcheck authserver' runs) on a free loopback port, whose URL is printed (--http only)")
	authScope := fs.String("auth-scope", "mcp", "with --auth or --auth-issuer: the space-separated scopes every request needs")
	authUpstream := fs.String("auth-upstream", "", "with --auth or --auth-issuer: call the upstream API at URL (GET, with a credential of the server's own) while serving each authorized POST, as 'mcpcheck server --auth-upstream' plays it")
	var faults multiFlag
	fs.Var(&faults, "fault", "turn on a fault switch (repeatable; see --list-faults)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, "Usage: mcpcheck reference server --stdio | --http ADDR [flags]\n\nmcpcheck's own complete MCP server (every protocol version, every transport),\nwith fault switches that break one requirement each.\n\nFlags:\n")
			fs.SetOutput(e.stdout)
			fs.PrintDefaults()
			return nil
		}
		return usagef("reference server: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("reference server: unexpected argument %q", fs.Arg(0))
	}
	if *listFaults {
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tREQUIREMENT\tBREAKS")
		for _, f := range server.Faults() {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Requirement, f.Description)
		}
		return tw.Flush()
	}
	if *stdio == (*httpAddr != "") {
		return usagef("reference server: give exactly one of --stdio or --http 127.0.0.1:PORT")
	}
	if *pageSize < 1 {
		return usagef("reference server: --page-size must be at least 1, got %d", *pageSize)
	}
	if *stdio && (*legacy || *jsonResp) {
		return usagef("reference server: --legacy-sse and --json-responses apply to --http only")
	}
	if *authIssuer != "" && *authEmbedded {
		return usagef("reference server: give --auth or --auth-issuer, not both")
	}
	authOn := *authIssuer != "" || *authEmbedded
	if authOn && *stdio {
		return usagef("reference server: --auth and --auth-issuer apply to --http only (over stdio a server takes its credentials from the environment)")
	}
	if *authUpstream != "" && !authOn {
		return usagef("reference server: --auth-upstream needs --auth or --auth-issuer URL")
	}
	for _, f := range faults {
		if strings.HasPrefix(f, "auth-") && !authOn {
			return usagef("reference server: fault %s breaks a resource-server rule: it needs --auth or --auth-issuer URL", f)
		}
	}
	delay, err := parseStartDelay(*startDelay)
	if err != nil {
		return usagef("reference server: --start-delay: %v", err)
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-e.ctx.Done():
			t.Stop()
			return nil
		}
	}
	srv, err := server.New(server.Options{PageSize: *pageSize, Faults: faults, Logs: e.stderr})
	if err != nil {
		return usagef("reference server: %v (run with --list-faults to see them)", err)
	}
	defer srv.Close()
	if *stdio {
		err := srv.ServeStdio(e.ctx, e.stdin, e.stdout, e.stderr)
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	addr := *httpAddr
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	} else if !strings.Contains(addr, ":") {
		addr = "127.0.0.1:" + addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("reference server: cannot listen on %s: %v (pick another port, or 127.0.0.1:0 for any free one)", addr, err)
	}
	hopts := server.HTTPOptions{JSONResponses: *jsonResp, LegacySSE: *legacy}
	if authOn {
		issuer := *authIssuer
		if *authEmbedded {
			as, err := authserver.Start("127.0.0.1:0", authserver.Options{MintEndpoint: true, Scopes: strings.Fields(*authScope)})
			if err != nil {
				ln.Close()
				return fmt.Errorf("reference server: the embedded authorization server: %v", err)
			}
			defer as.Close()
			issuer = as.URL
			fmt.Fprintf(e.stderr, "mcpcheck authorization server (trusted, with the mint API) at %s\n", as.URL)
		}
		hopts.Auth = &server.AuthOptions{Issuer: issuer, Resource: "http://" + ln.Addr().String() + "/mcp", Scopes: strings.Fields(*authScope), Upstream: *authUpstream}
	}
	hs := &http.Server{
		Handler:           srv.HTTPHandler(hopts),
		ReadHeaderTimeout: 10 * time.Second,
		// net/http's own complaints go to our stderr, never the process's.
		ErrorLog: log.New(e.stderr, "mcpcheck reference server: http: ", 0),
	}
	fmt.Fprintf(e.stderr, "mcpcheck reference server listening on http://%s/mcp\n", ln.Addr())
	if *legacy {
		fmt.Fprintf(e.stderr, "legacy HTTP+SSE endpoint: http://%s/sse\n", ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("reference server: %v", err)
	case <-e.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Close()
	if err := hs.Shutdown(ctx); err != nil {
		hs.Close()
	}
	return nil
}

// parseStartDelay reads --start-delay: "" (none), a duration ("3s"), or a
// range "MIN-MAX" ("2s-12s") from which a delay is drawn at random.
func parseStartDelay(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	lo, hi, isRange := strings.Cut(s, "-")
	min, err := time.ParseDuration(lo)
	if err != nil || min < 0 {
		return 0, fmt.Errorf("%q is not a duration or a range MIN-MAX such as 2s-12s", s)
	}
	if !isRange {
		return min, nil
	}
	max, err := time.ParseDuration(hi)
	if err != nil || max < min {
		return 0, fmt.Errorf("%q is not a range MIN-MAX with MIN <= MAX, such as 2s-12s", s)
	}
	return min + time.Duration(rand.Int64N(int64(max-min)+1)), nil
}
