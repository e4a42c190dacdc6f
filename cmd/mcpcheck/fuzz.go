package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/harness/toolpolicy"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

const fuzzUsage = `Usage: mcpcheck fuzz --stdio "CMD ARGS" | --url URL [--transport T] [flags]
       mcpcheck fuzz --client "CMD" | --client-stdio "CMD" [flags]
       mcpcheck fuzz merge DIR... --out DIR [--format LIST]

Runs a fuzz campaign against one MCP server: mutated bytes, framing, JSON and
protocol state (and hostile HTTP requests with --url: bad headers, slow
bodies, lying Content-Lengths ...), each followed by a liveness probe.
Crashes, hangs and protocol violations become findings, each minimized and
written to its own directory with a replay command.

With --client or --client-stdio mcpcheck plays a hostile server to an MCP
client instead. The client is launched once per execution (as by 'mcpcheck
client') with MCP_CONFORMANCE_SCENARIO=tools_call: it must list the tools,
call add_numbers and exit. After a clean run, each input bends the server's
answer to one of the client's requests: mutated answers (envelope, ids,
types, sizes, nesting, unicode), unexpected messages, server-to-client
request storms (sampling, elicitation, roots, ping), notifications with bad
params, stdio framing damage, and for HTTP clients status and header
mutations, redirects, lying lengths and broken SSE (split events, bogus ids,
retry extremes, endless keep-alive). The client crashes (a signal or a crash
report), hangs (does not answer the ping sent after the input, or does not
finish in time), grows past --max-rss, or breaks a client-side rule of the
protocol (each cited by requirement): each becomes a finding, replayed with
'mcpcheck replay FINDING --client ...'.

Flags:
  --stdio "CMD ARGS"       run CMD as a stdio server (one process per worker, restarted after a crash)
` + sandboxUsage + `  --url URL                an HTTP server: its streamable HTTP endpoint, or with --transport sse
                           the SSE endpoint of a 2024-11-05 HTTP+SSE server
  --transport T            how to speak to --url: streamable (default), sse (the legacy HTTP+SSE
                           transport: GET opens the event stream, messages are POSTed to the
                           endpoint it announces) or auto (probe the URL once before the campaign)
  --header K:V             add an HTTP header (repeatable; --url only)
  --header-env K:ENVVAR    add an HTTP header whose value is read from ENVVAR (repeatable; --url only)
  --protocol V             the protocol version to speak (default latest: the newest the target speaks;
                           a server that answers server/discover as a legacy server does, or not at
                           all, gets 2025-11-25, as does a client whose clean run asks only for
                           initialize; 2024-11-05 over sse). A 2026-07-28 named here against a
                           legacy server or client judges nothing (exit 3)
  --duration D             stop after D (default 1m when --max-execs is not given)
  --max-execs N            stop after N executions
  --seed N                 campaign seed (default: random, printed)
  --workers N              target instances fuzzed in parallel (default 1)
  --wait D                 liveness deadline after each input (default 5s)
  --startup-timeout D      how long a fresh instance (a process just started, a new HTTP session) may
                           take to say anything, its handshake or a fresh input's first exchange
                           (default 1m, never less than --wait; as for mcpcheck server): a slow start
                           is never a hang or an unreachable target; later waits keep --wait
  --mutators LIST          mutator names or families, comma separated (default all; see --list-mutators)
  --call-tools P           which of the server's tools the protocol/tool-call mutator calls with
                           random arguments: readonly (default: only readOnlyHint: true), additive,
                           all, NAME,... or readonly,NAME,... (as mcpcheck server; generated
                           arguments never confirm anything). Widen it only on a disposable instance
  --list-mutators          list the mutators and exit
  --findings DIR           where findings are written (default OUT/findings with --out, else mcpcheck-findings)
  --out DIR                write the campaign summary (mcpcheck-fuzz.json) and the reports of --format into DIR
  --format LIST            text,json,html,md (default text; json is the campaign summary)
  --shard K/N              run shard K of N of the campaign: the inputs i of the seed's sequence
                           with i mod N = K-1 (--max-execs bounds the whole sequence); run K=1..N
                           with the same --seed and flags, e.g. as CI matrix jobs, each with its
                           own --out, and join them with 'mcpcheck fuzz merge' (server and client
                           campaigns alike)

Client campaigns:
  --client "CMD"           an HTTP client: CMD runs through sh -c with the stage's URL in place of
                           {url}, or appended
  --client-stdio "CMD"     a stdio client: CMD gets the server command line to start in place of
                           {server} ({server-line}: as one word), or appended
  --scenario NAME          the MCP_CONFORMANCE_SCENARIO the client gets (default tools_call)
  --client-timeout D       how long a client may wait for an answer that never comes before it
                           must give up by itself (default 65s; longer than its request timeout)
  --max-rss SIZE           memory bound of the client's processes, e.g. 512MiB or 2GiB (default 1GiB)
  --wait D                 the ping sent after each input must be answered within D, and the
                           client must finish within twice its clean run plus D (default 5s)

fuzz merge joins campaigns (the shards of one, or any campaigns of one protocol
version against one kind of target) from their --out directories: executions, time and per-mutator figures
add up, findings are deduplicated by signature, each keeping its reproducer
(its directory is copied to OUT/findings). It writes OUT/mcpcheck-fuzz.json and
the reports of --format, prints the summary and names any shard that is missing.

Exit codes: 0 no crash, hang or MUST-level violation found; 1 one was found;
2 usage error; 3 target unreachable (it never completed a handshake, so nothing
was judged), a shard missing from fuzz merge, or harness error; 5 interrupted
(Ctrl-C or SIGTERM: the summary and reports are written with what was judged,
and say after how many execs it stopped; never OK).
`

const replayUsage = `Usage: mcpcheck replay FINDING --stdio "CMD ARGS" | --url URL [--transport T] [flags]
       mcpcheck replay FINDING --client "CMD" | --client-stdio "CMD" [flags]

Replays a fuzz finding (its directory or its replay.json) against a fresh
instance of the target and says whether the same problem shows again. A
client campaign's finding is replayed by launching the client once against
a stage that plays the finding's input.

Flags:
  --stdio "CMD ARGS"       run CMD as a stdio server
` + sandboxUsage + `  --url URL                an HTTP server (streamable HTTP, or HTTP+SSE with --transport sse)
  --client "CMD"           an HTTP client (as for fuzz --client)
  --client-stdio "CMD"     a stdio client (as for fuzz --client-stdio)
  --scenario NAME          the client's MCP_CONFORMANCE_SCENARIO (default tools_call)
  --client-timeout D       bound for an input that leaves a request unanswered (default 65s)
  --transport T            how to speak to --url: streamable (default), sse or auto (as for fuzz)
  --header K:V             add an HTTP header (repeatable; --url only)
  --header-env K:ENVVAR    add an HTTP header whose value is read from ENVVAR (repeatable; --url only)
  --protocol V             speak V instead of the version recorded in the finding
  --original               replay the input as found instead of the minimized one
  --wait D                 liveness deadline (default: the finding's)
  --startup-timeout D      how long the fresh instance may take to say anything (default 1m, never
                           less than --wait; as for fuzz)

Exit codes: 0 the finding did not reproduce; 1 it reproduced; 2 usage error;
3 target unreachable or harness error.
`

// fuzzTarget is a parsed --stdio/--url with its headers and transport.
type fuzzTarget struct {
	target    fuzz.Target
	stdio     string // the command line as given
	url       string
	headers   []target.Header
	transport string // reports.Run.Transport: "stdio", "streamable" or "sse"
	// auto is set while --transport auto waits for detect.
	auto bool
	// exec is the target of --stdio, run in a sandbox made with sandbox.
	exec    *fuzz.ExecTarget
	sandbox target.SandboxOptions
}

// targetFlags registers --stdio, --url, --transport, --header and
// --header-env on fs.
type targetFlags struct {
	stdio, url, transport *string
	headers, headerEnvs   multiFlag
	sandbox               *sandboxFlags
}

func addTargetFlags(fs *flag.FlagSet) *targetFlags {
	tf := &targetFlags{stdio: fs.String("stdio", "", ""), url: fs.String("url", "", ""), transport: fs.String("transport", "", "")}
	fs.Var(&tf.headers, "header", "")
	fs.Var(&tf.headerEnvs, "header-env", "")
	tf.sandbox = addSandboxFlags(fs)
	return tf
}

// resolve turns the target flags into a fuzz target; cmd prefixes errors.
func (tf *targetFlags) resolve(cmd string) (fuzzTarget, error) {
	var ft fuzzTarget
	switch {
	case (*tf.stdio == "") == (*tf.url == ""):
		return ft, usagef("%s: give exactly one of --stdio \"CMD ARGS\" or --url URL", cmd)
	case *tf.stdio != "":
		if len(tf.headers) > 0 || len(tf.headerEnvs) > 0 {
			return ft, usagef("%s: --header and --header-env apply to --url only", cmd)
		}
		if *tf.transport != "" {
			return ft, usagef("%s: --transport applies to --url only (a --stdio server speaks stdio)", cmd)
		}
		if _, err := splitCommand(*tf.stdio); err != nil {
			return ft, usagef("%s: --stdio: %v", cmd, err)
		}
		et, err := fuzz.CommandTarget(*tf.stdio)
		if err != nil {
			return ft, usagef("%s: --stdio: %v", cmd, err)
		}
		ft.target, ft.stdio, ft.transport, ft.exec = et, *tf.stdio, reports.TargetStdio, et
		if ft.sandbox, err = tf.sandbox.options(cmd, true); err != nil {
			return ft, err
		}
		return ft, nil
	}
	if _, err := tf.sandbox.options(cmd, false); err != nil {
		return ft, err
	}
	var tr wire.Transport
	switch strings.ToLower(strings.TrimSpace(*tf.transport)) {
	case "", "streamable":
		tr = wire.TransportStreamable
	case "sse":
		tr = wire.TransportSSE
	case "auto":
		ft.auto = true
	default:
		return ft, usagef("%s: --transport %q: use streamable, sse or auto", cmd, *tf.transport)
	}
	t := target.URL(*tf.url)
	hs, err := parseHeaderFlags(cmd, tf.headers, tf.headerEnvs)
	if err != nil {
		return ft, err
	}
	t.Headers = hs
	if err := t.Validate(); err != nil {
		return ft, usagef("%s: %v", cmd, err)
	}
	hdr, err := t.HTTPHeader()
	if err != nil {
		return ft, usagef("%s: %v", cmd, err)
	}
	if len(hdr) == 0 {
		hdr = http.Header{}
	}
	ft.target = fuzz.HTTPTarget{URL: t.URL, Header: hdr, Transport: tr}
	ft.url, ft.headers, ft.transport = t.URL, t.Headers, string(tr)
	return ft, nil
}

// legacy reports whether ft speaks HTTP+SSE.
func (ft fuzzTarget) legacy() bool { return ft.transport == string(wire.TransportSSE) }

// describe names the target for progress lines.
func (ft fuzzTarget) describe() string {
	if ft.legacy() {
		return ft.target.Describe() + " (HTTP+SSE)"
	}
	return ft.target.Describe()
}

// detect resolves --transport auto, probing the URL once (target.Detect),
// and reports on w what it found. Other targets are left as they are.
func (ft *fuzzTarget) detect(ctx context.Context, w io.Writer, cmd string) error {
	if !ft.auto {
		return nil
	}
	h, evidence, err := ft.target.(fuzz.HTTPTarget).Detect(ctx, target.Timeouts{})
	if err != nil {
		return harnessError{fmt.Errorf("%s: --transport auto: %w", cmd, err)}
	}
	ft.target, ft.transport, ft.auto = h, string(h.Transport), false
	fmt.Fprintf(w, "mcpcheck %s: --transport auto: %s speaks %s (%s)\n", cmd, h.URL, h.Transport, strings.Join(evidence, "; "))
	return nil
}

// reproducer is the replay command of a finding against ft, shell-quoted.
// Header values given literally are not repeated (they may be secrets).
func (ft fuzzTarget) reproducer(f *fuzz.Finding) string {
	dir := f.Dir
	if dir == "" {
		dir = f.DirName()
	}
	parts := []string{programName, "replay", shellQuote(dir)}
	if ft.stdio != "" {
		parts = append(parts, "--stdio", shellQuote(ft.stdio))
		parts = append(parts, sandboxArgs(ft.sandbox)...)
	} else {
		parts = append(parts, "--url", shellQuote(ft.url))
		if ft.legacy() {
			parts = append(parts, "--transport", "sse")
		}
		for _, h := range ft.headers {
			if h.Env != "" {
				parts = append(parts, "--header-env", shellQuote(h.Name+":"+h.Env))
			} else {
				parts = append(parts, "--header", shellQuote(h.Name+":<value>"))
			}
		}
	}
	parts = append(parts, "--protocol", string(f.Version))
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < utf8.RuneSelf && (r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '=' || r == ',' || r == '@' || r == '+' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// parseOneVersion reads a single --protocol value ("latest" allowed).
func parseOneVersion(cmd, s string) (spec.Version, error) {
	if strings.TrimSpace(s) == "latest" {
		return spec.Latest, nil
	}
	v, err := spec.ParseVersion(strings.TrimSpace(s))
	if err != nil {
		return "", usagef("%s: --protocol %q: %v (or latest; one version per campaign)", cmd, s, err)
	}
	return v, nil
}

// fuzzOptions are the parsed flags of "mcpcheck fuzz".
type fuzzOptions struct {
	ft       fuzzTarget
	cfg      fuzz.Config
	out      string
	formats  []string
	seedSet  bool
	listMuts bool
	// protocolSet says --protocol was given: without it an HTTP+SSE
	// target (found by --transport auto too) is fuzzed at 2024-11-05.
	protocolSet bool
	// client is set for a client campaign (--client, --client-stdio).
	client *fuzz.ClientConfig
}

// clientFlags are the flags of client campaigns and their replays.
type clientFlags struct {
	client, clientStdio, scenario *string
	clientTimeout                 *time.Duration
}

func addClientFlags(fs *flag.FlagSet) *clientFlags {
	return &clientFlags{client: fs.String("client", "", ""), clientStdio: fs.String("client-stdio", "", ""),
		scenario: fs.String("scenario", "", ""), clientTimeout: fs.Duration("client-timeout", fuzz.DefaultClientTimeout, "")}
}

// set reports whether a client was named.
func (cf *clientFlags) set() bool { return *cf.client != "" || *cf.clientStdio != "" }

// resolve checks the client flags against the server target flags and
// returns the client; cmd prefixes errors.
func (cf *clientFlags) resolve(cmd string, tf *targetFlags) (fuzz.ClientTarget, error) {
	var t fuzz.ClientTarget
	switch {
	case *cf.client != "" && *cf.clientStdio != "":
		return t, usagef("%s: give one of --client \"CMD\" (an HTTP client) or --client-stdio \"CMD\" (a stdio client), not both", cmd)
	case *tf.stdio != "" || *tf.url != "" || *tf.transport != "" || len(tf.headers) > 0 || len(tf.headerEnvs) > 0:
		return t, usagef("%s: --client and --client-stdio fuzz a client, --stdio and --url a server; --transport and --header are for servers", cmd)
	case tf.sandbox.given():
		return t, usagef("%s: --cwd, --keep-home and --keep-sandbox are for a --stdio server; a client is launched as given", cmd)
	case *cf.clientTimeout <= 0:
		return t, usagef("%s: --client-timeout must be positive", cmd)
	case *cf.client != "":
		t = fuzz.ClientTarget{Command: *cf.client}
	default:
		t = fuzz.ClientTarget{Command: *cf.clientStdio, Stdio: true}
	}
	if _, err := splitCommand(t.Command); err != nil {
		return t, usagef("%s: --client: %v", cmd, err)
	}
	t.Scenario = *cf.scenario
	return t, nil
}

// parseSize reads a byte count such as 512MiB, 2GiB, 1G or 1048576.
func parseSize(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := uint64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q is no size; write it like 512MiB or 2GiB", s)
	}
	return n * mult, nil
}

var fuzzFormats = []string{"text", "json", "html", "md"}

func parseFuzzFlags(args []string, now func() time.Time) (fuzzOptions, error) {
	var o fuzzOptions
	fs := newFlags("fuzz")
	tf := addTargetFlags(fs)
	protocol := fs.String("protocol", "latest", "")
	duration := fs.Duration("duration", 0, "")
	maxExecs := fs.Int64("max-execs", 0, "")
	seed := fs.Uint64("seed", 0, "")
	workers := fs.Int("workers", 1, "")
	wait := fs.Duration("wait", fuzz.DefaultWait, "")
	startup := fs.Duration("startup-timeout", fuzz.DefaultStartupTimeout, "")
	mutators := fs.String("mutators", "", "")
	callTools := fs.String("call-tools", string(toolpolicy.ReadOnly), "")
	listMuts := fs.Bool("list-mutators", false, "")
	findings := fs.String("findings", "", "")
	out := fs.String("out", "", "")
	format := fs.String("format", "text", "")
	shardFlag := fs.String("shard", "", "")
	cf := addClientFlags(fs)
	maxRSS := fs.String("max-rss", "", "")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return o, err
	}
	var shard fuzz.Shard
	if shard.K, shard.N, err = parseShard("fuzz", *shardFlag); err != nil {
		return o, err
	}
	if *listMuts {
		o.listMuts = true
		return o, nil
	}
	if len(pos) > 0 {
		return o, usagef("fuzz: unexpected argument %q", pos[0])
	}
	startupSet := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "seed":
			o.seedSet = true
		case "protocol":
			// latest is the default's meaning: the newest version the
			// target speaks.
			o.protocolSet = strings.TrimSpace(*protocol) != "latest"
		case "startup-timeout":
			startupSet = true
		}
	})
	var client fuzz.ClientTarget
	if cf.set() {
		if client, err = cf.resolve("fuzz", tf); err != nil {
			return o, err
		}
		if startupSet {
			return o, usagef("fuzz: --startup-timeout is for a server campaign (--stdio, --url); a client campaign bounds each launch with --client-timeout")
		}
	} else {
		if *maxRSS != "" || *cf.scenario != "" {
			return o, usagef("fuzz: --max-rss and --scenario are for client campaigns (--client, --client-stdio)")
		}
		if o.ft, err = tf.resolve("fuzz"); err != nil {
			return o, err
		}
	}
	v, err := parseOneVersion("fuzz", *protocol)
	if err != nil {
		return o, err
	}
	if !o.protocolSet && o.ft.legacy() {
		v = spec.V20241105 // the version of the HTTP+SSE transport
	}
	switch {
	case *duration < 0:
		return o, usagef("fuzz: --duration must not be negative")
	case *maxExecs < 0:
		return o, usagef("fuzz: --max-execs must not be negative")
	case *workers < 1 || *workers > 256:
		return o, usagef("fuzz: --workers must be between 1 and 256, got %d", *workers)
	case *wait <= 0:
		return o, usagef("fuzz: --wait must be positive")
	case *startup <= 0:
		return o, usagef("fuzz: --startup-timeout must be a positive duration, such as 60s")
	}
	if *duration == 0 && *maxExecs == 0 {
		*duration = time.Minute
	}
	if *maxExecs > 0 && shard.Share(*maxExecs) == 0 {
		return o, usagef("fuzz: --shard %s: --max-execs %d leaves this shard no input; split the campaign into at most %d shards", shard, *maxExecs, *maxExecs)
	}
	if !o.seedSet {
		*seed = uint64(now().UnixNano())
	}
	var muts []string
	if strings.TrimSpace(*mutators) != "" {
		known := map[string]bool{}
		names := fuzz.MutatorNames()
		if cf.set() {
			names = fuzz.ClientMutatorNames()
		}
		for _, n := range names {
			known[n], known[fuzz.LookupFamily(n)] = true, true
		}
		for _, m := range strings.Split(*mutators, ",") {
			m = strings.TrimSpace(m)
			if m == "" {
				continue
			}
			if !known[m] {
				return o, usagef("fuzz: --mutators: no mutator or family %q (see mcpcheck fuzz --list-mutators)", m)
			}
			muts = append(muts, m)
		}
		if _, isHTTP := o.ft.target.(fuzz.HTTPTarget); !isHTTP && !cf.set() {
			for _, m := range muts {
				if m == "http" || strings.HasPrefix(m, "http/") {
					return o, usagef("fuzz: --mutators %s: the http family needs --url", m)
				}
			}
		}
	}
	for _, f := range strings.Split(*format, ",") {
		f = strings.TrimSpace(f)
		ok := false
		for _, k := range fuzzFormats {
			ok = ok || f == k
		}
		if !ok {
			return o, usagef("fuzz: --format %q: use %s", f, strings.Join(fuzzFormats, ", "))
		}
		o.formats = append(o.formats, f)
	}
	o.out = *out
	if o.out == "" && (len(o.formats) != 1 || o.formats[0] != "text") {
		return o, usagef("fuzz: --format %s writes files: give --out DIR", *format)
	}
	dir := *findings
	if dir == "" {
		dir = "mcpcheck-findings"
		if o.out != "" {
			dir = filepath.Join(o.out, "findings")
		}
	}
	if cf.set() {
		cc := &fuzz.ClientConfig{Client: client, Version: v, Duration: *duration, MaxExecs: *maxExecs, Seed: *seed,
			Workers: *workers, FindingsDir: dir, Wait: *wait, ClientTimeout: *cf.clientTimeout, Mutators: muts, Shard: shard}
		if *maxRSS != "" {
			if cc.MaxRSS, err = parseSize(*maxRSS); err != nil {
				return o, usagef("fuzz: --max-rss: %v", err)
			}
		}
		cc.Reproducer = clientReproducer(client, *cf.clientTimeout)
		o.client = cc
		return o, nil
	}
	policy, err := toolpolicy.Parse(*callTools)
	if err != nil {
		return o, usagef("fuzz: %v", err)
	}
	o.cfg = fuzz.Config{
		Target: o.ft.target, Version: v, Duration: *duration, MaxExecs: *maxExecs, Seed: *seed,
		Workers: *workers, FindingsDir: dir, Wait: *wait, StartupTimeout: *startup, Mutators: muts, Reproducer: o.ft.reproducer, Shard: shard,
		ToolPolicy: policy,
	}
	return o, nil
}

// clientReproducer is the replay command of a client campaign's finding,
// shell-quoted.
func clientReproducer(t fuzz.ClientTarget, timeout time.Duration) func(*fuzz.Finding) string {
	return func(f *fuzz.Finding) string {
		dir := f.Dir
		if dir == "" {
			dir = f.DirName()
		}
		flag := "--client"
		if t.Stdio {
			flag = "--client-stdio"
		}
		parts := []string{programName, "replay", shellQuote(dir), flag, shellQuote(t.Command)}
		if t.Scenario != "" {
			parts = append(parts, "--scenario", shellQuote(t.Scenario))
		}
		if timeout != fuzz.DefaultClientTimeout {
			parts = append(parts, "--client-timeout", timeout.String())
		}
		return strings.Join(append(parts, "--protocol", string(f.Version)), " ")
	}
}

// fuzzMain runs "mcpcheck fuzz ARGS".
func fuzzMain(e *env, args []string) error {
	if len(args) > 0 && args[0] == "merge" {
		return fuzzMergeMain(e, args[1:])
	}
	o, err := parseFuzzFlags(args, time.Now)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, fuzzUsage)
			return nil
		}
		return err
	}
	if o.listMuts {
		return listMutators(e.stdout)
	}
	if o.client != nil {
		return runClientFuzz(e, o)
	}
	return runFuzz(e, o)
}

func listMutators(w io.Writer) error {
	for _, m := range fuzz.Mutators() {
		fmt.Fprintf(w, "%-32s %s\n", m.Name, m.Doc)
	}
	for _, m := range fuzz.HTTPMutators() {
		fmt.Fprintf(w, "%-32s %s (--url only)\n", m.Name, m.Doc)
	}
	fmt.Fprintf(w, "\nClient campaigns (--client, --client-stdio) use bytes, json, protocol and (stdio) framing on\nthe server's messages, and these:\n")
	for _, m := range fuzz.ClientMutators(true) {
		switch m.Family() {
		case "server":
			fmt.Fprintf(w, "%-32s %s\n", m.Name, m.Doc)
		case "reply", "sse":
			fmt.Fprintf(w, "%-32s %s (--client only)\n", m.Name, m.Doc)
		}
	}
	return nil
}

// progressPrinter prints campaign progress lines at most once a second and
// keeps the last state for the final line.
type progressPrinter struct {
	w       io.Writer
	mu      sync.Mutex
	printed time.Time
	last    fuzz.Progress
}

func (p *progressPrinter) update(pr fuzz.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = pr
	now := time.Now()
	if !p.printed.IsZero() && now.Sub(p.printed) < 900*time.Millisecond { // ticks come once a second, give or take
		return
	}
	p.printed = now
	fmt.Fprintf(p.w, "mcpcheck fuzz: %s\n", progressLine(pr, pr.ExecsPerSec))
}

func progressLine(pr fuzz.Progress, rate float64) string {
	return fmt.Sprintf("%6s  %8d execs  %7.1f execs/s  %d findings (%d crashes, %d hangs)  %d methods covered  %d restarts",
		pr.Elapsed.Round(time.Second), pr.Execs, rate, pr.Findings, pr.Crashes, pr.Hangs, pr.MethodsCovered, pr.Restarts)
}

// lockedWriter serializes writes: progress and findings are reported from
// the campaign's goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func runFuzz(e *env, o fuzzOptions) error {
	if o.ft.auto {
		if err := o.ft.detect(e.ctx, e.stderr, "fuzz"); err != nil {
			return err
		}
		o.cfg.Target, o.cfg.Reproducer = o.ft.target, o.ft.reproducer
		if !o.protocolSet && o.ft.legacy() {
			o.cfg.Version = spec.V20241105
		}
	}
	cfg := o.cfg
	// Without --protocol, 2026-07-28 is the newest version the target may
	// speak: a legacy server is fuzzed at 2025-11-25, not judged by a
	// revision it never claimed (its answers would break 2026-07-28's
	// schema).
	cfg.NewestSpoken = !o.protocolSet
	if e.fuzzMinimizeBudget != 0 {
		cfg.MinimizeBudget = e.fuzzMinimizeBudget
	}
	stderr := &lockedWriter{w: e.stderr}
	pp := &progressPrinter{w: stderr}
	cfg.Progress = pp.update
	cfg.OnFinding = func(f *fuzz.Finding) {
		fmt.Fprintf(stderr, "mcpcheck fuzz: new finding: %s %s%s -> %s\n", f.Kind, f.Check, reqSuffix(f.Requirement, string(f.Level)), f.Dir)
	}
	shard := ""
	if cfg.Shard.N > 0 {
		shard = ", shard " + cfg.Shard.String()
	}
	fmt.Fprintf(stderr, "mcpcheck fuzz: %s, protocol %s, seed %d%s, %d worker(s), %s; findings go to %s\n",
		o.ft.describe(), cfg.Version, cfg.Seed, shard, cfg.Workers, bounds(cfg), cfg.FindingsDir)
	// A command runs in a sandbox of the campaign's own (see
	// target.Sandbox).
	var sbx *target.Sandbox
	if o.ft.exec != nil {
		var err error
		if sbx, err = openSandbox("fuzz", o.ft.sandbox); err != nil {
			return err
		}
		o.ft.exec.Sandbox = sbx
	}
	started := time.Now()
	res, err := fuzz.Run(e.ctx, cfg)
	fx := closeSandbox(e, "fuzz", sbx)
	if sbx == nil {
		fx = httpSideEffects()
	}
	if err != nil && (res == nil || e.ctx.Err() != nil) { // else the target was never reached: reported below
		if e.ctx.Err() != nil {
			return interruptedError{fmt.Sprintf("fuzz: interrupted before the campaign started (%v); nothing was judged", err)}
		}
		return harnessError{fmt.Errorf("fuzz: %w", err)}
	}
	rate := 0.0
	if res.Duration > 0 {
		rate = float64(res.Execs) / res.Duration.Seconds()
	}
	fmt.Fprintf(stderr, "mcpcheck fuzz: done %s\n", progressLine(pp.last, rate))
	if e.ctx.Err() != nil {
		fmt.Fprintf(stderr, "mcpcheck fuzz: interrupted; the summary covers the campaign so far\n")
	}

	var text strings.Builder
	writeFuzzText(&text, res, cfg.Reproducer)
	writeSideEffectsText(&text, fx)
	fmt.Fprint(e.stdout, text.String())

	if o.out != "" {
		if err := writeFuzzReports(o, res, started, text.String(), fx); err != nil {
			return err
		}
	}
	for _, msg := range res.Errors {
		fmt.Fprintf(stderr, "mcpcheck fuzz: campaign problem: %s\n", msg)
	}
	if res.Interrupted != "" {
		return interruptedCampaign(res, o.out)
	}
	if res.Verdict.Unjudged {
		return harnessError{fmt.Errorf("fuzz: %s", res.Verdict.Reason)}
	}
	if res.Verdict.Failed {
		return checkFailed{"fuzz: " + res.Verdict.Reason}
	}
	if len(res.Errors) > 0 {
		return harnessError{fmt.Errorf("fuzz: the campaign had %d problem(s); see above", len(res.Errors))}
	}
	return nil
}

// interruptedCampaign is the result of a campaign a signal ended: its
// summary and reports (in out, when given) were written with what it
// judged; it exits exitInterrupted, never 0.
func interruptedCampaign(res *fuzz.Result, out string) error {
	where := ""
	if out != "" {
		where = " in " + out
	}
	found := ""
	if res.Verdict.Failed {
		found = "; it had found " + res.Verdict.Reason
	}
	return interruptedError{fmt.Sprintf("fuzz: the campaign was interrupted after %d execs; its summary and reports%s hold what it judged%s", res.Execs, where, found)}
}

func bounds(cfg fuzz.Config) string {
	var b []string
	if cfg.Duration > 0 {
		b = append(b, "for "+cfg.Duration.String())
	}
	if cfg.MaxExecs > 0 {
		b = append(b, fmt.Sprintf("at most %d execs", cfg.MaxExecs))
	}
	return strings.Join(b, ", ")
}

func reqSuffix(req, level string) string {
	switch {
	case req != "" && level != "":
		return " (" + req + ", " + level + ")"
	case req != "":
		return " (" + req + ")"
	case level != "":
		return " (" + level + ")"
	}
	return ""
}

// writeFuzzText writes the campaign summary as text.
func writeFuzzText(w io.Writer, res *fuzz.Result, reproducer func(*fuzz.Finding) string) {
	rate := "n/a"
	if res.Duration > 0 {
		rate = fmt.Sprintf("%.1f", float64(res.Execs)/res.Duration.Seconds())
	}
	fmt.Fprintf(w, "Fuzz campaign against %s\n", printableText(res.Target))
	fmt.Fprintf(w, "  protocol %s, seed %d, %d worker(s)", res.Version, res.Seed, res.Workers)
	if res.Shard != "" {
		fmt.Fprintf(w, ", shard %s", res.Shard)
	}
	fmt.Fprintln(w)
	if res.VersionNote != "" {
		fmt.Fprintf(w, "  %s\n", printableText(res.VersionNote))
	}
	for _, p := range res.Parts {
		shard := ""
		if p.Shard != "" {
			shard = " shard " + p.Shard
		}
		fmt.Fprintf(w, "  merged from %s:%s seed %d, %d execs in %s, %d finding(s)\n", printableText(p.Dir), shard, p.Seed, p.Execs, p.Duration.Round(time.Millisecond), p.Findings)
	}
	restarts := "target restarts"
	if res.Role == "client" {
		restarts = "client launches"
	}
	fmt.Fprintf(w, "  %d execs in %s (%s execs/s), %d %s", res.Execs, res.Duration.Round(time.Millisecond), rate, res.Restarts, restarts)
	if res.RestartTime > 0 {
		fmt.Fprintf(w, " (starting them took %s, %s of it waited for: %s of the campaign's time)",
			res.RestartTime.Round(time.Millisecond), res.RestartWait.Round(time.Millisecond), strconv.FormatFloat(100*res.RestartShare(), 'f', 1, 64)+" %")
	}
	if res.PeakHeapBytes > 0 {
		fmt.Fprintf(w, ", fuzzer peak heap %.1f MiB", float64(res.PeakHeapBytes)/(1<<20))
	}
	if res.PeakRSSBytes > 0 {
		fmt.Fprintf(w, ", peak RSS %.1f MiB", float64(res.PeakRSSBytes)/(1<<20))
	}
	fmt.Fprintln(w)
	if res.SlowProbes > 0 {
		fmt.Fprintf(w, "  %d liveness probe(s) answered only after the liveness wait (--wait) ran out, within the confirmation window: not hangs, but the target is slow or the machine busy; a longer --wait keeps hang verdicts safe\n", res.SlowProbes)
	}
	methods := make([]string, 0, len(res.MethodsCovered))
	for m := range res.MethodsCovered {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	if len(methods) == 0 {
		methods = []string{"(none answered)"}
	}
	if c := res.Client; c != nil {
		fmt.Fprintf(w, "  clean run: %d request(s) (%s) in %s, %s; each run was given %s", len(c.Requests), strings.Join(c.Requests, ", "), c.Took.Round(time.Millisecond), c.Exit, c.Deadline.Round(time.Millisecond))
		if c.PeakRSSBytes > 0 {
			fmt.Fprintf(w, "; client peak RSS %.1f MiB", float64(c.PeakRSSBytes)/(1<<20))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  %d methods covered: %s\n", len(res.MethodsCovered), strings.Join(methods, ", "))
	fmt.Fprintf(w, "\n%d finding(s)\n", len(res.Findings))
	for _, f := range res.Findings {
		fmt.Fprintf(w, "  %-9s %s%s\n", f.Kind, printableText(f.Check), reqSuffix(f.Requirement, string(f.Level)))
		fmt.Fprintf(w, "            %s\n", printableText(oneLineText(f.Message)))
		fmt.Fprintf(w, "            found by %s (seed %d) at exec %d, %d hit(s); reproduced: %v; input %d bytes, minimized %d\n",
			f.Mutator, f.Seed, f.Exec, f.Hits, f.Reproduced, f.InputSize, f.MinimizedSize)
		if f.Dir != "" {
			fmt.Fprintf(w, "            dir: %s\n", printableText(f.Dir))
		}
		fmt.Fprintf(w, "            reproduce: %s\n", printableText(reproducer(f)))
	}
	for _, msg := range res.Errors {
		fmt.Fprintf(w, "  campaign problem: %s\n", printableText(msg))
	}
	// OK only for a campaign that judged what it set out to.
	switch {
	case res.Verdict.Failed:
		fmt.Fprintf(w, "\nFAIL: %s\n", res.Verdict.Reason)
		if res.Verdict.Unjudged {
			fmt.Fprintf(w, "NOT JUDGED in full: %s\n", printableText(res.Unjudged))
		}
	case res.Verdict.Unjudged:
		fmt.Fprintf(w, "\nNOT JUDGED: %s\n", printableText(res.Verdict.Reason))
	case len(res.Errors) > 0:
		fmt.Fprintf(w, "\nINCOMPLETE: the campaign had %d problem(s) (above); %s\n", len(res.Errors), res.Verdict.Reason)
	default:
		fmt.Fprintf(w, "\nOK: %s\n", res.Verdict.Reason)
	}
}

func writeFuzzReports(o fuzzOptions, res *fuzz.Result, started time.Time, text string, fx *reports.SideEffects) error {
	target := reports.Target{Role: "server", Kind: reports.TargetStdio, Command: o.ft.stdio}
	var ropts reports.Options
	if o.ft.url != "" {
		target = reports.Target{Role: "server", Kind: reports.TargetHTTP, URL: o.ft.url}
		if o.ft.legacy() {
			target.Kind = reports.TargetSSE
		}
		for _, h := range o.ft.headers {
			target.HeaderNames = append(target.HeaderNames, h.Name)
			ropts.Redaction.Headers = append(ropts.Redaction.Headers, h.Name)
		}
	}
	return writeFuzzOutputs(o.out, o.formats, res, o.cfg.Reproducer, started, text, target, o.ft.transport, ropts, fx)
}

// writeFuzzFiles writes the campaign summary (fuzz.SummaryFile) and the
// reports of formats into out.
func writeFuzzFiles(out string, formats []string, res *fuzz.Result, reproducer func(*fuzz.Finding) string, started time.Time, text string, target reports.Target, transport string, ropts reports.Options) error {
	return writeFuzzOutputs(out, formats, res, reproducer, started, text, target, transport, ropts, nil)
}

// writeFuzzOutputs is writeFuzzFiles with the side effects of the
// campaign's target (nil when they were not looked at).
func writeFuzzOutputs(out string, formats []string, res *fuzz.Result, reproducer func(*fuzz.Finding) string, started time.Time, text string, target reports.Target, transport string, ropts reports.Options, fx *reports.SideEffects) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return harnessError{fmt.Errorf("--out: %v", err)}
	}
	write := func(name string, fn func(io.Writer) error) error {
		path := filepath.Join(out, name)
		if err := writeFile(path, fn); err != nil {
			return harnessError{fmt.Errorf("writing %s: %v", path, err)}
		}
		return nil
	}
	// The campaign summary is always written: it is what CI keeps.
	if err := write(fuzz.SummaryFile, writeFuzzSummary(res, fx)); err != nil {
		return err
	}
	sum := res.Summary(reproducer, 200)
	run := reports.Run{
		Tool:      reports.Tool{Name: programName, Version: programVersion},
		Target:    target,
		Started:   started,
		Duration:  res.Duration,
		Versions:  []spec.Version{res.Version},
		Transport: transport,
		Fuzz:      &sum,
		Unjudged:  fuzzUnjudged(res),
	}
	if res.VersionNote != "" {
		// A NewestSpoken campaign fell back: the target said it does
		// not speak the latest version.
		run.Versions, run.Unspoken = append(run.Versions, spec.Latest), []spec.Version{spec.Latest}
	}
	run.SideEffects = fx
	for _, f := range formats {
		var err error
		switch f {
		case "text":
			err = write("mcpcheck-fuzz.txt", func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
		case "html":
			err = write("mcpcheck-fuzz.html", func(w io.Writer) error { return reports.WriteHTML(w, &run, ropts) })
		case "md":
			err = write("mcpcheck-fuzz.md", func(w io.Writer) error { return reports.WriteMarkdown(w, &run, ropts) })
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// replayMain runs "mcpcheck replay FINDING ARGS".
func replayMain(e *env, args []string) error {
	fs := newFlags("replay")
	tf := addTargetFlags(fs)
	cf := addClientFlags(fs)
	protocol := fs.String("protocol", "", "")
	original := fs.Bool("original", false, "")
	wait := fs.Duration("wait", 0, "")
	startup := fs.Duration("startup-timeout", fuzz.DefaultStartupTimeout, "")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, replayUsage)
			return nil
		}
		return err
	}
	switch len(pos) {
	case 0:
		return usagef("replay: give the finding to replay: its directory or its %s", fuzz.FileReplay)
	case 1:
	default:
		return usagef("replay: one finding at a time; unexpected argument %q", pos[1])
	}
	var ft fuzzTarget
	var client fuzz.ClientTarget
	if cf.set() {
		if client, err = cf.resolve("replay", tf); err != nil {
			return err
		}
	} else if ft, err = tf.resolve("replay"); err != nil {
		return err
	}
	var opts fuzz.ReplayOptions
	opts.Original = *original
	if *protocol != "" {
		if opts.Version, err = parseOneVersion("replay", *protocol); err != nil {
			return err
		}
	}
	if *wait < 0 {
		return usagef("replay: --wait must not be negative")
	}
	if *startup <= 0 {
		return usagef("replay: --startup-timeout must be a positive duration, such as 60s")
	}
	opts.Wait, opts.StartupTimeout = *wait, *startup
	rf, err := fuzz.LoadReplay(pos[0])
	if err != nil {
		return usagef("replay: %v", err)
	}
	if (rf.Input.Client != nil) != cf.set() {
		if cf.set() {
			return usagef("replay: %s comes from a server campaign; replay it with --stdio or --url", pos[0])
		}
		return usagef("replay: %s comes from a client campaign; replay it with --client \"CMD\" or --client-stdio \"CMD\"", pos[0])
	}
	if err := ft.detect(e.ctx, e.stderr, "replay"); err != nil {
		return err
	}
	which := "minimized"
	if opts.Original {
		which = "original"
	}
	v := rf.Version
	if opts.Version != "" {
		v = opts.Version
	}
	var res *fuzz.ReplayResult
	var sbx *target.Sandbox
	if ft.exec != nil {
		if sbx, err = openSandbox("replay", ft.sandbox); err != nil {
			return err
		}
		ft.exec.Sandbox = sbx
	}
	if cf.set() {
		opts.ClientTimeout = *cf.clientTimeout
		fmt.Fprintf(e.stderr, "mcpcheck replay: %s input of %s against %s, protocol %s\n", which, pos[0], client.Describe(), v)
		res, err = fuzz.ReplayClient(e.ctx, pos[0], client, opts)
	} else {
		fmt.Fprintf(e.stderr, "mcpcheck replay: %s input of %s against %s, protocol %s\n", which, pos[0], ft.describe(), v)
		res, err = fuzz.Replay(e.ctx, pos[0], ft.target, opts)
	}
	fx := closeSandbox(e, "replay", sbx)
	if err != nil {
		return harnessError{fmt.Errorf("replay: %w", err)}
	}
	w := e.stdout
	fmt.Fprintf(w, "Expected: %s %s%s\n          %s\n", res.Expect.Kind, printableText(res.Expect.Check), reqSuffix(res.Expect.Requirement, string(res.Expect.Level)), printableText(oneLineText(res.Expect.Message)))
	fmt.Fprintf(w, "\nObservations (%d):\n", len(res.Observations))
	for _, ob := range res.Observations {
		mark := " "
		if ob.Signature() == res.Expect.Signature() {
			mark = "*"
		}
		fmt.Fprintf(w, " %s %-9s %s%s\n     %s\n", mark, ob.Kind, printableText(ob.Check), reqSuffix(ob.Requirement, string(ob.Level)), printableText(oneLineText(ob.Message)))
	}
	fmt.Fprintf(w, "\nTranscript (%d events):\n", len(res.Transcript))
	writeTranscriptText(w, res.Transcript)
	if len(res.StderrTail) > 0 {
		fmt.Fprintf(w, "\nTarget stderr (tail):\n")
		for _, l := range strings.Split(strings.TrimRight(string(res.StderrTail), "\n"), "\n") {
			fmt.Fprintf(w, "  | %s\n", printableText(l))
		}
	}
	writeSideEffectsText(w, fx)
	if res.Reproduced {
		fmt.Fprintf(w, "\nREPRODUCED: %s %s\n", res.Expect.Kind, printableText(res.Expect.Check))
		return checkFailed{"replay: the finding reproduced"}
	}
	fmt.Fprintf(w, "\nNOT REPRODUCED: the target did not show %s %s again\n", res.Expect.Kind, printableText(res.Expect.Check))
	return nil
}

// maxEventText bounds one transcript event printed by replay.
const maxEventText = 4096

func writeTranscriptText(w io.Writer, evs []reports.WireEvent) {
	for _, ev := range evs {
		arrow := "  "
		switch ev.Direction {
		case reports.Sent:
			arrow = "->"
		case reports.Received:
			arrow = "<-"
		case reports.Note:
			arrow = "--"
		}
		var body string
		if b, err := ev.Bytes(); err == nil && len(b) > 0 {
			cut := ""
			if len(b) > maxEventText {
				cut = fmt.Sprintf(" ... (%d bytes in all)", len(b))
				b = b[:maxEventText]
			}
			t := strings.TrimSuffix(string(b), "\n")
			if t == "" || printableText(t) != t {
				t = printableText(string(b))
			}
			body = t + cut
		}
		if ev.Note != "" {
			if body != "" {
				body += "  "
			}
			body += "(" + printableText(ev.Note) + ")"
		}
		if ev.HTTP != nil {
			h := ev.HTTP
			if h.Status != 0 {
				body = fmt.Sprintf("HTTP %d %s", h.Status, body)
			} else if h.Method != "" {
				body = fmt.Sprintf("%s %s %s", h.Method, printableText(h.URL), body)
			}
		}
		fmt.Fprintf(w, "  %9s %s %s\n", ev.Offset.Round(time.Microsecond), arrow, body)
	}
}

// printableText returns s as is when every rune is printable, else its Go
// quoted form, so a hostile target cannot drive the terminal.
func printableText(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || (!unicode.IsPrint(r) && r != ' ') {
			return strconv.Quote(s)
		}
	}
	return s
}

func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
