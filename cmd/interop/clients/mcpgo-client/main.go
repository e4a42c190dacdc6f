// Command mcpgo-client is a short MCP client on mcp-go v1.2.1, one of the
// third-party clients mcpcheck's client suite is checked against. It
// connects the way mcp-go does by default (a server/discover probe for
// 2026-07-28, then the initialize handshake when the server is older),
// lists every tool, calls each once with minimal arguments, answers roots,
// sampling and elicitation requests, and exits.
//
// With -fault NAME it breaks one client-side rule on the wire, so that a
// test can hold mcpcheck to catching it on that rule (faults.go lists
// them; -fault list prints them). What mcp-go will not let a caller break
// is broken around it, in the transport the client is given.
//
//	mcpgo-client [-fault NAME] URL                 streamable HTTP
//	mcpgo-client [-fault NAME] -stdio CMD ARGS...  stdio (the server's command line)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("mcpgo-client", flag.ContinueOnError)
	faultName := fs.String("fault", os.Getenv("MCPGO_CLIENT_FAULT"), "break one client-side rule (list: print the names)")
	stdio := fs.Bool("stdio", false, "the arguments are the server's command line (stdio); else one URL (streamable HTTP)")
	timeout := fs.Duration("timeout", 60*time.Second, "bound on the whole session")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *faultName == "list" {
		names := make([]string, 0, len(faults))
		for n := range faults {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Printf("%-34s %s\n", n, faults[n])
		}
		return 0
	}
	if _, ok := faults[*faultName]; *faultName != "" && !ok {
		fmt.Fprintf(os.Stderr, "mcpgo-client: unknown fault %q; -fault list prints the known ones\n", *faultName)
		return 2
	}
	rest := fs.Args()
	if len(rest) == 0 || (!*stdio && len(rest) != 1) {
		fmt.Fprintln(os.Stderr, "usage: mcpgo-client [-fault NAME] URL | -stdio CMD [ARGS...]")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	f := &fault{name: *faultName, sent: make(chan string, 64)}

	var tr transport.Interface
	if *stdio {
		srv, err := startServer(rest)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mcpgo-client: %v\n", err)
			return 1
		}
		defer srv.stop()
		f.raw = srv.stdin
		tr = &faultTransport{BidirectionalInterface: transport.NewIO(f.filter(srv.stdout), f.watch(srv.stdin), io.NopCloser(eofReader{})), f: f}
	} else {
		f.url = rest[0]
		inner, err := transport.NewStreamableHTTP(rest[0], transport.WithHTTPBasicClient(f.httpClient()))
		if err != nil {
			fmt.Fprintf(os.Stderr, "mcpgo-client: %v\n", err)
			return 1
		}
		tr = &faultHTTP{faultTransport: &faultTransport{BidirectionalInterface: inner, f: f}, inner: inner}
	}

	c := client.NewClient(tr,
		client.WithRootsHandler(roots{f}),
		client.WithSamplingHandler(sampling{f}),
		client.WithElicitationHandler(elicitation{f}),
		client.WithDiscoverTimeout(10*time.Second),
	)
	if err := session(ctx, c, f); err != nil {
		fmt.Fprintf(os.Stderr, "mcpgo-client: %v\n", err)
		_ = c.Close()
		return 1
	}
	if err := c.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpgo-client: closing: %v\n", err)
	}
	return 0
}

// session is the client's whole use of the server: connect, list every
// tool, call each once.
func session(ctx context.Context, c *client.Client, f *fault) error {
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("starting the transport: %w", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpcheck-interop-mcpgo-client", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	if f.name == "discover-twice" && c.ProtocolVersion() == "2026-07-28" {
		// Claude Code's sequence: one more server/discover after the
		// settling one, then the requests (one redundant probe).
		if _, err := c.Discover(ctx, mcp.DiscoverRequest{}); err != nil {
			return fmt.Errorf("the second server/discover: %w", err)
		}
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("listing tools: %w", err)
	}
	for _, tool := range tools.Tools {
		req := mcp.CallToolRequest{}
		req.Params.Name = tool.Name
		req.Params.Arguments = minimalArgs(tool.InputSchema)
		callCtx, cancel := callContext(ctx)
		if _, err := c.CallTool(callCtx, req); err != nil {
			fmt.Fprintf(os.Stderr, "mcpgo-client: calling %s: %v\n", tool.Name, err)
		}
		cancel()
	}
	return nil
}

// callContext bounds a tool call by the requestTimeoutMs a scenario asks
// for in MCP_CONFORMANCE_CONTEXT, as the official suite passes it.
func callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	var sc struct {
		RequestTimeoutMs int `json:"requestTimeoutMs"`
	}
	if json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &sc) == nil && sc.RequestTimeoutMs > 0 {
		return context.WithTimeout(ctx, time.Duration(sc.RequestTimeoutMs)*time.Millisecond)
	}
	return context.WithCancel(ctx)
}

// minimalArgs fills the required properties of an input schema.
func minimalArgs(s mcp.ToolInputSchema) map[string]any {
	out := map[string]any{}
	for _, name := range s.Required {
		p, _ := s.Properties[name].(map[string]any)
		out[name] = valueFor(p)
	}
	return out
}

// valueFor picks a value a property's schema accepts: its default, its
// first enum value, or its type's simplest value.
func valueFor(p map[string]any) any {
	if d, ok := p["default"]; ok {
		return d
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch p["type"] {
	case "number", "integer":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "mcpcheck"
}

type roots struct{ f *fault }

func (r roots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///tmp/mcpcheck-interop", Name: "interop"}}}, nil
}

type sampling struct{ f *fault }

func (s sampling) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("hello from the mcp-go client")},
		Model:           "mcpcheck-interop-model",
		StopReason:      "endTurn",
	}, nil
}

type elicitation struct{ f *fault }

func (e elicitation) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	content := map[string]any{}
	props, _ := req.Params.RequestedSchema.(map[string]any)
	if props != nil {
		props, _ = props["properties"].(map[string]any)
	}
	for name, p := range props {
		pm, _ := p.(map[string]any)
		content[name] = valueFor(pm)
		if e.f.name == "elicit-content-object" {
			content[name] = map[string]any{"x": true}
		}
	}
	if e.f.name == "elicit-content-object" && len(content) == 0 {
		content["x"] = map[string]any{"x": true}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}, nil
}

// server is a stdio server this client started: its own process group,
// ended as a group.
type server struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	done   chan struct{}
}

func startServer(argv []string) (*server, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server %q: %w", argv[0], err)
	}
	s := &server{cmd: cmd, stdin: in, stdout: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	return s, nil
}

// stop ends the server as the stdio binding asks: its stdin closed, then
// SIGTERM if it stays, then SIGKILL (to its process group).
func (s *server) stop() {
	_ = s.stdin.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-s.done:
			return
		case <-time.After(3 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, sig)
		}
	}
	<-s.done
}

// eofReader is the server's stderr as the transport sees it: the server's
// own stderr goes to ours.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

var errNoAnswer = errors.New("no answer")
