package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/scenarios"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

const serverUsage = `Usage: mcpcheck server --stdio "CMD ARGS" | --url URL [flags]

Runs the server conformance suites against one MCP server, once per protocol
version, and reports every check with the requirement IDs it enforces.

Flags:
  --stdio "CMD ARGS"       run CMD as a stdio server (killed as a process group)
  --url URL                an HTTP server (streamable HTTP or legacy HTTP+SSE)
  --transport T            auto (default), streamable or sse (with --url)
` + sandboxUsage + `  --protocol V             a version (2025-11-25), a comma list, all (default) or latest
  --label-filter EXPR      Ginkgo label filter, e.g. 'area:base && level:must'
  --header K:V             add an HTTP header (repeatable)
  --header-env K:ENVVAR    add an HTTP header whose value is read from ENVVAR (repeatable)
  --auth-issuer URL        the target trusts the tokens of this mcpcheck authserver (with --url):
                           the authorization checks mint their tokens at its mint API, and,
                           without an Authorization header, the run presents a valid token of
                           it (for the URL, with the scopes of its protected resource metadata)
  --auth-upstream ADDR     mcpcheck plays the upstream API the target calls while serving a
                           request (configure the target to call http://ADDR/; loopback
                           host:port): authorization/token-passthrough sees whether a client's token
                           is passed on to it
  --timeout D              wait at most D for each answer (default 10s)
  --startup-timeout D      how long a fresh connection may take to say anything, a server process
                           starting up (default 1m): a slow start is never taken for silence
  --quiet D                watch D for what must not arrive once an exchange settled (default
                           250ms; at least 3 times the target's typical answer time, at most
                           --timeout); longer catches later strays. The report states it
  --call-tools P           which tools the checks call black-box: readonly (default: only tools
                           annotated readOnlyHint: true; the spec presumes any other tool may
                           be destructive), additive (also destructiveHint: false), all, or
                           NAME,NAME,... (only those), or a tier and names (readonly,NAME);
                           every called tool's result is judged, tools the policy skips are
                           reported untestable with the flag that calls them, never as
                           passing. Use additive or all only against a disposable instance
  --tool-args FILE         arguments for the tool calls, JSON: {"tool": {...}} or
                           {"tool": [{...}, {...}]} (one call per object); tools without an
                           entry get arguments generated from their inputSchema
  --parallel N             checks run at the same time (default 12 over HTTP; over stdio 4
                           per core, 8 to 16); 1 runs them one after another, as before.
                           Checks that change what every session shares run alone; outcomes
                           do not depend on N
  --one-instance           for a server of which one instance can run at a time (a fixed port,
                           a lock file): keep at most one of its processes alive, run one
                           check at a time and stop the idle sessions before another starts;
                           the few checks that need two sessions at once are untestable
                           (--stdio only)
  --deadline D             end the whole run after D (default 30m); like SIGINT/SIGTERM it
                           writes every report with what was judged and exits 5
  --baseline FILE          expected failures (JSON); stale entries fail the run
  --out DIR                write the reports of --format into DIR
  --format LIST            text,json,junit,md,html,sarif (default text)
  --sarif-path FILE        the file SARIF results are located in, relative to the repository
                           root (GitHub code scanning shows no alert without one); default:
                           the stdio command's script argument (build/index.js), else README.md
  --verbose                keep transcripts of passing checks; progress per check
` + colorUsage + `  --strict                 unexpected warnings (SHOULD broken) and baseline entries
                           without "requirements" fail the run too (exit 1)
  --shard K/N              run shard K of N: the active checks split N ways by check and version
                           (every passive check runs in each shard); run K=1..N with the same
                           flags, e.g. as CI matrix jobs, and join the JSON reports with
                           'mcpcheck report merge' (see the README)

Exit codes: 0 no unexpected failure; 1 unexpected failures (MUST broken) or
stale baseline entries; 2 usage error (also a selection that matches no
check); 3 target unreachable, nothing judged (in a version --protocol named,
or initialization never completed in any version) or harness error; 5 interrupted (a signal or --deadline; the reports hold what was judged).
`

// harnessError is mcpcheck failing to do its job (exit 3).
type harnessError struct{ err error }

func (e harnessError) Error() string { return e.err.Error() }
func (e harnessError) Unwrap() error { return e.err }

// serverOptions are the parsed flags of "mcpcheck server".
type serverOptions struct {
	target      target.Target
	versions    []spec.Version
	labelFilter string
	timeout     time.Duration
	startup     time.Duration
	deadline    time.Duration
	baseline    string
	out         string
	formats     []reports.Format
	verbose     bool
	// explicitVersions: --protocol named the versions (each must be judged).
	explicitVersions bool
	// strict: unexpected warnings (SHOULD broken) fail the run too.
	strict bool
	// shard is --shard K/N (the zero value runs every check).
	shard scenarios.Shard
	// parallel is --parallel (0: the default for the target).
	parallel int
	// oneInstance is --one-instance.
	oneInstance bool
	// quiet is --quiet, the silence window.
	quiet time.Duration
	// tools is --call-tools and --tool-args.
	tools scenarios.ToolPolicy
	// sandbox is --cwd, --keep-home and --keep-sandbox (stdio targets).
	sandbox target.SandboxOptions
	// color is --color; sarifPath is --sarif-path.
	color, sarifPath string
}

// serverMain runs "mcpcheck server ARGS".
func serverMain(e *env, args []string) error {
	o, err := parseServerFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, serverUsage)
			return nil
		}
		return err
	}
	return runServerSuite(e, o)
}

// defaultMain is "mcpcheck" without arguments: the full suite against the
// embedded reference server, over stdio, in every version. The target is
// this very binary ("mcpcheck reference server --stdio").
func defaultMain(e *env) error {
	return defaultWithFlags(e, nil)
}

func parseServerFlags(args []string) (serverOptions, error) {
	fs := newFlags("server")
	stdio := fs.String("stdio", "", "")
	url := fs.String("url", "", "")
	transport := fs.String("transport", "auto", "")
	protocol := fs.String("protocol", "all", "")
	labelFilter := fs.String("label-filter", "", "")
	timeout := fs.Duration("timeout", 10*time.Second, "")
	startup := fs.Duration("startup-timeout", session.DefaultStartupTimeout, "")
	quiet := fs.Duration("quiet", 250*time.Millisecond, "")
	deadline := fs.Duration("deadline", 30*time.Minute, "")
	baseline := fs.String("baseline", "", "")
	out := fs.String("out", "", "")
	format := fs.String("format", "text", "")
	verbose := fs.Bool("verbose", false, "")
	strict := fs.Bool("strict", false, "")
	shard := fs.String("shard", "", "")
	parallel := fs.Int("parallel", 0, "")
	oneInstance := fs.Bool("one-instance", false, "")
	callTools := fs.String("call-tools", string(scenarios.CallReadOnly), "")
	toolArgs := fs.String("tool-args", "", "")
	sbf := addSandboxFlags(fs)
	color := addColorFlag(fs)
	sarifPath := fs.String("sarif-path", "", "")
	authIssuer := fs.String("auth-issuer", "", "")
	authUpstream := fs.String("auth-upstream", "", "")
	var headers, headerEnvs multiFlag
	fs.Var(&headers, "header", "")
	fs.Var(&headerEnvs, "header-env", "")
	if err := parseFlags(fs, args); err != nil {
		return serverOptions{}, err
	}
	if fs.NArg() > 0 {
		return serverOptions{}, usagef("server: unexpected argument %q", fs.Arg(0))
	}
	o := serverOptions{labelFilter: *labelFilter, timeout: *timeout, startup: *startup, deadline: *deadline, baseline: *baseline, out: *out, verbose: *verbose, strict: *strict, parallel: *parallel, quiet: *quiet,
		color: *color, sarifPath: *sarifPath}
	if err := parseColor("server", *color); err != nil {
		return o, err
	}
	if *quiet <= 0 {
		return o, usagef("server: --quiet must be a positive duration, such as 250ms or 1s")
	}
	if *startup <= 0 {
		return o, usagef("server: --startup-timeout must be a positive duration, such as 60s")
	}
	if flagSet(fs, "parallel") && *parallel < 1 {
		return o, usagef("server: --parallel must be at least 1 (1 runs the checks one after another)")
	}
	o.oneInstance = *oneInstance
	switch {
	case *oneInstance && *url != "":
		return o, usagef("server: --one-instance applies to --stdio only: a server at a URL is one server already")
	case *oneInstance && *parallel > 1:
		return o, usagef("server: --one-instance runs one check at a time; leave --parallel out")
	}
	var err error
	if o.shard.K, o.shard.N, err = parseShard("server", *shard); err != nil {
		return o, err
	}
	if o.tools, err = parseToolPolicy(*callTools, *toolArgs); err != nil {
		return o, err
	}
	// A filter that does not parse is a usage error before anything runs.
	if _, err := suite.ParseLabelFilter(*labelFilter); err != nil {
		return o, usagef("server: --label-filter: %v", err)
	}
	if *deadline <= 0 {
		return o, usagef("server: --deadline must be positive")
	}
	switch {
	case (*stdio == "") == (*url == ""):
		return o, usagef("server: give exactly one of --stdio \"CMD ARGS\" or --url URL")
	case *stdio != "":
		argv, err := splitCommand(*stdio)
		if err != nil {
			return o, usagef("server: --stdio: %v", err)
		}
		o.target = target.Command(argv[0], argv[1:]...)
		if *transport != "auto" {
			return o, usagef("server: --transport applies to --url only")
		}
		if len(headers) > 0 || len(headerEnvs) > 0 {
			return o, usagef("server: --header and --header-env apply to --url only")
		}
	default:
		o.target = target.URL(*url)
		tr, err := target.ParseTransport(*transport)
		if err != nil || (tr != target.Auto && tr != target.Streamable && tr != target.SSE) {
			return o, usagef("server: --transport %q: use auto, streamable or sse", *transport)
		}
		o.target.Transport = tr
	}
	if o.sandbox, err = sbf.options("server", *stdio != ""); err != nil {
		return o, err
	}
	hs, err := parseHeaderFlags("server", headers, headerEnvs)
	if err != nil {
		return o, err
	}
	for _, h := range hs {
		if h.Env != "" && os.Getenv(h.Env) == "" {
			return o, usagef("server: --header-env %s:%s: the environment variable %s is empty or unset; export it or drop the header", h.Name, h.Env, h.Env)
		}
	}
	o.target.Headers = append(o.target.Headers, hs...)
	o.target.AuthIssuer = *authIssuer
	o.target.AuthUpstream = *authUpstream
	if *timeout <= 0 {
		return o, usagef("server: --timeout must be positive")
	}
	o.target.Timeouts.Step = *timeout
	if err := o.target.Validate(); err != nil {
		return o, usagef("server: %v", err)
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
		return o, usagef("server: --format %s writes files: give --out DIR", *format)
	}
	return o, nil
}

// authRunHeader gives a run with --auth-issuer and no Authorization header
// a valid token of the issuer for the whole run (see runToken).
func authRunHeader(e *env, o *serverOptions) error {
	if o.target.AuthIssuer == "" {
		return nil
	}
	for _, h := range o.target.Headers {
		if strings.EqualFold(h.Name, "Authorization") {
			return nil
		}
	}
	tok, scope, err := runToken(o.target.AuthIssuer, o.target.URL, o.deadline+5*time.Minute)
	if err != nil {
		return harnessError{fmt.Errorf("server: --auth-issuer %s: minting the run's token: %v; give an mcpcheck authserver the target trusts, or a token with --header-env Authorization:ENVVAR", o.target.AuthIssuer, err)}
	}
	fmt.Fprintf(e.stderr, "mcpcheck: the run presents a valid token of %s for %s (scope %q)\n", o.target.AuthIssuer, o.target.URL, scope)
	o.target.Headers = append(o.target.Headers, target.Header{Name: "Authorization", Value: "Bearer " + tok})
	return nil
}

// parseToolPolicy reads --call-tools and --tool-args.
func parseToolPolicy(calls, argsFile string) (scenarios.ToolPolicy, error) {
	p, err := scenarios.ParseToolPolicy(calls)
	if err != nil {
		return p, usagef("server: %v", err)
	}
	if argsFile != "" {
		if p.Args, err = scenarios.ReadToolArgs(argsFile); err != nil {
			return p, usagef("server: %v", err)
		}
		p.ArgsFile = argsFile
	}
	return p, nil
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// explicitProtocol reports whether --protocol named versions (a list, or
// latest) rather than asking for all the target speaks.
func explicitProtocol(s string) bool {
	s = strings.TrimSpace(s)
	return s != "all" && s != ""
}

// parseProtocol reads --protocol: all, latest, a version, or a comma list.
func parseProtocol(s string) ([]spec.Version, error) {
	switch strings.TrimSpace(s) {
	case "all", "":
		return append([]spec.Version(nil), spec.Versions...), nil
	case "latest":
		return []spec.Version{spec.Latest}, nil
	}
	var out []spec.Version
	for _, p := range strings.Split(s, ",") {
		v, err := spec.ParseVersion(strings.TrimSpace(p))
		if err != nil {
			return nil, usagef("server: --protocol %q: %v (or use all, latest)", p, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func lookupFormats(s string) ([]reports.Format, error) {
	var out []reports.Format
	for _, name := range strings.Split(s, ",") {
		f, err := reports.LookupFormat(strings.TrimSpace(name))
		if err != nil {
			return nil, usagef("server: --format: %v", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// splitCommand turns a --stdio value into an argv (see target.SplitCommand).
func splitCommand(s string) ([]string, error) { return target.SplitCommand(s) }

func runServerSuite(e *env, o serverOptions) error {
	bl, err := readBaseline("server", o.baseline)
	if err != nil {
		return err
	}
	if err := checkOutDir("server", o.out); err != nil {
		return err
	}
	if c := o.target.Command; c != "" {
		// A command that cannot start gets its verdict at once, not one
		// error line per check.
		if _, err := exec.LookPath(c); err != nil {
			return harnessError{fmt.Errorf("server: the target could not be started: %v; check the command and PATH", err)}
		}
	}
	// A command runs in a sandbox of the run's own (see target.Sandbox).
	var sbx *target.Sandbox
	if o.target.Command != "" {
		if sbx, err = openSandbox("server", o.sandbox); err != nil {
			return err
		}
		o.target.Sandbox = sbx
	}
	if err := authRunHeader(e, &o); err != nil {
		return err
	}
	start := time.Now()
	prog := newProgress(e, o.verbose, colorOn(e, e.stderr, o.color))
	res, err := scenarios.Run(e.ctx, scenarios.Config{
		Target:      o.target,
		Versions:    o.versions,
		LabelFilter: o.labelFilter,
		Session:     session.Config{Timeout: o.timeout, StartupTimeout: o.startup},
		Quiet:       o.quiet,
		RunTimeout:  o.deadline,
		Verbose:     o.verbose,
		Progress:    prog.check,
		Tool:        reports.Tool{Name: programName, Version: programVersion},
		Shard:       o.shard,
		Parallel:    o.parallel,
		OneInstance: o.oneInstance,
		ToolPolicy:  o.tools,
	})
	prog.finish()
	fx := closeSandbox(e, "server", sbx)
	if sbx == nil && o.target.URL != "" {
		fx = httpSideEffects()
	}
	interrupted := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	unreachable := errors.Is(err, scenarios.ErrUnreachable) && len(res.Report.Checks) > 0
	badPolicy := errors.Is(err, scenarios.ErrToolPolicy)
	if err != nil && !interrupted && !unreachable && !badPolicy {
		if strings.Contains(err.Error(), "label filter") {
			return usagef("server: --label-filter: %v", err)
		}
		return harnessError{fmt.Errorf("server: %w", err)}
	}
	run := res.Report
	run.SideEffects = fx
	ropts := reports.Options{Verbose: o.verbose, Strict: o.strict, SARIFPath: o.sarifPath, Color: colorOn(e, e.stdout, o.color)}
	for _, h := range o.target.Headers {
		ropts.Redaction.Headers = append(ropts.Redaction.Headers, h.Name)
	}
	run.Unjudged = runUnjudged(&run, bl, res.Problems, o.explicitVersions, o.strict)
	if unreachable || badPolicy {
		run.Unjudged = err.Error() // what the command exits on, after the reports
	}
	if err := writeReports(e, &run, bl, ropts, o.out, "mcpcheck-server", o.formats); err != nil {
		return err
	}
	serial := ""
	if res.Serial {
		serial = "; one at a time once the target sent messages of 1 MiB or more, or flooded"
	}
	if res.Throttled > 0 {
		serial += fmt.Sprintf("; fewer, down to %d, while the target's answers slowed under the load", res.Lowest)
	}
	if res.Confirmed > 0 {
		serial += fmt.Sprintf("; %d re-run alone because a wait went unanswered", res.Confirmed)
	}
	fmt.Fprintf(e.stderr, "mcpcheck: %d checks in %s (%d connections to the target, up to %d checks at a time%s)\n", len(run.Checks), roundDuration(time.Since(start)), res.Starts, res.Parallel, serial)
	if res.FailedBeside > 0 && !o.oneInstance {
		fmt.Fprintf(e.stderr, "mcpcheck: note: %d of the target's processes exited with a failure before they said anything, while another of its processes was running. A server of which one instance can run at a time (a fixed port, a lock file) fails checks that way for no fault of its own: if yours is one, run again with --one-instance\n", res.FailedBeside)
	}
	if interrupted {
		return interruptedRun(err, o.out)
	}
	if unreachable {
		// The reports say, check by check, what the target did instead.
		return harnessError{fmt.Errorf("server: %w", err)}
	}
	if badPolicy {
		// The run is reported, but it did not call what the user asked.
		return usagef("server: %v", err)
	}
	return judgeRun(&run, res.Problems, o.explicitVersions, o.strict)
}

// readBaseline reads --baseline (nil when none was given); a file that is
// missing or malformed is a usage error of cmd.
func readBaseline(cmd, path string) (*reports.Baseline, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("%s: --baseline: %v", cmd, err)
	}
	defer f.Close()
	bl, err := reports.ParseBaseline(path, f)
	if err != nil {
		return nil, usagef("%s: --baseline: %v", cmd, err)
	}
	return bl, nil
}

// checkOutDir makes sure --out can take the reports before any traffic:
// a run whose results cannot be written is a usage error found at once,
// not after the run.
func checkOutDir(cmd, out string) error {
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usagef("%s: --out %s: %v", cmd, out, err)
	}
	f, err := os.CreateTemp(out, ".mcpcheck-write-test-*")
	if err != nil {
		return usagef("%s: --out %s is not writable: %v", cmd, out, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// writeReports applies the baseline, prints the text report and writes
// the formats into out (as base plus each format's extension).
func writeReports(e *env, run *reports.Run, bl *reports.Baseline, ropts reports.Options, out, base string, formats []reports.Format) error {
	if bl != nil {
		reports.Apply(run, bl)
	}
	if err := reports.WriteText(e.stdout, run, ropts); err != nil {
		return harnessError{err}
	}
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return harnessError{fmt.Errorf("--out: %v", err)}
	}
	for _, f := range formats {
		path := filepath.Join(out, base+f.Extension)
		if err := writeFile(path, func(w io.Writer) error { return f.Write(w, run, ropts) }); err != nil {
			return harnessError{fmt.Errorf("writing %s: %v", path, err)}
		}
	}
	return nil
}

// interruptedRun is the result of a run a signal or the deadline ended.
func interruptedRun(err error, out string) error {
	why := "interrupted by a signal"
	if errors.Is(err, context.DeadlineExceeded) {
		why = "stopped at its --deadline"
	}
	where := ""
	if out != "" {
		where = " in " + out
	}
	return interruptedError{fmt.Sprintf("the run was %s; the reports%s hold what was judged, the rest is marked not run", why, where)}
}

// judgeRun turns a finished run into the command's result: a usage error
// when the selection matched no check (nothing judged is no pass), a harness
// error for problems, a failure for unexpected failures, errors and stale
// baseline entries, and a harness error when nothing was judged (see
// nothingJudged).
func judgeRun(run *reports.Run, problems []error, explicit, strict bool) error {
	if len(run.Checks) == 0 && len(problems) == 0 {
		return usagef("the selection (--label-filter, --protocol) matched no check: nothing was judged; widen it (mcpcheck spec list shows the areas)")
	}
	if len(problems) > 0 {
		return harnessError{fmt.Errorf("the run had harness problems: %w", errors.Join(problems...))}
	}
	if err := neverInitialized(run); err != nil {
		return err
	}
	if err := nothingJudged(run, false); err != nil {
		// Nothing at all was judged (every check n/a, untestable or a
		// harness error: a target that never said anything): no
		// conformance verdict, whatever the errors.
		return err
	}
	j := reports.Verdict(run)
	if j.Failed(strict) {
		return checkFailed{j.Summary(strict)}
	}
	return nothingJudged(run, explicit)
}

// initializeCheck is the check whose outcome says whether a server target
// got through initialization in a version.
const initializeCheck = "lifecycle/initialize-result"

// neverInitialized is the verdict of a server run in which initialization
// never completed in any version because the harness could not even talk
// to the target (every initialize check ended in error or untestable: the
// URL serves something that is not MCP, the transport is the wrong one).
// Such a run is a harness verdict (exit 3) naming the first cause, even
// when a transport check failed on the way: the failures it holds are
// about a target that is not an MCP server, not conformance findings a
// baseline should absorb. A target that answered initialize wrongly fails
// that check instead, and the run is judged as usual.
func neverInitialized(run *reports.Run) error {
	seen := false
	var cause string
	for _, c := range run.Checks {
		if c.ID != initializeCheck {
			continue
		}
		seen = true
		switch c.Outcome {
		case reports.Error, reports.Untestable:
			if cause == "" {
				cause = fmt.Sprintf("%s over %s: %s", c.Version, c.Transport, c.Reason)
			}
		case reports.NA:
		default:
			return nil
		}
	}
	if !seen || cause == "" {
		return nil
	}
	return harnessError{fmt.Errorf("the target never completed initialization in any version, so nothing about its conformance was judged (first cause: %s); check the URL, --transport and that the target is an MCP server", cause)}
}

// nothingJudged is the verdict of a run in which no check reached pass,
// fail or warn (every one n/a or untestable: the target spoke none of the
// versions, or never got through initialization), or, when the versions
// were named (--protocol V or latest), in which some named version had no
// such check. Nothing judged is no pass.
func nothingJudged(run *reports.Run, explicit bool) error {
	judged := map[spec.Version]int{}
	total := 0
	for _, c := range run.Checks {
		if slices.Contains(run.Unspoken, c.Version) && c.Outcome == reports.Pass {
			continue // how a server says it does not speak a version judges nothing of that version
		}
		if c.Outcome == reports.Pass || c.Outcome == reports.Fail || c.Outcome == reports.Warn {
			judged[c.Version]++
			total++
		}
	}
	if total == 0 {
		return harnessError{errors.New("nothing was judged: every check is n/a, untestable or a harness error (the target spoke none of the requested versions, never got through initialization, or never said anything); the report says why for each")}
	}
	if !explicit {
		return nil
	}
	var none []string
	for _, v := range run.Versions {
		if judged[v] == 0 {
			none = append(none, string(v))
		}
	}
	if len(none) > 0 {
		return harnessError{fmt.Errorf("nothing was judged in %s, which --protocol asked for: every check there is n/a or untestable (the target does not speak it, or never got through initialization)", strings.Join(none, ", "))}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseHeaderFlags turns --header NAME:VALUE and --header-env NAME:ENVVAR
// values into target headers; cmd names the subcommand in usage errors.
func parseHeaderFlags(cmd string, headers, headerEnvs []string) ([]target.Header, error) {
	var out []target.Header
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("%s: --header %q: use NAME:VALUE", cmd, h)
		}
		out = append(out, target.Header{Name: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	for _, h := range headerEnvs {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return nil, usagef("%s: --header-env %q: use NAME:ENVVAR", cmd, h)
		}
		out = append(out, target.Header{Name: strings.TrimSpace(k), Env: strings.TrimSpace(v)})
	}
	return out, nil
}
