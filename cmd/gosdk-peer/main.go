// Command gosdk is the go-sdk (github.com/modelcontextprotocol/go-sdk)
// peer of mcpcheck's reference server in the peer benchmarks
// (internal/reference/server/peer_bench_test.go, "make bench-compare"). It offers
// the same benchmark surface under the same names as the reference server:
//
//   - ping (built in);
//   - test_simple_text: no arguments, returns the reference server's fixed
//     text "This is a simple text response for testing.";
//   - ref_structured: {"a": number, "b": number} (both required), returns
//     {"sum": a+b} as structured output with an outputSchema, and the same
//     JSON as a text block, as the reference server does.
//
// Its command line mirrors "mcpcheck reference server":
//
//	gosdk --stdio
//	gosdk --http 127.0.0.1:PORT [--json-responses]
//
// Over HTTP it prints "... listening on http://ADDR/mcp" to stderr (port 0
// picks a free one) and stops on SIGINT/SIGTERM. Over stdio it exits when
// stdin closes. Logs go to stderr only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const simpleText = "This is a simple text response for testing."

type sumIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sumOut struct {
	Sum float64 `json:"sum"`
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-peer", Version: "1.8.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "test_simple_text", Title: "Simple text", Description: "Returns a fixed text"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: simpleText}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ref_structured", Title: "Structured output", Description: "Adds two numbers and returns structured output"},
		func(_ context.Context, _ *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
			// A nil result makes go-sdk return the output both as
			// structuredContent and as a JSON text block.
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	return s
}

func main() {
	stdio := flag.Bool("stdio", false, "serve one client on stdin/stdout")
	httpAddr := flag.String("http", "", "serve Streamable HTTP on ADDR (host:port)")
	jsonResp := flag.Bool("json-responses", false, "answer POSTs with application/json instead of SSE streams")
	flag.Parse()
	if *stdio == (*httpAddr != "") || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gosdk --stdio | --http 127.0.0.1:PORT [--json-responses]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := newServer()
	if *stdio {
		err := s.Run(ctx, &mcp.StdioTransport{})
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
			log.Printf("gosdk peer: %v", err)
		}
		return
	}
	addr := *httpAddr
	if !strings.Contains(addr, ":") {
		addr = "127.0.0.1:" + addr
	} else if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatalf("gosdk peer: %v", err)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: *jsonResp})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "gosdk peer listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		log.Fatalf("gosdk peer: %v", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
}
