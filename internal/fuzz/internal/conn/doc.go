// Package conn holds what the fuzzer talks to and how: Target and Conn,
// the stdio process target (ExecTarget, with its pollable pipes and line
// reader), the streamable HTTP and HTTP+SSE targets (HTTPTarget), the
// frames read back (Frame), and the samplers that tell a busy peer from a
// hung one (busy sampling, process-group memory).
package conn
