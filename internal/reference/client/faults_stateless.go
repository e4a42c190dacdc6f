package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of the stateless era (2026-07-28): per-request _meta, the
// request-metadata headers, the message kinds a client sends, resultType,
// multi round-trip retries, the opening probe, version negotiation and
// caching. Each breaks one requirement for the client suite to catch.

// The named hooks of the stateless era.
const (
	FaultSkipDiscoverProbe            = "skip-discover-probe"
	FaultIgnoreUnsupportedVersion     = "ignore-unsupported-version"
	FaultFallbackOnModern400          = "fallback-on-modern-400"
	FaultAbsentResultTypeInvalid      = "absent-result-type-invalid"
	FaultAcceptUnknownResultType      = "accept-unknown-result-type"
	FaultAcceptUnnegotiatedResultType = "accept-unnegotiated-result-type"
	FaultServerNameAllowlist          = "server-name-allowlist"
	FaultUnsafeIntegerHeader          = "param-header-unsafe-integer"
	FaultPollAtTTL                    = "poll-at-ttl"
	FaultPollFixedRate                = "poll-fixed-rate"
)

// allowedServerName is the one server name FaultServerNameAllowlist calls
// tools on (the reference server's).
const allowedServerName = "mcp-conformance-test-server"

func init() {
	registerFaults([]string{FaultSkipDiscoverProbe, FaultIgnoreUnsupportedVersion, FaultFallbackOnModern400, FaultAbsentResultTypeInvalid,
		FaultAcceptUnknownResultType, FaultAcceptUnnegotiatedResultType, FaultServerNameAllowlist, FaultUnsafeIntegerHeader, FaultPollAtTTL, FaultPollFixedRate},
		// _meta, capabilities and the message kinds.
		Fault{Name: "meta-no-capabilities", Requirement: "base.meta.required-request-fields", Description: "2026-07-28 tools/list requests carry no clientCapabilities in _meta",
			Rewrite: onStateless(spec.MethodToolsList, func(p map[string]json.RawMessage) {
				editMeta(p, func(m map[string]json.RawMessage) { delete(m, mcp.MetaClientCapabilities) })
			})},
		Fault{Name: "meta-no-client-info", Requirement: "base.meta.client-info-on-requests", Description: "2026-07-28 requests carry no clientInfo in _meta",
			Rewrite: onStateless("", func(p map[string]json.RawMessage) {
				editMeta(p, func(m map[string]json.RawMessage) { delete(m, mcp.MetaClientInfo) })
			})},
		Fault{Name: "extension-bad-identifier", Requirement: "extensions.negotiation.identifier-naming", Description: `2026-07-28 requests declare an extension under the unprefixed identifier "tasks"`,
			Rewrite: onStateless("", func(p map[string]json.RawMessage) {
				editMeta(p, func(m map[string]json.RawMessage) {
					var caps map[string]json.RawMessage
					if json.Unmarshal(m[mcp.MetaClientCapabilities], &caps) != nil || caps == nil {
						return
					}
					caps["extensions"] = json.RawMessage(`{"tasks":{}}`)
					m[mcp.MetaClientCapabilities], _ = json.Marshal(caps)
				})
			})},
		Fault{Name: "stateless-stray-response", Requirement: "base.transport.binding-delivery-directions", Description: "a JSON-RPC response to nothing follows each 2026-07-28 tools/list request",
			Rewrite: strayResponse},
		Fault{Name: "stdio-stray-response", Requirement: "transport-stdio.messages.client-no-responses", Description: "a JSON-RPC response to nothing follows each 2026-07-28 tools/list request on stdin",
			Rewrite: strayResponse},
		Fault{Name: "http-stray-response", Requirement: "transport-http.post.client-no-responses", Description: "a JSON-RPC response to nothing is POSTed after each 2026-07-28 tools/list request",
			Rewrite: strayResponse},
		Fault{Name: "http-post-batch", Requirement: "transport-http.post.body-request-or-notification", Description: "2026-07-28 tools/list requests are sent as a one-element batch array",
			Rewrite: func(w Written) [][]byte {
				if !isStateless(w) || w.Decoded.Method != spec.MethodToolsList {
					return [][]byte{w.Msg}
				}
				return [][]byte{append(append([]byte{'['}, w.Msg...), ']')}
			}},
		// The opening probe and the era.
		Fault{Name: FaultSkipDiscoverProbe, Requirement: "transport-stdio.compat.modern-client-probes", Description: "a 2026-07-28 connection starts without the server/discover probe"},
		Fault{Name: "request-before-discover", Requirement: "discovery.client.probe-first-on-stdio", Description: "a tools/list request goes out just before the server/discover probe",
			Rewrite: func() func(Written) [][]byte {
				var once sync.Once
				return func(w Written) [][]byte {
					early := false
					if w.Decoded.Method == spec.MethodServerDiscover && w.Decoded.Shape == jsonrpc.KindRequest {
						once.Do(func() { early = true })
					}
					if !early {
						return [][]byte{w.Msg}
					}
					req, err := jsonrpc.NewRequest(jsonrpc.StringID("mcpcheck-early"), spec.MethodToolsList, w.Decoded.Params)
					if err != nil {
						return [][]byte{w.Msg}
					}
					return [][]byte{req, w.Msg}
				}
			}()},
		Fault{Name: "reprobe-era", Requirement: "versioning.compat.client-caches-era", Description: "a server/discover probe goes out again before every 2026-07-28 tools/list and tools/call",
			Rewrite: func() func(Written) [][]byte {
				var n atomic.Int64
				return func(w Written) [][]byte {
					if !isStateless(w) || w.Decoded.Shape != jsonrpc.KindRequest || (w.Decoded.Method != spec.MethodToolsList && w.Decoded.Method != spec.MethodToolsCall) {
						return [][]byte{w.Msg}
					}
					var p map[string]json.RawMessage
					_ = json.Unmarshal(w.Decoded.Params, &p)
					probe, err := jsonrpc.NewRequest(jsonrpc.StringID(fmt.Sprintf("mcpcheck-reprobe-%d", n.Add(1))), spec.MethodServerDiscover, map[string]json.RawMessage{"_meta": p["_meta"]})
					if err != nil {
						return [][]byte{w.Msg}
					}
					return [][]byte{probe, w.Msg}
				}
			}()},
		// Version negotiation.
		Fault{Name: FaultIgnoreUnsupportedVersion, Requirement: "versioning.negotiation.client-retries-supported", Description: "UnsupportedProtocolVersionError ends the connection instead of a retry with a supported version"},
		Fault{Name: FaultFallbackOnModern400, Requirement: "transport-http.compat.inspect-400-body", Description: "UnsupportedProtocolVersionError to the first request makes the client fall back to initialize"},
		// resultType.
		Fault{Name: FaultAbsentResultTypeInvalid, Requirement: "base.result-type.absent-means-complete", Description: "a 2026-07-28 result without resultType is refused as invalid"},
		Fault{Name: FaultAcceptUnknownResultType, Requirement: "base.result-type.unknown-invalid", Description: "a 2026-07-28 result with an unknown resultType is used as a complete one"},
		Fault{Name: FaultAcceptUnnegotiatedResultType, Requirement: "base.result-type.supported-set", Description: `a 2026-07-28 result with resultType "task" is used as a complete one although the tasks extension was not negotiated`},
		// Self-reported identity.
		Fault{Name: FaultServerNameAllowlist, Requirement: "base.meta.implementation-info-no-behaviour-change", Description: "tools are called only on servers whose serverInfo names " + allowedServerName},
		// Multi round-trip requests.
		Fault{Name: "mrtr-drop-request-state", Requirement: "mrtr.client.echo-request-state", Description: "retries of tools/call leave out the requestState",
			Rewrite: onMRTRRetry(func(p map[string]json.RawMessage) { delete(p, "requestState") })},
		Fault{Name: "mrtr-alter-request-state", Requirement: "mrtr.client.request-state-opaque", Description: "retries of tools/call carry the requestState with #mcpcheck appended",
			Rewrite: onMRTRRetry(func(p map[string]json.RawMessage) {
				var s string
				if json.Unmarshal(p["requestState"], &s) == nil {
					p["requestState"], _ = json.Marshal(s + "#mcpcheck")
				}
			})},
		Fault{Name: "mrtr-invent-request-state", Requirement: "mrtr.client.no-invented-request-state", Description: "retries of tools/call without a requestState get one of the client's own",
			Rewrite: onMRTRRetry(func(p map[string]json.RawMessage) {
				if _, ok := p["requestState"]; !ok {
					p["requestState"] = json.RawMessage(`"mcpcheck-invented-state"`)
				}
			})},
		Fault{Name: "mrtr-retry-without-responses", Requirement: "mrtr.client.fulfil-before-retry", Description: "retries of tools/call that echo a requestState leave out the inputResponses",
			Rewrite: onMRTRRetry(func(p map[string]json.RawMessage) {
				if _, ok := p["requestState"]; ok {
					delete(p, "inputResponses")
				}
			})},
		Fault{Name: "mrtr-retry-same-id", Requirement: "mrtr.client.retry-new-id", Description: "retries of tools/call reuse the JSON-RPC id of the original call",
			Rewrite: retrySameID()},
		Fault{Name: "mrtr-leak-request-state", Requirement: "mrtr.client.no-cross-request-reuse", Description: "the last requestState echoed is added to every later tools/call that is not a retry",
			Rewrite: leakRequestState()},
		// The request-metadata headers of Streamable HTTP.
		Fault{Name: "http-no-version-header", Requirement: "transport-http.protocol-version-header.on-every-post", Description: "2026-07-28 tools/list POSTs carry no MCP-Protocol-Version header",
			RewriteHTTP: onHTTPMethod(spec.MethodToolsList, func(r *http.Request) { r.Header.Del("MCP-Protocol-Version") })},
		Fault{Name: "http-version-header-mismatch", Requirement: "transport-http.protocol-version-header.matches-meta", Description: "2026-07-28 tools/list POSTs say MCP-Protocol-Version: 2025-11-25 whatever _meta says",
			RewriteHTTP: onHTTPMethod(spec.MethodToolsList, func(r *http.Request) { r.Header.Set("MCP-Protocol-Version", string(spec.V20251125)) })},
		Fault{Name: "http-no-name-header", Requirement: "transport-http.headers.standard-required", Description: "2026-07-28 tools/call POSTs carry no Mcp-Name header",
			RewriteHTTP: onHTTPMethod(spec.MethodToolsCall, func(r *http.Request) { r.Header.Del("Mcp-Name") })},
		Fault{Name: "http-no-method-header", Requirement: "transport-http.post.metadata-headers", Description: "2026-07-28 tools/list POSTs carry no Mcp-Method header",
			RewriteHTTP: onHTTPMethod(spec.MethodToolsList, func(r *http.Request) { r.Header.Del("Mcp-Method") })},
		Fault{Name: "http-uppercase-sentinel", Requirement: "transport-http.param-headers.sentinel-lowercase", Description: "base64 header values are marked =?BASE64?…?= instead of =?base64?…?=",
			RewriteHTTP: func(r *http.Request) {
				for k, vs := range r.Header {
					if k != "Mcp-Name" && !strings.HasPrefix(k, "Mcp-Param-") {
						continue
					}
					for i, v := range vs {
						if rest, ok := strings.CutPrefix(v, "=?base64?"); ok {
							vs[i] = "=?BASE64?" + rest
						}
					}
				}
			}},
		Fault{Name: FaultUnsafeIntegerHeader, Requirement: "transport-http.param-headers.integer-safe-range", Description: "integer arguments beyond the JavaScript safe range are mirrored into Mcp-Param-* headers as they are"},
		// Caching.
		Fault{Name: FaultPollAtTTL, Requirement: "caching.ttl.not-a-poll-interval", Description: "after a tools/list result with ttlMs the client re-fetches the list three times, each when the last answer's ttlMs runs out"},
		Fault{Name: FaultPollFixedRate, Requirement: "caching.ttl.polling-jitter-backoff", Description: "after a tools/list result with ttlMs the client re-fetches the list ten times, each 1 s after the last answer"},
	)
}

// isStateless reports whether a message goes out on a 2026-07-28
// connection.
func isStateless(w Written) bool { return w.Version.Era() == spec.Stateless }

// onStateless makes a Rewrite that edits the params of the 2026-07-28
// requests of method ("" for every method).
func onStateless(method string, edit func(p map[string]json.RawMessage)) func(Written) [][]byte {
	return func(w Written) [][]byte {
		if !isStateless(w) || w.Decoded.Shape != jsonrpc.KindRequest || (method != "" && w.Decoded.Method != method) {
			return [][]byte{w.Msg}
		}
		return [][]byte{editParams(w.Msg, edit)}
	}
}

// onMRTRRetry makes a Rewrite that edits the params of tools/call retries
// (those carrying inputResponses or requestState).
func onMRTRRetry(edit func(p map[string]json.RawMessage)) func(Written) [][]byte {
	return onStateless(spec.MethodToolsCall, func(p map[string]json.RawMessage) {
		if isRetry(p) {
			edit(p)
		}
	})
}

func isRetry(p map[string]json.RawMessage) bool {
	_, a := p["inputResponses"]
	_, b := p["requestState"]
	return a || b
}

// editParams decodes a request, lets edit change its params object and
// encodes it again (unchanged when it does not decode).
func editParams(msg []byte, edit func(p map[string]json.RawMessage)) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	var p map[string]json.RawMessage
	if raw, ok := m["params"]; ok && json.Unmarshal(raw, &p) != nil {
		return msg
	}
	if p == nil {
		p = map[string]json.RawMessage{}
	}
	edit(p)
	m["params"], _ = json.Marshal(p)
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// editMeta lets edit change params._meta.
func editMeta(p map[string]json.RawMessage, edit func(m map[string]json.RawMessage)) {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(p["_meta"], &m)
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	edit(m)
	p["_meta"], _ = json.Marshal(m)
}

// strayResponse follows each 2026-07-28 tools/list request with a response
// to a request nobody sent.
func strayResponse(w Written) [][]byte {
	if !isStateless(w) || w.Decoded.Method != spec.MethodToolsList || w.Decoded.Shape != jsonrpc.KindRequest {
		return [][]byte{w.Msg}
	}
	return [][]byte{w.Msg, []byte(`{"jsonrpc":"2.0","id":"mcpcheck-stray","result":{}}`)}
}

// retrySameID gives each tools/call retry the id of the call it retries.
func retrySameID() func(Written) [][]byte {
	var mu sync.Mutex
	first := map[string]json.RawMessage{} // tool name -> id of its last call that was no retry
	return func(w Written) [][]byte {
		if !isStateless(w) || w.Decoded.Method != spec.MethodToolsCall || w.Decoded.Shape != jsonrpc.KindRequest {
			return [][]byte{w.Msg}
		}
		var m map[string]json.RawMessage
		var p map[string]json.RawMessage
		if json.Unmarshal(w.Msg, &m) != nil || json.Unmarshal(m["params"], &p) != nil {
			return [][]byte{w.Msg}
		}
		var name string
		_ = json.Unmarshal(p["name"], &name)
		mu.Lock()
		defer mu.Unlock()
		if !isRetry(p) {
			first[name] = m["id"]
			return [][]byte{w.Msg}
		}
		if id, ok := first[name]; ok {
			m["id"] = id
			if out, err := json.Marshal(m); err == nil {
				return [][]byte{out}
			}
		}
		return [][]byte{w.Msg}
	}
}

// leakRequestState adds the last requestState a retry echoed to every
// later tools/call that is no retry.
func leakRequestState() func(Written) [][]byte {
	var mu sync.Mutex
	var last json.RawMessage
	return onStateless(spec.MethodToolsCall, func(p map[string]json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		if isRetry(p) {
			if s, ok := p["requestState"]; ok {
				last = s
			}
			return
		}
		if last != nil {
			p["requestState"] = last
		}
	})
}

// onHTTPMethod makes a RewriteHTTP that changes the 2026-07-28 POSTs whose
// Mcp-Method header names method.
func onHTTPMethod(method string, f func(r *http.Request)) func(r *http.Request) {
	return func(r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == method {
			f(r)
		}
	}
}

// resultTypeFault applies the resultType hook faults to a 2026-07-28
// result: accept says to use it as complete, a non-nil error to refuse it.
func (c *Client) resultTypeFault(method string, rt mcp.ResultType) (accept bool, err error) {
	switch {
	case rt == "" && c.fault(FaultAbsentResultTypeInvalid):
		return false, fmt.Errorf("client: the result of %s has no resultType; refusing it (fault %s)", method, FaultAbsentResultTypeInvalid)
	case rt == "task" && c.fault(FaultAcceptUnnegotiatedResultType):
		return true, nil
	case rt != "" && rt != "task" && !rt.Known() && c.fault(FaultAcceptUnknownResultType):
		return true, nil
	}
	return false, nil
}

// serverNameFault refuses to call tools on a server whose serverInfo name
// is not allowedServerName, when FaultServerNameAllowlist is on.
func (c *Client) serverNameFault(tool string) error {
	if !c.fault(FaultServerNameAllowlist) {
		return nil
	}
	if name := c.ServerInfo().Name; name != allowedServerName {
		return fmt.Errorf("client: not calling %q: the server calls itself %q, which is not on the list of known servers (fault %s)", tool, name, FaultServerNameAllowlist)
	}
	return nil
}

// unsafeHeaderValues is mcp.HeaderValues without the safe-integer limit,
// for FaultUnsafeIntegerHeader: integers are mirrored as written.
func unsafeHeaderValues(hp []mcp.HeaderParam, args json.RawMessage) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range hp {
		cur := args
		for _, step := range p.Path {
			var obj map[string]json.RawMessage
			if json.Unmarshal(cur, &obj) != nil {
				cur = nil
				break
			}
			cur = obj[step]
		}
		if cur == nil {
			continue
		}
		if p.Type == "integer" {
			if t := bytes.TrimSpace(cur); len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
				out[p.Header()] = string(t)
				continue
			}
		}
		s, ok, err := mcp.HeaderArgValue(cur)
		if err != nil {
			return nil, err
		}
		if ok {
			out[p.Header()] = mcp.EncodeHeaderValue(s)
		}
	}
	return out, nil
}

// polled holds the clients whose polling fault has started (it starts
// once per client).
var polled sync.Map

func firstPoll(c *Client) bool {
	_, done := polled.LoadOrStore(c, true)
	return !done
}

// pollFault re-fetches a list the way the polling faults do, after a
// complete 2026-07-28 tools/list result with a positive ttlMs: at each
// answer's ttlMs (FaultPollAtTTL) or every second (FaultPollFixedRate; ten
// times, as many gaps as client/caching/poll-jitter-backoff needs to call
// a rate fixed when delays on a loaded machine stretch some of them).
// Only the first such result starts polling.
func (c *Client) pollFault(ctx context.Context, method string, p object, raw json.RawMessage) {
	atTTL, fixed := c.fault(FaultPollAtTTL), c.fault(FaultPollFixedRate)
	if method != spec.MethodToolsList || !atTTL && !fixed || !firstPoll(c) {
		return
	}
	rounds := 3
	if fixed {
		rounds = 10
	}
	for i := 0; i < rounds; i++ {
		var r struct {
			TTL int64 `json:"ttlMs"`
		}
		_ = json.Unmarshal(raw, &r)
		if r.TTL <= 0 {
			return
		}
		wait := time.Duration(r.TTL) * time.Millisecond
		if fixed {
			wait = time.Second
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		c.stamp(p)
		next, err := c.rpc(ctx, method, p, callOpts{})
		if err != nil {
			return
		}
		raw = next
	}
}

// FaultFallbackOnly32601 makes the dual-era fallback depend on one code.
const FaultFallbackOnly32601 = "fallback-only-on-32601"

func init() {
	registerFaults([]string{FaultFallbackOnly32601},
		Fault{Name: FaultFallbackOnly32601, Requirement: "transport-stdio.compat.fallback-any-error", Description: "the client falls back to initialize only when its server/discover probe gets -32601"})
}

// fallbackKeyedFault reports whether FaultFallbackOnly32601 vetoes the
// fallback after err (any error but -32601).
func (c *Client) fallbackKeyedFault(err error) bool {
	return c.fault(FaultFallbackOnly32601) && !IsCode(err, jsonrpc.MethodNotFound)
}

func init() {
	registerFaults(nil,
		Fault{Name: "stateless-batch-requests", Requirement: "base.jsonrpc.messages-are-jsonrpc-2", Description: "every 2026-07-28 request, the server/discover probe first, is sent as a one-element batch array (2026-07-28 has no batches)",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Shape != jsonrpc.KindRequest || (!isStateless(w) && w.Decoded.Method != spec.MethodServerDiscover) {
					return [][]byte{w.Msg}
				}
				return [][]byte{append(append([]byte{'['}, w.Msg...), ']')}
			}},
	)
}
