package mcpchecktest_test

import (
	"context"
	"fmt"
	"log"
	"testing"

	"github.com/mcpcheck/mcpcheck/reference"
	"github.com/mcpcheck/mcpcheck/scenarios/mcpchecktest"
	"github.com/mcpcheck/mcpcheck/spec"
)

// A server author's test: every server check of the suite against the
// server, each a subtest (go test -run 'TestMCP/tools/' runs the tools
// checks). Here the server is mcpcheck's reference server as an
// http.Handler; a stdio server would be mcpchecktest.Command("./my-server",
// "--stdio"), one on a port mcpchecktest.URL("http://127.0.0.1:8080/mcp").
func ExampleTestServer() {
	testMCP := func(t *testing.T) {
		srv, err := reference.Server{}.NewHandler()
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		baseline, err := mcpchecktest.ReadBaseline("testdata/expected-failures.json") // from: mcpcheck baseline write
		if err != nil {
			t.Fatal(err)
		}
		mcpchecktest.TestServer(t, mcpchecktest.Handler(srv, "/mcp"), mcpchecktest.Options{
			Versions: []spec.Version{spec.V20250618, spec.V20251125},
			Baseline: baseline,
		})
	}
	_ = testMCP // in a _test.go file: func TestMCP(t *testing.T) { ... }
}

// Run is the suite without a testing.T. Here it runs the ping checks in
// one protocol version against the reference server, served in-process
// with a fault switch that makes its ping answer a non-empty result.
func ExampleRun() {
	srv, err := reference.Server{Faults: []string{"ping-nonempty-result"}}.NewHandler()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	res, err := mcpchecktest.Run(context.Background(), mcpchecktest.Handler(srv, "/mcp"), mcpchecktest.Options{
		Versions:    []spec.Version{spec.V20251125},
		LabelFilter: "area:ping",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Report.Checks {
		fmt.Println(c.ID, c.Version, c.Transport, c.Outcome, c.Requirements)
	}
	fmt.Println("problems:", len(res.Problems))
	// Output:
	// ping/before-initialize 2025-11-25 streamable na [ping.response.prompt-empty-result]
	// ping/empty-result 2025-11-25 streamable fail [ping.response.prompt-empty-result]
	// problems: 0
}

// Pipe serves a Go server's stdio transport in process: no binary to
// build, no process to start. Each connection gets a server of its own,
// as each process would be: reference.Server's ServeStdio is such a
// function, and so is any func(ctx, in, out) error that starts a server.
func ExamplePipe() {
	tg := mcpchecktest.Pipe(reference.Server{}.ServeStdio)
	res, err := mcpchecktest.Run(context.Background(), tg, mcpchecktest.Options{
		Versions:    []spec.Version{spec.V20260728},
		LabelFilter: "area:transport-stdio",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Report.Checks {
		fmt.Println(c.ID, c.Transport, c.Outcome)
	}
	// Output:
	// transport-stdio/exit-on-stdin-close stdio pass
	// transport-stdio/no-server-requests stdio pass
	// transport-stdio/stdout-only-messages stdio pass
}
