package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Detection is how an HTTP target's transport was found.
type Detection struct {
	// Transport is Streamable or SSE.
	Transport Transport
	// Modern reports that the endpoint answered a 2026-07-28 request
	// (server/discover or a modern error); a dual-era server may serve the
	// stateful versions on the same endpoint too, which sessions find out
	// by trying them.
	Modern bool
	// Versions are the versions server/discover listed (modern servers).
	Versions []string
	// Evidence says, probe by probe, what was sent and seen.
	Evidence []string
}

// modernCodes are the JSON-RPC errors only a 2026-07-28 (or later) server
// sends; one in reply to a modern request identifies a modern server.
var modernCodes = map[int64]bool{
	jsonrpc.UnsupportedProtocolVersion:      true,
	jsonrpc.MissingRequiredClientCapability: true,
	jsonrpc.HeaderMismatch:                  true,
}

// ErrNoConnection is wrapped by Detect's error when no connection to the
// URL could be made at all (refused, no route, unknown host): nothing of
// the target's was seen.
var ErrNoConnection = errors.New("no connection could be made")

// Detect finds the transport of the HTTP endpoint in o, following the
// backwards-compatibility rules of the specification:
//
//  1. POST server/discover as a 2026-07-28 request (with its _meta and
//     headers). A result, or a modern error (-32020, -32021, -32022),
//     means Streamable with Modern set.
//  2. Otherwise POST initialize (2025-11-25). Any JSON-RPC response, in a
//     JSON body or an SSE stream, means Streamable. A session the target
//     opened is ended with DELETE.
//  3. Otherwise GET with Accept: text/event-stream. An endpoint event as
//     the first event means SSE.
//
// step bounds each probe. A target that refuses connections is reported
// at once; one that matches no probe gets an error listing the evidence.
func Detect(ctx context.Context, o wire.HTTPOptions, step time.Duration) (Detection, error) {
	var d Detection
	note := func(format string, args ...any) { d.Evidence = append(d.Evidence, fmt.Sprintf(format, args...)) }

	modern, unreachable, err := probeModern(ctx, o, step, note, &d)
	if err != nil {
		return d, err
	}
	if unreachable {
		return d, fmt.Errorf("target: %s is unreachable: %s: %w", o.URL, d.Evidence[len(d.Evidence)-1], ErrNoConnection)
	}
	if modern {
		d.Transport, d.Modern = Streamable, true
		return d, nil
	}
	if ok, err := probeStreamable(ctx, o, step, note); err != nil {
		return d, err
	} else if ok {
		d.Transport = Streamable
		return d, nil
	}
	if probeSSE(ctx, o, step, note) {
		d.Transport = SSE
		return d, nil
	}
	return d, fmt.Errorf("target: %s speaks none of the MCP HTTP transports (give --transport to skip detection): %s", o.URL, strings.Join(d.Evidence, "; "))
}

// firstAnswer waits for the first frame of stream that settles a probe: a
// message, a bare status, garbage, or a failure.
func firstAnswer(ctx context.Context, c wire.Conn, stream string, step time.Duration) (wire.Frame, bool) {
	ctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	for {
		f, err := c.Recv(ctx)
		if err != nil {
			return wire.Frame{}, false
		}
		if f.Stream != stream {
			continue
		}
		switch f.Kind {
		case wire.KindEmptyEvent:
			continue // a priming event
		case wire.KindMessage:
			if f.Msg.Shape.IsResponse() {
				return f, true
			}
			continue // a notification before the response
		}
		return f, true
	}
}

func probeModern(ctx context.Context, o wire.HTTPOptions, step time.Duration, note func(string, ...any), d *Detection) (modern, unreachable bool, err error) {
	c, err := wire.NewHTTP(o)
	if err != nil {
		return false, false, fmt.Errorf("target: %w", err)
	}
	defer c.Close()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    string(spec.V20260728),
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcpcheck", "version": "detect"},
	}
	body, _ := jsonrpc.NewRequest(jsonrpc.StringID("mcpcheck-detect-1"), spec.MethodServerDiscover, map[string]any{"_meta": meta})
	stream, err := c.Post(ctx, body, http.Header{
		wire.HeaderProtocolVersion: {string(spec.V20260728)},
		wire.HeaderMethod:          {spec.MethodServerDiscover},
	})
	if err != nil {
		return false, false, fmt.Errorf("target: %w", err)
	}
	f, ok := firstAnswer(ctx, c, stream, step)
	switch {
	case !ok:
		note("server/discover: no answer within %v", step)
	case f.Kind == wire.KindTransportError:
		note("server/discover: %v", f.Err)
		// Only a connection never made is unreachable; a reset, a header
		// flood or a redirect loop came from the target.
		return false, noConnection(f.Err), nil
	case f.Kind == wire.KindMessage && f.Msg.Shape == jsonrpc.KindResponse:
		var r struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		_ = json.Unmarshal(f.Msg.Result, &r)
		d.Versions = r.SupportedVersions
		note("server/discover: HTTP %d with a result (supported versions %v): a 2026-07-28 server", f.Status(), r.SupportedVersions)
		return true, false, nil
	case f.Kind == wire.KindMessage && f.Msg.Error != nil && modernCodes[f.Msg.Error.Code]:
		note("server/discover: HTTP %d with modern error %d: a 2026-07-28 server", f.Status(), f.Msg.Error.Code)
		return true, false, nil
	default:
		if err := unauthorized(o.URL, f, note); err != nil {
			return false, false, err
		}
		note("server/discover: %s: not a modern server", f.Describe())
	}
	return false, false, nil
}

// unauthorized is Detect's error when the probe's answer f is an HTTP
// 401: the endpoint asks for authorization (an OAuth-protected MCP server
// without a token), so no probe without one can say which transport it
// speaks, and none of its answers is a verdict on it.
func unauthorized(url string, f wire.Frame, note func(string, ...any)) error {
	ch, ok := f.Challenge()
	if !ok {
		return nil
	}
	note("HTTP 401 (WWW-Authenticate %q): the endpoint asks for authorization", ch)
	return wire.UnauthorizedError("target: "+url, ch)
}

func probeStreamable(ctx context.Context, o wire.HTTPOptions, step time.Duration, note func(string, ...any)) (bool, error) {
	c, err := wire.NewHTTP(o)
	if err != nil {
		return false, fmt.Errorf("target: %w", err)
	}
	defer c.Close()
	body, _ := jsonrpc.NewRequest(jsonrpc.StringID("mcpcheck-detect-2"), spec.MethodInitialize, map[string]any{
		"protocolVersion": string(spec.V20251125),
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpcheck", "version": "detect"},
	})
	stream, err := c.Post(ctx, body, nil)
	if err != nil {
		return false, fmt.Errorf("target: %w", err)
	}
	f, ok := firstAnswer(ctx, c, stream, step)
	if !ok {
		note("initialize: no answer within %v", step)
		return false, nil
	}
	if err := unauthorized(o.URL, f, note); err != nil {
		return false, err
	}
	if f.Kind != wire.KindMessage || !f.Msg.Shape.IsResponse() {
		note("initialize: %s: not streamable HTTP", f.Describe())
		return false, nil
	}
	note("initialize: %s: streamable HTTP", f.Describe())
	if c.SessionID() != "" {
		if s, err := c.Terminate(ctx); err == nil {
			firstAnswer(ctx, c, s, step)
		}
	}
	return true, nil
}

func probeSSE(ctx context.Context, o wire.HTTPOptions, step time.Duration, note func(string, ...any)) bool {
	c, err := wire.NewLegacySSE(o)
	if err != nil {
		note("GET: %v", err)
		return false
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	ep, err := c.Endpoint(ctx)
	if err != nil {
		note("GET: %v", err)
		return false
	}
	note("GET: an endpoint event (%s): HTTP+SSE", ep)
	return true
}

// noConnection reports whether err means no connection was made at all:
// a dial that failed or a host name that does not resolve.
func noConnection(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &dns) || (errors.As(err, &op) && op.Op == "dial")
}
