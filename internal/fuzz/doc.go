// Package fuzz is mcpcheck's fuzzer for MCP servers and clients: the
// campaign engine with its server and client drivers, minimized on-disk
// findings, their merge and their replay. It is the fuzzer's entry point
// (the public package fuzz runs its server campaigns from Go); the
// concerns it stands on are internal packages, and the names of theirs its
// users need are aliased here (aliases.go):
//
//   - internal/fuzz/internal/gen: the generators (messages, schemas, sequences, tool
//     arguments) and the protocol messages the fuzzer builds itself;
//   - internal/fuzz/internal/mutate: Input, Base and Mutator, every mutator family of
//     server and client campaigns, and the schedules;
//   - internal/fuzz/internal/oracle: Observation, the judge of what a server writes,
//     crash reading, finding names and the schema verdict cache;
//   - internal/fuzz/internal/conn: Target and Conn, the stdio, HTTP and HTTP+SSE
//     targets, frame reading, busy sampling and process memory.
//
// # Generators (pgregory.net/rapid)
//
// [gen.NewMessages] builds, from mcpcheck's own JSON Schema of a protocol
// version (internal/spec/schema), generators of every JSON-RPC message of that
// version: [gen.Messages.Request], [gen.Messages.Result], [gen.Messages.Notification],
// [gen.Messages.ErrorResponse], [gen.Messages.Any], and plausible client messages
// ([gen.Messages.ClientRequest], [gen.Plausible]) whose protocol version fields name
// the version. Every message drawn is valid against the schema (a property
// test validates thousands per version). [gen.SchemaGen] is the engine: it
// draws values of a JSON Schema subset; [gen.ToolArguments] uses it on a tool's
// inputSchema, and [gen.InputSchemas] generates such schemas. [gen.Sequence] models
// a client session as a rapid state machine (initialize or server/discover,
// then requests, pagination, progress, cancellation, subscriptions, tasks,
// subscriptions/listen); [gen.Sequences] draws whole sessions.
//
// # Mutators
//
// A [Mutator] is named family/what and deterministic: [mutate.MakeInput] builds
// the [Input] of one mutator, version and seed, always the same bytes.
// Families: bytes (bit flips, truncation, invalid UTF-8, NUL, U+2028/2029,
// garbage lines, BOM), framing (embedded and missing newlines, split writes,
// giant lines, CRLF, blank lines, two messages per line, bursts), json (deep
// nesting, exotic numbers and ids, duplicate keys, wrong types, missing and
// extra members, null ids, batches, wrong jsonrpc, escaped names, huge
// strings, lone surrogates) and protocol (requests before initialize,
// double initialize, responses to nothing, cancelling unknown ids and
// initialize, progress-token reuse, unknown and removed methods, duplicate
// ids, wrong direction, generated sessions, tool calls with generated
// arguments). [HTTPMutators] describe hostile HTTP requests ([conn.HTTPRequest])
// for a runner to apply. An [HTTPTarget] applies every description: a slow
// body (BodyChunk/BodyDelay, capped at 1 s) and a lying Content-Length
// (DeclaredLength) are written by hand on a TCP connection of their own
// (internal/harness/wire DoRaw; over https the body is trickled chunked and the
// length is the true one); a request declaring more bytes than it sent has
// its write side closed and waits at most 1 s, and no answer there is no
// frame. With Transport "sse" ([conn.LegacySSETarget]) the target speaks the
// 2024-11-05 HTTP+SSE transport: each instance is a GET event stream whose
// endpoint event names the POST URL; endpoint events and the POSTs'
// "Accepted" acknowledgements are not judged, and the end of the stream
// ends the instance.
//
// # Oracles
//
// After every input the runner sends a liveness probe (ping, or
// server/discover in the stateless era), in the same write as the input's
// last chunk, and reads until the probe is answered. A target that exits or
// closes its output is a crash, one that does not answer the probe in time
// a hang; every line it writes is judged: not JSON, not JSON-RPC, an id
// that answers nothing, result and error together, requests where the
// version forbids them, schema violations. An answer written after the
// probe's (to a slow request) is judged with the next input's frames and
// credited to the input that sent the request; before an instance is
// closed, one more probe reads what is left (the grace read). In the
// stateless era a dual-era server answers initialize by opening a legacy
// session on the same stream; from then on the answers to requests without
// a _meta protocol version are judged by the version initialize negotiated.
// Schema verdicts are cached by message, with its id cut out when it is
// an ordinary string or integer. Each [Observation] carries a stable
// check name, the catalog requirement ID and level when one applies, and
// a [Observation.Signature] for deduplication.
//
// # Campaigns, findings and replay
//
// [Run] drives a [Target] (a stdio process, [ExecTarget], started through
// internal/harness/target as the suites start theirs; an HTTP endpoint) with
// workers, bounded by duration and executions, seeded, reporting
// [Progress]. Each worker makes its inputs a
// few ahead on a goroutine of its own, keeps a target instance started
// ahead for restarts and fresh inputs, ends instances in the background,
// and runs inputs that close stdin (and over stdio, those that want a
// fresh instance) on an instance of their own, to its end, in the
// background. Mutators are drawn by cost ([mutate.Schedule]); the summary says
// how long the instances' starts took and what share of the campaign's
// time the workers waited for them ([Result.RestartShare]). A session whose judge would remember too many ids is
// replaced, so the fuzzer's memory stays flat; HTTP sessions are ended with
// DELETE. The summary records the fuzzer's heap and resident memory over
// time ([MemorySample]). Each new signature becomes a
// [Finding]: reproduced on a fresh instance (with the session's earlier
// inputs when needed), minimized by delta debugging ([Minimize]) and
// written to a directory with its seed, input, minimized input, wire
// transcript, stderr tail and replay.json. [Replay] runs a finding again.
// [Result.Verdict] fails when a crash, a hang or a MUST-level violation was
// found; [Result.Summary] fills the reports model.
//
// # Client campaigns
//
// [RunClient] fuzzes an MCP client ([ClientTarget]: a command line, over
// stdio or streamable HTTP): mcpcheck plays a hostile server through
// internal/harness/stage, whose cases run the reference server's engine and launch
// the client as a process group (over stdio the client starts mcpcheck's
// relay as its server). A clean run first learns the client's requests and
// pace. Each execution then launches the client once against a case that
// plays one [Input] whose [mutate.ClientPlan] names the request (method and
// occurrence) whose answer it goes with. The same stream mutators aim at a
// server message ([mutate.MakeClientBase]: a generated answer to that request
// with the [mutate.TriggerID] in place of its id, an error, a server request or a
// notification; the content mutators bend a response's result where they
// bend a request's params), and [ClientMutators] adds the families that
// exist for clients only: server (request and notification storms, an
// answer that never comes) and for HTTP clients reply (status, headers,
// redirects, lying lengths: [mutate.HTTPReply]) and sse ([mutate.SSEDamage]). Over stdio
// the engine's answer is held back (its Rewrite) and the stage's stdout
// hook writes the input's chunks, a liveness ping ([ProbeID]) and the
// answer; over HTTP a middleware writes them as SSE events with the
// reply's damage. Oracles: the client crashes (a signal, a crash signal's
// exit status, a crash report with a failure status; an error exit is
// not a crash), hangs (the ping goes unanswered, or the task is not done
// within twice the clean run plus Wait), outgrows the memory bound (its
// process group's resident memory), waits past ClientTimeout on an answer
// that never came (a SHOULD: requests have timeouts), or writes messages
// the judge refuses, held to the client's side (the client-to-server
// schema, stdin framing, answers to requests the stage never sent).
// Findings are reproduced, minimized and written as for servers and
// replayed by [ReplayClient].
package fuzz
