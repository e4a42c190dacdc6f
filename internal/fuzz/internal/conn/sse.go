package conn

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// LegacySSETarget is the target of a server speaking the HTTP+SSE
// transport of 2024-11-05 at url, the SSE endpoint: each Start opens the
// SSE stream (GET), waits for its endpoint event, and POSTs every message
// to the URL that event names; the answers arrive on the stream. header
// is added to every request.
//
// It is an HTTPTarget with Transport wire.TransportSSE, so that a campaign
// runs the HTTP mutators against it and not the stdio framing ones. Those
// that only make sense for streamable HTTP (session ids, an expired
// session, MCP-Protocol-Version) are still sent: the target must survive
// them. The endpoint event and the "Accepted" acknowledgements of the
// POSTs are no messages and are not judged as such; the end of the SSE
// stream is the end of the instance (ErrClosed: it can answer nothing
// more).
func LegacySSETarget(url string, header http.Header) HTTPTarget {
	return HTTPTarget{URL: url, Header: header, Transport: wire.TransportSSE}
}

// legacyStartWait bounds the wait for the endpoint event of a new SSE
// stream.
const legacyStartWait = 10 * time.Second

// startLegacy opens the SSE stream and waits for its endpoint event.
func (h HTTPTarget) startLegacy(ctx context.Context) (Conn, error) {
	c, err := wire.NewLegacySSE(wire.HTTPOptions{URL: h.URL, Header: h.Header, Limits: h.Limits})
	if err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, legacyStartWait)
	defer cancel()
	if _, err := c.Endpoint(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("fuzz: %s: %w; check that the URL is the SSE endpoint (GET) of an HTTP+SSE server, or fuzz it as streamable HTTP", h.URL, err)
	}
	return &HTTPConn{Client: c, legacy: true}, nil
}
