package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/asuite"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

const authserverCheckUsage = `Usage:
  mcpcheck authserver-check --url ISSUER [flags]

Judges an OAuth 2.1 authorization server as MCP clients need it: its
RFC 8414 / OpenID Connect discovery metadata (issuer, endpoints, S256 in
code_challenge_methods_supported, https), the authorization code grant
(state round trip, PKCE required, single-use codes), exact redirect URI
matching and no open redirect, iss in authorization responses (RFC 9207),
refresh token rotation for public clients, token lifetime, dynamic client
registration (2025-06-18) and client ID metadata documents (2025-11-25 on:
mcpcheck hosts the documents on a loopback port, so the server must run on
this machine to fetch them). One verdict per check and protocol version.

The checks act as a public client: registered dynamically, through a
client ID metadata document, or the one named by --client-id and
--redirect-uri. The authorization endpoint must consent without a person
(mcpcheck authserver does; a test tenant with automatic consent): a check
whose valid request is not granted at once is untestable, never passed.

Flags:
  --url ISSUER             the issuer identifier (the metadata is found from it)
  --protocol LIST          versions to judge (default 2025-06-18,2025-11-25,2026-07-28)
  --client-id ID           a pre-registered public client (with --redirect-uri)
  --redirect-uri URI       its registered redirect URI
  --resource URI           the resource (an MCP server's URL) to ask tokens for (RFC 8707)
  --scope SCOPE            the scope to ask for
  --check ID               run only this check (repeatable)
  --timeout D              bound of each HTTP exchange (default 10s)
  --deadline D             bound of the whole run (0: none)
  --out DIR --format LIST  write reports (text,json,junit,md,html,sarif)
  --verbose                keep transcripts of passing checks

Exit codes as 'mcpcheck server': 0 passed, 1 requirements broken, 2 usage,
3 harness error or nothing judged, 5 interrupted.
`

// authserverCheckMain runs "mcpcheck authserver-check".
func authserverCheckMain(e *env, args []string) error {
	fs := flag.NewFlagSet("mcpcheck authserver-check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	issuer := fs.String("url", "", "")
	protocol := fs.String("protocol", "", "")
	clientID := fs.String("client-id", "", "")
	redirect := fs.String("redirect-uri", "", "")
	resource := fs.String("resource", "", "")
	scope := fs.String("scope", "", "")
	timeout := fs.Duration("timeout", 10*time.Second, "")
	deadline := fs.Duration("deadline", 0, "")
	out := fs.String("out", "", "")
	format := fs.String("format", "text", "")
	verbose := fs.Bool("verbose", false, "")
	var only multiFlag
	fs.Var(&only, "check", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, authserverCheckUsage)
			return nil
		}
		return usagef("authserver-check: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("authserver-check: unexpected argument %q", fs.Arg(0))
	}
	if *issuer == "" {
		return usagef("authserver-check: give --url ISSUER")
	}
	if (*clientID == "") != (*redirect == "") {
		return usagef("authserver-check: --client-id and --redirect-uri go together")
	}
	var versions []spec.Version
	explicit := *protocol != ""
	if explicit {
		vs, err := parseProtocol(*protocol)
		if err != nil {
			return usagef("authserver-check: %v", strings.TrimPrefix(err.Error(), "server: "))
		}
		versions = vs
	}
	formats, err := lookupFormats(*format)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, d := range asuite.Checks() {
		known[d.ID] = true
	}
	for _, id := range only {
		if !known[id] {
			return usagef("authserver-check: --check %q: no such check", id)
		}
	}
	if err := checkOutDir("authserver-check", *out); err != nil {
		return err
	}
	ctx := e.ctx
	if *deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *deadline)
		defer cancel()
	}
	start := time.Now()
	res, err := asuite.Run(ctx, asuite.Config{Issuer: *issuer, Versions: versions, Only: only, ClientID: *clientID, RedirectURI: *redirect,
		Resource: *resource, Scope: *scope, Timeout: *timeout, Verbose: *verbose,
		Tool: reports.Tool{Name: programName, Version: programVersion},
		Progress: func(c reports.Check) {
			if *verbose || c.Outcome == reports.Fail || c.Outcome == reports.Warn || c.Outcome == reports.Error || c.Outcome == reports.Untestable {
				fmt.Fprintf(e.stderr, "  %-10s %s [%s]\n", c.Outcome, c.ID, c.Version)
			}
		}})
	interrupted := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	if err != nil && !interrupted {
		return usagef("authserver-check: %v", err)
	}
	run := res.Report
	if err := writeReports(e, &run, nil, reports.Options{Verbose: *verbose}, *out, "mcpcheck-authserver", formats); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "mcpcheck: %d authorization-server checks in %s\n", len(run.Checks), time.Since(start).Round(time.Millisecond))
	if interrupted {
		return interruptedRun(err, *out)
	}
	return judgeRun(&run, res.Problems, explicit, false)
}
