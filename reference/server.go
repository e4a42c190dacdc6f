package reference

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/mcpcheck/mcpcheck/internal/reference/server"
)

// Server configures a reference server. The zero Server is a conforming
// server with the default page size that discards its log.
type Server struct {
	// Faults switch on faults by name (see Faults); each makes the server
	// break one catalog requirement. None: the server conforms.
	Faults []string
	// PageSize is how many items every list result carries before it
	// paginates; 0 is the default.
	PageSize int
	// Logs receives the server's diagnostics, one per line; nil discards
	// them. Nothing but MCP messages is ever written to a client.
	Logs io.Writer
	// JSONResponses makes a Handler answer stateful POSTs with
	// application/json instead of an SSE stream.
	JSONResponses bool
	// LegacySSE makes a Handler serve the 2024-11-05 HTTP+SSE transport
	// too, at GET /sse and POST /message.
	LegacySSE bool
}

func (s Server) start() (*server.Server, error) {
	srv, err := server.New(server.Options{PageSize: s.PageSize, Faults: s.Faults, Logs: s.Logs})
	if err != nil {
		return nil, errors.New("reference: " + err.Error() + " (reference.Faults lists the fault names)")
	}
	return srv, nil
}

// ServeStdio serves one connection of the stdio transport with a server of
// its own: JSON-RPC messages read from in, one per line, and the server's
// messages written to out, one per line. It returns nil when in ends,
// ctx.Err() when ctx is done first, and an error for a fault name it does
// not know. It has the shape harness.Pipe takes, and each call is a fresh
// server, as each process of a stdio server is.
func (s Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	srv, err := s.start()
	if err != nil {
		return err
	}
	defer srv.Close()
	logs := s.Logs
	if logs == nil {
		logs = io.Discard
	}
	return srv.ServeStdio(ctx, in, out, logs)
}

// Handler is a reference server behind an http.Handler: Streamable HTTP at
// /mcp (and HTTP+SSE at /sse and /message with Server.LegacySSE). It
// accepts loopback Host and Origin headers only, as a local server must.
type Handler struct {
	srv *server.Server
	h   http.Handler
}

// NewHandler starts a server for HTTP; its sessions live until Close. It
// fails for a fault name it does not know.
func (s Server) NewHandler() (*Handler, error) {
	srv, err := s.start()
	if err != nil {
		return nil, err
	}
	return &Handler{srv: srv, h: srv.HTTPHandler(server.HTTPOptions{JSONResponses: s.JSONResponses, LegacySSE: s.LegacySSE})}, nil
}

// ServeHTTP serves one HTTP request of the server's transports.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }

// Close ends every session, task and subscription of the server and waits
// for its goroutines; requests after Close are refused.
func (h *Handler) Close() error { return h.srv.Close() }

// Fault is one fault switch of the reference server.
type Fault struct {
	// Name is what Server.Faults takes ("ping-nonempty-result").
	Name string
	// Requirement is the catalog ID of the requirement the fault breaks
	// (see package spec/catalog).
	Requirement string
	// Description says in one line what the server then does wrong.
	Description string
}

// Faults lists the reference server's fault switches, in a stable order.
func Faults() []Fault {
	var out []Fault
	for _, f := range server.Faults() {
		out = append(out, Fault{Name: f.Name, Requirement: f.Requirement, Description: f.Description})
	}
	return out
}
