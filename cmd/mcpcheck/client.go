package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	clientsuite "github.com/mcpcheck/mcpcheck/internal/scenarios/client"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

const clientUsage = `Usage: mcpcheck client --command "CMD" | --stdio "CMD" [flags]

Checks an MCP client: mcpcheck plays the server and launches the client once
per scenario, in every protocol version, then judges everything the client
did against the client-side requirements of the catalog.

  --command "CMD"   an HTTP client: CMD runs through sh -c with the case's URL
                    in place of {url}, or appended as the last argument
  --stdio "CMD"     a stdio client: CMD gets the server command line to start
                    (mcpcheck relaying to the harness) in place of {server},
                    or appended

Each launch gets MCP_CONFORMANCE_SCENARIO (the scenario: an official
conformance-suite name or an mcpcheck-* one), MCP_CONFORMANCE_PROTOCOL_VERSION
and, where a scenario needs it, MCP_CONFORMANCE_CONTEXT, as the official
suite sets them; clients without a scenario harness are judged on what they
do on their own and what the stage provokes, and checks that need an action
they did not take are untestable.

Flags:
  --protocol V             a version, a comma list, all (default) or latest
  --label-filter EXPR      Ginkgo label filter, e.g. 'area:lifecycle'
  --header K:V             add an HTTP header to every answer of the stage (HTTP clients;
                           repeatable), for clients that need one from their server's gateway
  --header-env K:ENVVAR    the same, with the value read from ENVVAR (not on the command line)
  --parallel N             client launches at once (default 8)
  --case-timeout D         bound on one launch, from the client's first message (default 20s)
  --startup-timeout D      how long a launched client may take to send its first message
                           (default 1m): a host starting slowly is not taken for a silent one
  --deadline D             end the whole run after D (default 30m); like SIGINT/SIGTERM it
                           writes every report with what was judged and exits 5
  --baseline FILE          expected failures (JSON); stale entries fail the run
  --out DIR                write the reports of --format into DIR
  --format LIST            text,json,junit,md,html,sarif,badge (default text)
  --sarif-path FILE        the file SARIF results are located in, relative to the repository
                           root (GitHub code scanning shows no alert without one); default:
                           the command's script argument (build/index.js), else README.md
  --verbose                keep transcripts of passing checks; progress per check
` + colorUsage + `  --strict                 unexpected warnings (SHOULD broken) and baseline entries
                           without "requirements" fail the run too (exit 1)

Exit codes: 0 no unexpected failure; 1 unexpected failures (MUST broken) or
stale baseline entries; 2 usage error (also a selection that matches no
check); 3 the client never connected, nothing was judged (in a version
--protocol named), or a harness error; 5 interrupted (a signal or --deadline; the reports hold what
was judged).
`

type clientOptions struct {
	launch      clientsuite.Launch
	versions    []spec.Version
	labelFilter string
	parallel    int
	caseTimeout time.Duration
	startup     time.Duration
	deadline    time.Duration
	baseline    string
	out         string
	formats     []reports.Format
	verbose     bool
	header      http.Header
	// explicitVersions: --protocol named the versions (each must be judged).
	explicitVersions bool
	// strict: unexpected warnings (SHOULD broken) fail the run too.
	strict bool
	// color is --color; sarifPath is --sarif-path.
	color, sarifPath string
}

// clientMain runs "mcpcheck client ARGS".
func clientMain(e *env, args []string) error {
	o, err := parseClientFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, clientUsage)
			return nil
		}
		return err
	}
	return runClientSuite(e, o)
}

func parseClientFlags(args []string) (clientOptions, error) {
	fs := newFlags("client")
	command := fs.String("command", "", "")
	stdio := fs.String("stdio", "", "")
	protocol := fs.String("protocol", "all", "")
	labelFilter := fs.String("label-filter", "", "")
	parallel := fs.Int("parallel", 8, "")
	caseTimeout := fs.Duration("case-timeout", 20*time.Second, "")
	startup := fs.Duration("startup-timeout", clientsuite.DefaultStartupTimeout, "")
	deadline := fs.Duration("deadline", 30*time.Minute, "")
	baseline := fs.String("baseline", "", "")
	out := fs.String("out", "", "")
	format := fs.String("format", "text", "")
	verbose := fs.Bool("verbose", false, "")
	strict := fs.Bool("strict", false, "")
	color := addColorFlag(fs)
	sarifPath := fs.String("sarif-path", "", "")
	var headers, headerEnvs multiFlag
	fs.Var(&headers, "header", "")
	fs.Var(&headerEnvs, "header-env", "")
	if err := parseFlags(fs, args); err != nil {
		return clientOptions{}, err
	}
	o := clientOptions{labelFilter: *labelFilter, parallel: *parallel, caseTimeout: *caseTimeout, startup: *startup, deadline: *deadline, baseline: *baseline, out: *out, verbose: *verbose, strict: *strict,
		color: *color, sarifPath: *sarifPath}
	if err := parseColor("client", *color); err != nil {
		return o, err
	}
	if *deadline <= 0 {
		return o, usagef("client: --deadline must be positive")
	}
	if fs.NArg() > 0 {
		return o, usagef("client: unexpected argument %q (quote the client's command line: --command \"CMD ARGS\")", fs.Arg(0))
	}
	switch {
	case (*command == "") == (*stdio == ""):
		return o, usagef("client: give exactly one of --command \"CMD\" (an HTTP client) or --stdio \"CMD\" (a stdio client)")
	case *command != "":
		o.launch = clientsuite.Launch{Command: *command}
	default:
		o.launch = clientsuite.Launch{Command: *stdio, Stdio: true}
	}
	if (len(headers) > 0 || len(headerEnvs) > 0) && *stdio != "" {
		return o, usagef("client: --header and --header-env apply to HTTP clients (--command) only")
	}
	hs, err := parseHeaderFlags("client", headers, headerEnvs)
	if err != nil {
		return o, err
	}
	for _, h := range hs {
		v := h.Value
		if h.Env != "" {
			if v = os.Getenv(h.Env); v == "" {
				return o, usagef("client: --header-env %s:%s: the environment variable %s is empty or unset", h.Name, h.Env, h.Env)
			}
		}
		if o.header == nil {
			o.header = http.Header{}
		}
		o.header.Add(h.Name, v)
	}
	if *parallel <= 0 {
		return o, usagef("client: --parallel must be at least 1")
	}
	if *caseTimeout <= 0 {
		return o, usagef("client: --case-timeout must be positive")
	}
	if *startup <= 0 {
		return o, usagef("client: --startup-timeout must be a positive duration, such as 60s")
	}
	o.explicitVersions = explicitProtocol(*protocol)
	vs, err := parseProtocol(*protocol)
	if err != nil {
		return o, err
	}
	o.versions = vs
	if o.formats, err = lookupFormats(*format); err != nil {
		return o, err
	}
	if o.out == "" && (len(o.formats) != 1 || o.formats[0].Name != "text") {
		return o, usagef("client: --format %s writes files: give --out DIR", *format)
	}
	return o, nil
}

func runClientSuite(e *env, o clientOptions) error {
	bl, err := readBaseline("client", o.baseline)
	if err != nil {
		return err
	}
	if err := checkOutDir("client", o.out); err != nil {
		return err
	}
	start := time.Now()
	prog := newProgress(e, o.verbose, colorOn(e, e.stderr, o.color))
	res, err := clientsuite.Run(e.ctx, clientsuite.Config{
		Launch:         o.launch,
		Versions:       o.versions,
		LabelFilter:    o.labelFilter,
		Parallel:       o.parallel,
		CaseTimeout:    o.caseTimeout,
		StartupTimeout: o.startup,
		RunTimeout:     o.deadline,
		Verbose:        o.verbose,
		Progress:       prog.check,
		ResponseHeader: o.header,
		Tool:           reports.Tool{Name: programName, Version: programVersion},
	})
	prog.finish()
	silent := errors.Is(err, clientsuite.ErrClientSilent)
	interrupted := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	if err != nil && !silent && !interrupted {
		if strings.Contains(err.Error(), "label filter") {
			return usagef("client: --label-filter: %v", err)
		}
		return harnessError{fmt.Errorf("client: %w", err)}
	}
	run := res.Report
	run.Unjudged = runUnjudged(&run, bl, res.Problems, o.explicitVersions, o.strict)
	if silent {
		run.Unjudged = err.Error() // what the command exits on, after the reports
	}
	if err := writeReports(e, &run, bl, reports.Options{Verbose: o.verbose, Strict: o.strict, SARIFPath: o.sarifPath, Color: colorOn(e, e.stdout, o.color)}, o.out, "mcpcheck-client", o.formats); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "mcpcheck: %d checks in %s (%d client launches, %d case judgements)\n", len(run.Checks), roundDuration(time.Since(start)), res.Cases, res.Judgements)
	if interrupted {
		return interruptedRun(err, o.out)
	}
	if silent {
		return harnessError{fmt.Errorf("client: %w", err)}
	}
	return judgeRun(&run, res.Problems, o.explicitVersions, o.strict)
}
