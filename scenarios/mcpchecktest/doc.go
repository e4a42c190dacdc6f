// Package mcpchecktest runs mcpcheck's server conformance suite from a Go
// test, in the spirit of testing/fstest.TestFS and nettest.TestConn: a
// server author writes one test, and every check of the suite becomes a
// subtest of it.
//
//	func TestMCP(t *testing.T) {
//		mcpchecktest.TestServer(t, mcpchecktest.Handler(myserver.Handler(), "/mcp"), mcpchecktest.Options{
//			Versions: []spec.Version{spec.V20251125},
//		})
//	}
//
// The target is a command that speaks stdio (Command), an HTTP endpoint
// (URL), or an http.Handler that TestServer serves on a loopback
// httptest.Server for the length of the test (Handler), or a function that
// serves the stdio transport in process over a pair of pipes (Pipe): a
// harness.Target, which the fuzzer (package fuzz) takes too. For a Pipe
// the stdio checks judge the function as they would a process: what it
// writes to out, and that it returns once in is closed. A Command runs in
// a sandbox of the run's own, as on the command line (its own working
// directory, HOME and TMPDIR; InDir names another directory), and the
// report's SideEffects say what it did besides speaking MCP.
//
// Each check is a subtest named by its check ID, protocol version and
// transport, so the usual -run patterns select checks:
//
//	go test -run 'TestMCP/tools/'                    every tools check
//	go test -run 'TestMCP/tools/names/2025-11-25'
//
// and TestServer runs only the checks such a pattern can select. A check
// that fails (a MUST broken) or ends in a harness error fails its subtest
// through t.Error, naming the requirements it enforces, what was expected,
// what the server did and the end of the wire transcript; a warning (a
// SHOULD broken) is logged, and fails the subtest with Options.Strict. A
// check that does not apply (n/a) or could not be tested is skipped with
// the reason, so "go test -v" shows what was not judged. A baseline
// (Options.Baseline, read with ReadBaseline from a file "mcpcheck baseline
// write" made) turns the failures it lists into skips, and fails the test
// when one of its entries is stale.
//
// Run is the same suite without a testing.T: it returns the report, which
// the reports package writes as text, JSON, JUnit, Markdown, HTML or SARIF.
package mcpchecktest
