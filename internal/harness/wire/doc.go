// Package wire holds mcpcheck's raw connections to a target: they send the
// exact bytes they are given and hand back the exact bytes the target sent,
// as Frames, without judging them.
//
// A Conn is one connection: stdio (NewStdio over any pair of streams, for
// example a child process's pipes; Pipe for tests), streamable HTTP
// (NewHTTP) or the 2024-11-05 HTTP+SSE transport (NewLegacySSE). Every
// implementation reads in background goroutines that push Frames into a
// bounded queue; Recv pops them. Everything is bounded: the size of a line,
// a body or an SSE event (an oversized one becomes a KindTooLong frame, not
// a crash), the bytes queued (a flooding target is slowed by backpressure,
// never allowed to exhaust memory), and time (every call takes a context).
// Close stops every goroutine a Conn started.
//
// A JSON-RPC error reply is a frame like any other: judging it is the job of
// the packages above (expect, session). Taps (Observe) see every frame sent
// and received at the moment it crosses the wire, which is how transcripts
// are recorded and how every message is schema-validated on every path.
package wire
