// Package cli is the command line of the reference client ("mcpcheck
// reference client"): connect to a server over stdio or HTTP, run one
// operation, print the answer for a person or as JSON.
//
// The package prints only through the writers of its Env and never exits;
// cmd/mcpcheck maps its errors to exit codes.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client"
	"github.com/mcpcheck/mcpcheck/internal/reference/client/internal/auth"
	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Env is what the command may touch of the outside world.
type Env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// UsageError is a mistake on the command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, a...)}
}

// ToolError says that a tool ran and reported an error (isError).
type ToolError struct{ Tool string }

func (e *ToolError) Error() string {
	return fmt.Sprintf("tool %q reported an error (see its output above)", e.Tool)
}

// Usage is the help text.
const Usage = `mcpcheck reference client — talk to any MCP server

Usage:
  mcpcheck reference client (--stdio "CMD ARGS" | --url URL) [flags] COMMAND [ARGS]

Commands:
  tools                       list the tools with their arguments
  call TOOL [--args JSON]     call a tool (arguments as a JSON object)
  resources                   list the resources
  read URI                    read a resource
  templates                   list the resource templates
  prompts                     list the prompts
  get PROMPT [--args JSON]    render a prompt (arguments as a JSON object of strings)
  complete --ref prompt:NAME|resource:URI_TEMPLATE --arg NAME [--value PREFIX] [--args JSON]
                              ask for argument completions
  ping                        check that the server answers
  watch [--for D]             print the server's notifications (list changes, logs,
                              resource updates) until interrupted or for D
  discover                    show what the server says about itself
  conformance URL             play a client scenario of the official conformance suite
                              (reads MCP_CONFORMANCE_SCENARIO and friends)

Flags:
  --stdio "CMD ARGS"          launch the server and talk over its stdin/stdout
  --url URL                   connect over HTTP (streamable HTTP, falling back to HTTP+SSE)
  --transport T               auto (default), streamable or sse, for --url
  --header "K: V"             add an HTTP header (repeatable)
  --env K=V                   add to the server's environment (repeatable, --stdio)
  --cwd DIR                   the server's working directory (--stdio)
  --protocol V                protocol version to offer (default: the latest, ` + string(spec.Latest) + `)
  --timeout D                 time limit for each request (default 30s; 10s in conformance)
  --root PATH                 expose a directory as a root (repeatable)
  --elicit MODE               answer elicitations: ask (default), accept, decline, cancel
  --sample-reply TEXT         answer sampling requests with this text (declares sampling)
  --log-level L               ask for server log messages of level L and above (shown on stderr)
  --client-id ID              pre-registered OAuth client id (with --client-secret S)
  --client-metadata-url URL   this client's client ID metadata document (an https URL)
  --scope "A B"               OAuth scopes to request instead of the server's suggestion
  --browser                   authorize in a browser: print the URL and wait for the redirect
                              on ` + auth.DefaultRedirectURI + ` (default: follow redirects headlessly)
  --json                      print JSON instead of text
  --fault NAME                turn on a fault switch: a deliberate defect that breaks one
                              requirement, to prove mcpcheck's client checks (repeatable)
  --list-faults               list the fault switches and the requirements they break
  --verbose                   show the server's stderr and protocol warnings

Exit codes: 0 done, 2 usage error, 3 the server failed or answered with an error.
`

// multi collects a repeatable flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// options is the parsed command line.
type options struct {
	stdio, url, transport, protocol, cwd, elicit, sampleReply string
	clientID, clientSecret, clientMetadataURL, scope          string
	logLevel                                                  string
	watchFor                                                  time.Duration
	browser                                                   bool
	headers, envs, roots, faults                              multi
	listFaults                                                bool
	timeout                                                   time.Duration
	timeoutSet                                                bool // --timeout was given
	asJSON, verbose                                           bool
	args, ref, arg, value                                     string
	pos                                                       []string
	// watching receives notifications during watch.
	watching func(method string, params json.RawMessage)
}

func parse(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("mcpcheck reference client", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.stdio, "stdio", "", "")
	fs.StringVar(&o.url, "url", "", "")
	fs.StringVar(&o.transport, "transport", "auto", "")
	fs.StringVar(&o.protocol, "protocol", "", "")
	fs.StringVar(&o.cwd, "cwd", "", "")
	fs.StringVar(&o.elicit, "elicit", "ask", "")
	fs.StringVar(&o.sampleReply, "sample-reply", "", "")
	fs.Var(&o.headers, "header", "")
	fs.Var(&o.envs, "env", "")
	fs.Var(&o.roots, "root", "")
	fs.DurationVar(&o.timeout, "timeout", client.DefaultTimeout, "")
	fs.BoolVar(&o.asJSON, "json", false, "")
	fs.BoolVar(&o.verbose, "verbose", false, "")
	fs.StringVar(&o.args, "args", "", "")
	fs.StringVar(&o.ref, "ref", "", "")
	fs.StringVar(&o.arg, "arg", "", "")
	fs.StringVar(&o.value, "value", "", "")
	fs.StringVar(&o.clientID, "client-id", "", "")
	fs.StringVar(&o.clientSecret, "client-secret", "", "")
	fs.StringVar(&o.clientMetadataURL, "client-metadata-url", "", "")
	fs.StringVar(&o.scope, "scope", "", "")
	fs.BoolVar(&o.browser, "browser", false, "")
	fs.StringVar(&o.logLevel, "log-level", "", "")
	fs.DurationVar(&o.watchFor, "for", 0, "")
	fs.Var(&o.faults, "fault", "")
	fs.BoolVar(&o.listFaults, "list-faults", false, "")
	// Flags may come before or after the command and its operands.
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, flag.ErrHelp
			}
			return nil, usagef("reference client: %v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		o.pos = append(o.pos, args[0])
		args = args[1:]
	}
	if o.timeout <= 0 {
		return nil, usagef("reference client: --timeout must be positive")
	}
	fs.Visit(func(f *flag.Flag) { o.timeoutSet = o.timeoutSet || f.Name == "timeout" })
	switch o.elicit {
	case "ask", "accept", "decline", "cancel":
	default:
		return nil, usagef("reference client: --elicit must be ask, accept, decline or cancel, not %q", o.elicit)
	}
	switch o.transport {
	case "auto", "streamable", "sse":
	default:
		return nil, usagef("reference client: --transport must be auto, streamable or sse, not %q", o.transport)
	}
	return o, nil
}

// Main runs the command line.
func Main(e Env, args []string) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	if o.listFaults {
		for _, f := range client.Faults() {
			fmt.Fprintf(e.Stdout, "%-36s %-58s %s\n", f.Name, f.Requirement, f.Description)
		}
		return nil
	}
	if len(o.pos) == 0 {
		return usagef("reference client: no command given; try 'tools' (run 'mcpcheck reference client --help' for all)")
	}
	if o.pos[0] == "help" {
		fmt.Fprint(e.Stdout, Usage)
		return nil
	}
	if o.pos[0] == "conformance" {
		return conformance(e, o)
	}
	cmd, err := checkCommand(o)
	if err != nil {
		return err
	}
	if (o.stdio == "") == (o.url == "") {
		return usagef("reference client: give exactly one of --stdio \"CMD\" or --url URL")
	}
	if o.pos[0] == "watch" {
		o.watching = watchPrinter(e, o)
	}
	c, err := dial(e, o, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	return cmd(e, o, c)
}

// command runs one operation on a connected client.
type command func(e Env, o *options, c *client.Client) error

func checkCommand(o *options) (command, error) {
	name, rest := o.pos[0], o.pos[1:]
	want := func(n int, what string) error {
		if len(rest) != n {
			if n == 0 {
				return usagef("reference client: %s takes no operands, got %q", name, strings.Join(rest, " "))
			}
			return usagef("reference client: %s needs %s", name, what)
		}
		return nil
	}
	var cmd command
	var err error
	switch name {
	case "tools":
		cmd, err = cmdTools, want(0, "")
	case "call":
		cmd, err = cmdCall, want(1, "a tool name: call TOOL [--args JSON]")
	case "resources":
		cmd, err = cmdResources, want(0, "")
	case "read":
		cmd, err = cmdRead, want(1, "a resource URI: read URI")
	case "templates":
		cmd, err = cmdTemplates, want(0, "")
	case "prompts":
		cmd, err = cmdPrompts, want(0, "")
	case "get":
		cmd, err = cmdGet, want(1, "a prompt name: get PROMPT [--args JSON]")
	case "complete":
		cmd, err = cmdComplete, want(0, "")
		if err == nil && (o.ref == "" || o.arg == "") {
			err = usagef("reference client: complete needs --ref prompt:NAME or resource:URI_TEMPLATE and --arg NAME")
		}
	case "ping":
		cmd, err = cmdPing, want(0, "")
	case "discover":
		cmd, err = cmdDiscover, want(0, "")
	case "watch":
		cmd, err = cmdWatch, want(0, "")
	default:
		return nil, usagef("reference client: unknown command %q (commands: tools, call, resources, read, templates, prompts, get, complete, ping, discover, watch, conformance)", name)
	}
	return cmd, err
}

// dial connects as the options say; extra adjusts the client options.
func dial(e Env, o *options, extra func(*client.Options)) (*client.Client, error) {
	var version spec.Version
	if o.protocol != "" {
		v, err := spec.ParseVersion(o.protocol)
		if err != nil {
			return nil, usagef("reference client: --protocol: %v", err)
		}
		version = v
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(e.Stderr, "warning: "+format+"\n", a...)
	}
	copts := client.Options{
		Version: version,
		Timeout: o.timeout,
		Logf:    logf,
		Tasks:   true,
		Faults:  o.faults,
	}
	if !o.verbose {
		// Protocol warnings that concern the user's result stay visible;
		// chatter about retries needs --verbose.
		copts.Logf = func(format string, a ...any) {
			if strings.Contains(format, "leaving out tool") {
				logf(format, a...)
			}
		}
	}
	for _, r := range o.roots {
		root, err := client.RootFromPath(r, "")
		if err != nil {
			return nil, usagef("reference client: --root: %v", err)
		}
		copts.Roots = append(copts.Roots, root)
	}
	copts.Elicitation = elicitationFor(e, o.elicit)
	if o.sampleReply != "" {
		reply := o.sampleReply
		copts.Sampling = &client.Sampling{Model: client.ModelFunc(func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.Single(&mcp.TextContent{Text: reply}), Model: "mcpcheck-canned", StopReason: mcp.StopEndTurn}, nil
		})}
	}
	if o.logLevel != "" {
		l, err := mcp.ParseLoggingLevel(o.logLevel)
		if err != nil {
			return nil, usagef("reference client: --log-level: %v", err)
		}
		copts.LogLevel = l
	}
	copts.OnNotification = func(method string, params json.RawMessage) {
		if method == spec.MethodLoggingMessage {
			printLog(e, params)
		}
		if o.watching != nil {
			o.watching(method, params)
		}
	}
	if extra != nil {
		extra(&copts)
	}
	conn, err := openTransport(e, o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(e.Ctx, 2*o.timeout)
	defer cancel()
	c, err := client.Connect(ctx, conn, copts)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", target(o), err)
	}
	if copts.LogLevel != "" && !c.Stateless() {
		if c.ServerCapabilities().Logging == nil {
			fmt.Fprintf(e.Stderr, "warning: the server does not declare logging; not sending logging/setLevel\n")
		} else if err := c.SetLogLevel(ctx, copts.LogLevel); err != nil {
			fmt.Fprintf(e.Stderr, "warning: logging/setLevel failed: %v\n", err)
		}
	}
	return c, nil
}

func target(o *options) string {
	if o.url != "" {
		return o.url
	}
	return fmt.Sprintf("%q", o.stdio)
}

func openTransport(e Env, o *options) (transport.Conn, error) {
	if o.stdio != "" {
		argv, err := SplitCommand(o.stdio)
		if err != nil {
			return nil, usagef("reference client: --stdio: %v", err)
		}
		if len(argv) == 0 {
			return nil, usagef("reference client: --stdio needs a command")
		}
		for _, kv := range o.envs {
			if !strings.Contains(kv, "=") {
				return nil, usagef("reference client: --env %q is not KEY=VALUE", kv)
			}
		}
		so := transport.StdioOptions{Command: argv[0], Args: argv[1:], Env: o.envs, Dir: o.cwd}
		if o.verbose {
			so.Stderr = e.Stderr
		}
		// stderr-is-fatal gives up by closing the connection, at once or as
		// soon as it is open.
		var late lateCloser
		client.ApplyStdioFaults(o.faults, &so, late.close)
		ctx, cancel := context.WithTimeout(e.Ctx, o.timeout)
		defer cancel()
		c, err := transport.StartStdio(ctx, so)
		if err != nil {
			return nil, err
		}
		late.open(c)
		return c, nil
	}
	h := http.Header{}
	for _, kv := range o.headers {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("reference client: --header %q is not \"Name: value\"", kv)
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	var rt http.RoundTripper = authTransport(e, o)
	rewrite, err := client.HTTPRewriter(o.faults)
	if err != nil {
		return nil, usagef("reference client: --fault: %v", err)
	}
	if rewrite != nil {
		rt = rewritingTransport{next: rt, rewrite: rewrite}
	}
	ho := transport.HTTPOptions{URL: o.url, Header: h, Client: &http.Client{Transport: rt}}
	client.ApplyHTTPFaults(o.faults, &ho)
	if o.verbose {
		ho.Logf = func(format string, a ...any) { fmt.Fprintf(e.Stderr, "transport: "+format+"\n", a...) }
	}
	switch o.transport {
	case "streamable":
		t, err := transport.NewStreamableHTTP(ho)
		return t, wrapURL(err)
	case "sse":
		ctx, cancel := context.WithTimeout(e.Ctx, o.timeout)
		defer cancel()
		t, err := transport.DialLegacySSE(ctx, ho)
		return t, err
	}
	t, err := transport.NewAutoHTTP(ho)
	return t, wrapURL(err)
}

// rewritingTransport applies the HTTP rewriters of the fault switches that
// are on to every request (a fault's whole effect on HTTP).
type rewritingTransport struct {
	next    http.RoundTripper
	rewrite func(*http.Request)
}

func (t rewritingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	t.rewrite(r)
	return t.next.RoundTrip(r)
}

// authTransport answers a server's 401 with the OAuth flow.
func authTransport(e Env, o *options) http.RoundTripper {
	cfg := auth.Config{
		ClientID:          o.clientID,
		ClientSecret:      o.clientSecret,
		ClientMetadataURL: o.clientMetadataURL,
		Scopes:            strings.Fields(o.scope),
		Faults:            o.faults,
	}
	if o.protocol != "" {
		cfg.ProtocolVersion = spec.Version(o.protocol)
	}
	if o.verbose {
		cfg.Logf = func(format string, a ...any) { fmt.Fprintf(e.Stderr, "auth: "+format+"\n", a...) }
	}
	if o.browser {
		cfg.UserAgent = auth.Loopback{Show: func(u string) {
			fmt.Fprintf(e.Stderr, "Open this URL in your browser to authorize (waiting for the redirect):\n  %s\n", u)
		}}
	}
	return auth.NewTransport(nil, cfg)
}

func wrapURL(err error) error {
	if err != nil {
		return usagef("reference client: --url: %v", err)
	}
	return nil
}

// SplitCommand splits a command line the way a POSIX shell would for plain
// words, single and double quotes and backslashes (no expansions).
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if escaped {
		return nil, fmt.Errorf("trailing backslash in %q", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// lateCloser closes a connection that may not be open yet when close is
// called: open then closes it at once.
type lateCloser struct {
	mu     sync.Mutex
	conn   io.Closer
	closed bool
}

func (l *lateCloser) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.conn != nil {
		_ = l.conn.Close()
	}
}

func (l *lateCloser) open(c io.Closer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.conn = c
	if l.closed {
		_ = c.Close()
	}
}

// timeoutOr is --timeout when it was given, else d: a command with a
// default of its own keeps an explicit --timeout, whatever its value
// (also one equal to the client's default).
func (o *options) timeoutOr(d time.Duration) time.Duration {
	if o.timeoutSet {
		return o.timeout
	}
	return d
}
