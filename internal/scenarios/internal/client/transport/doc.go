// Package transport holds the client suite's checks of the transports:
// Streamable HTTP (http.go, and http_stateless.go for 2026-07-28), the
// HTTP+SSE transport of 2024-11-05 (sse.go) and stdio (stdio.go, and
// stdio_stateless.go for 2026-07-28), with the scenarios that provoke
// them and the helpers only they use. It registers them into the suite's
// registry (internal/scenarios/internal/client), which lists them where
// transport_http.go, transport_sse.go and transport_stdio*.go stood.
package transport
