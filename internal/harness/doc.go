// Package harness is the check API of mcpcheck: what scenarios, the fuzzer
// and the CLI use to judge an MCP server and report it truthfully.
//
// A Run collects checks. A Check cites requirement IDs from the catalog,
// knows its protocol version and transport, and ends in exactly one
// outcome: pass; fail when a MUST was broken and warn when only a SHOULD
// was; n/a when the server did not declare a capability or the version is
// outside every cited requirement's window; untestable when a needed
// fixture or trigger is absent; error when the harness itself broke. Each
// check carries Expected and Actual texts and its transcript (recorded by
// internal/harness/record from every connection of the run).
//
// The subpackages do the work: target (what to test, processes, transport
// detection), wire (raw connections and frames), record (transcripts),
// expect (the event loop) and session (era-aware client drivers). Pool
// and Shared let many checks reuse a started target where the
// specification allows it.
//
// The harness never prints, never exits, and imports no test framework, so
// the fuzzer and the CLI can use it as well as Ginkgo suites.
package harness
