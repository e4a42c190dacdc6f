package target

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
)

// Transport is how to reach a target: the harness's one transport type,
// wire.Transport.
type Transport = wire.Transport

// The transports a Target may ask for.
const (
	// Stdio runs a command and speaks over its stdin and stdout.
	Stdio = wire.TransportStdio
	// Auto detects the transport of a URL (see Detect).
	Auto = wire.TransportAuto
	// Streamable is streamable HTTP in the stateful shape (2025-03-26
	// through 2025-11-25: initialize, sessions, the GET stream).
	Streamable = wire.TransportStreamable
	// Stateless is streamable HTTP in the 2026-07-28 shape (server/discover,
	// per-request _meta and headers); on the wire it is Streamable, the
	// name only tells which era the user means to test.
	Stateless = wire.TransportStateless
	// SSE is the 2024-11-05 HTTP+SSE transport.
	SSE = wire.TransportSSE
)

// ParseTransport reads a --transport value.
func ParseTransport(s string) (Transport, error) {
	switch t := Transport(strings.ToLower(strings.TrimSpace(s))); t {
	case Stdio, Auto, Streamable, Stateless, SSE:
		return t, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("unknown transport %q: use auto, streamable, stateless or sse (stdio targets are given as a command)", s)
}

// Header is an HTTP header added to every request to the target. Value is
// used as given; Env names an environment variable holding the value, so
// that secrets stay out of argv and out of reports.
type Header struct {
	Name  string
	Value string
	Env   string
}

// Timeouts bound the time the harness gives a target. Zero fields take the
// defaults.
type Timeouts struct {
	// Start bounds starting a process or detecting a URL's transport
	// (default 30 s).
	Start time.Duration
	// Step bounds waiting for one answer (default 10 s).
	Step time.Duration
	// Grace is how long a process gets to exit after stdin is closed, and
	// again after SIGTERM, before the next step (default 2 s).
	Grace time.Duration
}

// WithDefaults fills in zero fields.
func (t Timeouts) WithDefaults() Timeouts {
	if t.Start <= 0 {
		t.Start = 30 * time.Second
	}
	if t.Step <= 0 {
		t.Step = 10 * time.Second
	}
	if t.Grace <= 0 {
		t.Grace = 2 * time.Second
	}
	return t
}

// Target describes one MCP server to test: either Command (stdio) or URL.
type Target struct {
	// Command is the program of a stdio target, found in PATH when it has
	// no slash; Args are its arguments.
	Command string
	Args    []string
	// Env is added to the harness's environment ("K=V"); with CleanEnv the
	// process gets Env only.
	Env      []string
	CleanEnv bool
	// Dir is the process's working directory ("" is the harness's, or
	// with a Sandbox the sandbox's).
	Dir string
	// Sandbox, when set, runs every process of the target in it (see
	// Sandbox.Apply): its own working directory, HOME and TMPDIR, watched,
	// and nothing it spawned left behind.
	Sandbox *Sandbox

	// Pipe, instead of Command, serves the stdio transport in process: a
	// function called once per connection (see PipeServer).
	Pipe PipeServer

	// URL is the endpoint of an HTTP target.
	URL       string
	Transport Transport
	Headers   []Header
	// AuthIssuer is the URL of an mcpcheck authorization server (mcpcheck
	// authserver, with its mint API) that the target trusts: the
	// authorization checks mint the tokens they present there. Empty: they
	// look for one among the authorization servers the target's protected
	// resource metadata names.
	AuthIssuer string
	// AuthUpstream is a loopback address (host:port) where the
	// authorization checks play an upstream API the target calls while
	// serving a request (the target is configured to call http://ADDR/):
	// they see whether it passes a client's token on. Empty: the token
	// passthrough check is untestable.
	AuthUpstream string

	Timeouts Timeouts
	Limits   wire.Limits
	// StderrTail is how many bytes of a process's stderr to keep (64 KiB
	// when zero).
	StderrTail int
}

// Command returns a stdio target.
func Command(name string, args ...string) Target {
	return Target{Command: name, Args: args, Transport: Stdio}
}

// URL returns an HTTP target whose transport is detected.
func URL(u string) Target { return Target{URL: u, Transport: Auto} }

// IsStdio reports whether the target speaks the stdio transport: a
// command, or an in-process pipe.
func (t Target) IsStdio() bool { return t.Command != "" || t.Pipe != nil }

// Validate says what is wrong with the description, if anything.
func (t Target) Validate() error {
	var errs []error
	switch {
	case t.Command != "" && t.URL != "":
		errs = append(errs, errors.New("a target is either a command or a URL, not both"))
	case t.Pipe != nil && (t.Command != "" || t.URL != ""):
		errs = append(errs, errors.New("an in-process pipe target has no command and no URL"))
	case t.Command == "" && t.URL == "" && t.Pipe == nil:
		errs = append(errs, errors.New("a target needs a command (stdio) or a URL"))
	}
	if t.URL != "" {
		u, err := url.Parse(t.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("target URL %q is not an http:// or https:// URL", t.URL))
		}
		if t.Transport == Stdio {
			errs = append(errs, errors.New("transport stdio needs a command, not a URL"))
		}
	}
	if t.IsStdio() && t.Transport != "" && t.Transport != Stdio {
		errs = append(errs, fmt.Errorf("transport %s needs a URL, not a command", t.Transport))
	}
	if t.AuthIssuer != "" {
		if u, err := url.Parse(t.AuthIssuer); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("authorization issuer %q is not an http:// or https:// URL", t.AuthIssuer))
		} else if t.URL == "" {
			errs = append(errs, errors.New("an authorization issuer applies to an HTTP target (a URL)"))
		}
	}
	if t.AuthUpstream != "" {
		host, port, err := net.SplitHostPort(t.AuthUpstream)
		ip := net.ParseIP(host)
		switch {
		case err != nil || port == "" || port == "0":
			errs = append(errs, fmt.Errorf("authorization upstream %q is not a host:port with a port", t.AuthUpstream))
		case host != "localhost" && (ip == nil || !ip.IsLoopback()):
			errs = append(errs, fmt.Errorf("authorization upstream %q is not a loopback address (mcpcheck listens on it)", t.AuthUpstream))
		case t.URL == "":
			errs = append(errs, errors.New("an authorization upstream applies to an HTTP target (a URL)"))
		}
	}
	for _, h := range t.Headers {
		if h.Name == "" || strings.ContainsAny(h.Name, " :\r\n") {
			errs = append(errs, fmt.Errorf("header name %q is not a valid HTTP header name", h.Name))
		}
		if h.Env != "" && h.Value != "" {
			errs = append(errs, fmt.Errorf("header %s has both a value and an environment variable; give one", h.Name))
		}
	}
	return errors.Join(errs...)
}

// HTTPHeader resolves the headers, reading environment variables. A
// variable that is unset is an error naming it.
func (t Target) HTTPHeader() (http.Header, error) {
	h := http.Header{}
	for _, x := range t.Headers {
		v := x.Value
		if x.Env != "" {
			var ok bool
			v, ok = os.LookupEnv(x.Env)
			if !ok {
				return nil, fmt.Errorf("header %s takes its value from $%s, which is not set; export it or drop the header", x.Name, x.Env)
			}
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("the value of header %s contains a line break, which HTTP does not allow", x.Name)
		}
		h.Add(x.Name, v)
	}
	return h, nil
}

// Report describes the target for a report: header names, never values.
func (t Target) Report() reports.Target {
	rt := reports.Target{Role: "server"}
	if t.Pipe != nil {
		rt.Kind, rt.Command = reports.TargetStdio, "(in-process pipe)"
		return rt
	}
	if t.IsStdio() {
		rt.Kind = reports.TargetStdio
		rt.Command = strings.Join(append([]string{t.Command}, t.Args...), " ")
		return rt
	}
	rt.Kind, rt.URL = reports.TargetHTTP, t.URL
	if t.Transport == SSE {
		rt.Kind = reports.TargetSSE
	}
	for _, h := range t.Headers {
		rt.HeaderNames = append(rt.HeaderNames, h.Name)
	}
	return rt
}
