package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The 2026-07-28 HTTP headers: MCP-Protocol-Version, Mcp-Method, Mcp-Name
// and Mcp-Param-* must agree with the body (400 with -32020 otherwise),
// header names match without regard to case, base64-sentinel values are
// decoded before comparing, and the x-mcp-header annotations of tools obey
// their syntax rules.

// headersMismatch accepts HTTP 400 with a -32020 error to id.
func headersMismatch(id jsonrpc.ID, codes ...int64) expect.Alt {
	if len(codes) == 0 {
		codes = []int64{jsonrpc.HeaderMismatch}
	}
	return expect.WithStatus(expect.Error(id, codes...), http.StatusBadRequest)
}

// headersResource returns the URI of a resource the target lists (n/a or
// untestable otherwise).
func headersResource(t *server.T, c *server.Conn) (string, bool) {
	if !t.RequireCapability("resources") {
		return "", false
	}
	var res mcp.ListResourcesResult
	r := c.S().Call(t.Ctx, spec.MethodResourcesList, nil)
	if !r.OK() || r.Decode(&res) != nil || len(res.Resources) == 0 {
		t.Untestable("the server lists no resource to read (" + r.Describe() + ")")
		return "", false
	}
	return res.Resources[0].URI, true
}

var _ = server.Register(
	server.Def{
		ID: "transport-http/stateless-header-mismatch", Area: "transport-http", Eras: server.Stateless, Transports: server.HTTPOnly,
		Title: "headers that disagree with the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name) get HTTP 400 with -32020",
		Requirements: []string{"transport-http.validation.header-body-match", "transport-http.validation.reject-400-header-mismatch",
			"transport-http.protocol-version-header.mismatch-400"},
		Proofs: []server.Proof{{Proxy: "fix-headers", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			s := c.S()
			wait := func(what string, st string, alt expect.Alt) bool {
				obs := t.AnswerOn(s, st, alt)
				if !obs.OK() {
					t.Saw("%s", what)
					t.Judge(obs)
					return false
				}
				return true
			}
			// Mcp-Method naming another method than the body.
			id, st := t.StatelessRequest(c, spec.MethodToolsList, nil, func(h http.Header) { h.Set(wire.HeaderMethod, spec.MethodPromptsList) })
			if !wait("Mcp-Method: prompts/list on a tools/list body", st, headersMismatch(id)) {
				return
			}
			// MCP-Protocol-Version naming another version than _meta: the
			// body's version is one no server implements, so -32022 is a
			// correct refusal too.
			id, st = t.StatelessRequest(c, spec.MethodToolsList, map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: server.UnknownVersion}},
				func(h http.Header) { h.Set(wire.HeaderProtocolVersion, string(spec.V20260728)) })
			if !wait("MCP-Protocol-Version 2026-07-28 with _meta protocolVersion "+server.UnknownVersion, st, headersMismatch(id, jsonrpc.HeaderMismatch, jsonrpc.UnsupportedProtocolVersion)) {
				return
			}
			// Mcp-Name naming another resource than the body's uri.
			if t.HasCapability("resources") {
				var res mcp.ListResourcesResult
				if r := s.Call(t.Ctx, spec.MethodResourcesList, nil); r.OK() && r.Decode(&res) == nil && len(res.Resources) > 0 {
					id, st = t.StatelessRequest(c, spec.MethodResourcesRead, map[string]any{"uri": res.Resources[0].URI},
						func(h http.Header) { h.Set(wire.HeaderName, "mcpcheck://not-the-body-uri") })
					if !wait("Mcp-Name naming another URI than params.uri", st, headersMismatch(id)) {
						return
					}
				}
			}
			t.Saw("each mismatch was answered 400 with the expected error")
			t.Pass()
		},
	},
	server.Def{
		ID: "transport-http/stateless-protocol-version-header-missing", Area: "transport-http", Eras: server.Stateless, Transports: server.HTTPOnly,
		Title:        "a modern-only server refuses a request without MCP-Protocol-Version with HTTP 400 and -32020",
		Requirements: []string{"transport-http.protocol-version-header.missing-rejected"},
		Proofs:       []server.Proof{{Proxy: "modern-only-lenient", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			h := t.HTTP(c)
			if h == nil {
				return
			}
			if v := t.StatefulSupport(); len(v) > 0 {
				t.NotApplicable(fmt.Sprintf("the server also serves %v, so it may treat a request without MCP-Protocol-Version as 2025-03-26 (allowed)", v))
				return
			}
			p, hdr := t.StatelessParams(c, spec.MethodToolsList, nil)
			hdr.Del(wire.HeaderProtocolVersion)
			id := c.Stateless.NextID()
			st := do(t, h, wire.Request{Header: hdr, Omit: []string{wire.HeaderProtocolVersion}}, id, spec.MethodToolsList, p)
			t.Judge(t.AnswerOn(c.S(), st, headersMismatch(id)))
		},
	},
	server.Def{
		ID: "transport-http/stateless-header-names-case-insensitive", Area: "transport-http", Eras: server.Stateless, Transports: server.HTTPOnly,
		Title:        "the server matches the MCP header names without regard to case (lower-case names are served)",
		Requirements: []string{"transport-http.headers.case-insensitive-names"},
		Proofs:       []server.Proof{{Proxy: "case-sensitive-headers", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			p, hdr := t.StatelessParams(c, spec.MethodServerDiscover, nil)
			lower := http.Header{}
			base, err := t.Target().HTTPHeader() // configured headers (credentials) still go along
			t.Must(err)
			for k, v := range base {
				lower[k] = v
			}
			for k, v := range hdr {
				lower[strings.ToLower(k)] = v // sent as written: Go does not canonicalise keys set directly
			}
			lower["content-type"] = []string{wire.MediaJSON}
			lower["accept"] = []string{wire.MediaJSON + ", " + wire.MediaSSE}
			id := c.Stateless.NextID()
			t.Expect("headers sent as %s; a server/discover result", strings.Join(headersSortedKeys(lower), ", "))
			// The wire connection canonicalises header names, so the
			// request goes out on a plain client, which does not.
			status, msgs, err := headersPlainPost(t, lower, t.EncodeRequest(id, spec.MethodServerDiscover, p))
			if err != nil {
				t.Fail("a server/discover result", "the POST failed: "+err.Error())
				return
			}
			for _, m := range msgs {
				if m.Shape.IsResponse() && m.ID == id {
					if m.Result != nil && m.Error == nil {
						t.Saw("HTTP %d with a result", status)
						t.Pass()
						return
					}
					t.Fail("a server/discover result", fmt.Sprintf("HTTP %d: %s", status, wire.Excerpt(m.Raw, 300)))
					return
				}
			}
			what := fmt.Sprintf("HTTP %d without a response to id %s", status, id)
			if len(msgs) > 0 {
				what += ": " + wire.Excerpt(msgs[0].Raw, 300)
			}
			t.Fail("a server/discover result", what)
		},
	},
	server.Def{
		ID: "transport-http/stateless-name-header-base64", Area: "transport-http", Eras: server.Stateless, Transports: server.HTTPOnly,
		Title:        "an Mcp-Name in the base64 sentinel form is decoded before it is compared; other casings of the sentinel are not",
		Requirements: []string{"transport-http.validation.decode-before-compare", "transport-http.param-headers.inspectors-decode", "transport-http.param-headers.sentinel-lowercase"},
		Proofs:       []server.Proof{{Proxy: "fix-headers", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail}},
		Body: func(t *server.T) {
			c := t.Session()
			if t.HTTP(c) == nil {
				return
			}
			uri, ok := headersResource(t, c)
			if !ok {
				return
			}
			enc := base64.StdEncoding.EncodeToString([]byte(uri))
			id, st := t.StatelessRequest(c, spec.MethodResourcesRead, map[string]any{"uri": uri}, func(h http.Header) { h.Set(wire.HeaderName, "=?base64?"+enc+"?=") })
			obs := t.AnswerOn(c.S(), st, expect.Matching("any answer but a -32020 header mismatch", func(f wire.Frame) (expect.Verdict, string) {
				if !f.IsResponseTo(id) {
					return expect.Unrelated, ""
				}
				if code, ok := server.ErrorCodeOf(f); ok && code == jsonrpc.HeaderMismatch {
					return expect.Rejected, "the base64 form of the matching URI was refused as a mismatch: " + f.Describe()
				}
				return expect.Accepted, ""
			}))
			if !obs.OK() {
				t.ViolateFirst([]string{"transport-http.validation.decode-before-compare", "transport-http.param-headers.inspectors-decode"}, obs.Expected, obs.Actual)
				return
			}
			id, st = t.StatelessRequest(c, spec.MethodResourcesRead, map[string]any{"uri": uri}, func(h http.Header) { h.Set(wire.HeaderName, "=?BASE64?"+enc+"?=") })
			obs = t.AnswerOn(c.S(), st, headersMismatch(id))
			if !obs.OK() {
				t.Violation("transport-http.param-headers.sentinel-lowercase", "an upper-case =?BASE64? marker is no encoding: the literal value differs from the body, 400 with -32020", obs.Actual)
				return
			}
			t.Saw("Mcp-Name =?base64?%s?= was served; =?BASE64?...?= was refused with -32020", enc)
			t.Pass()
		},
	},
	server.Def{
		ID: "transport-http/stateless-x-mcp-header-annotations", Area: "transport-http", Eras: server.Stateless,
		Title: "x-mcp-header annotations are non-empty unique tokens on primitive properties reached through properties only",
		Requirements: []string{"transport-http.param-headers.name-token-syntax", "transport-http.param-headers.name-not-empty",
			"transport-http.param-headers.name-no-control-chars", "transport-http.param-headers.name-unique",
			"transport-http.param-headers.primitive-only", "transport-http.param-headers.statically-reachable",
			"transport-http.param-headers.no-dynamic-path", "security.tools.x-mcp-header-not-for-secrets"},
		Proofs: []server.Proof{
			{Proxy: "bad-x-mcp-header", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Fail},
			{Proxy: "secret-header", Good: "plain", Version: spec.V20260728, Transport: "streamable", Want: reports.Warn},
		},
		Body: func(t *server.T) {
			tools, ok := t.RequireTools()
			if !ok {
				return
			}
			n := 0
			for _, tl := range tools {
				var schema any
				if json.Unmarshal(tl.InputSchema, &schema) != nil {
					continue
				}
				names := map[string]string{}
				headersWalk(schema, "", true, func(path string, static bool, typ any, name any) {
					n++
					s, isStr := name.(string)
					where := fmt.Sprintf("tool %q, %s", tl.Name, path)
					switch {
					case !isStr || s == "":
						t.Violation("transport-http.param-headers.name-not-empty", "a non-empty header name", fmt.Sprintf("%s: x-mcp-header %v", where, name))
					case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
						t.Violation("transport-http.param-headers.name-no-control-chars", "no control characters", fmt.Sprintf("%s: x-mcp-header %q", where, s))
					case !headersToken(s):
						t.Violation("transport-http.param-headers.name-token-syntax", "an RFC 9110 token", fmt.Sprintf("%s: x-mcp-header %q", where, s))
					}
					if isStr {
						if prev, dup := names[strings.ToLower(s)]; dup {
							t.Violation("transport-http.param-headers.name-unique", "unique header names within a schema", fmt.Sprintf("tool %q: %q at %s and %s", tl.Name, s, prev, path))
						}
						names[strings.ToLower(s)] = path
					}
					if !static {
						t.ViolateFirst([]string{"transport-http.param-headers.statically-reachable", "transport-http.param-headers.no-dynamic-path"},
							"x-mcp-header only on properties reached through properties keys", where+" is reached through another keyword")
					}
					if headersSecretName(path) {
						t.Violation("security.tools.x-mcp-header-not-for-secrets", "no credential or personal-data parameter mirrored into a header", where+" looks like a secret and is marked x-mcp-header")
					}
					if ts, ok := typ.(string); !ok || (ts != "string" && ts != "integer" && ts != "boolean") {
						t.Violation("transport-http.param-headers.primitive-only", "x-mcp-header only on string, integer or boolean parameters", fmt.Sprintf("%s has type %v", where, typ))
					}
				})
			}
			if n == 0 {
				t.NotApplicable("no tool marks a parameter with x-mcp-header")
				return
			}
			if t.Open() {
				t.Saw("%d x-mcp-header annotations, all well-formed", n)
				t.Pass()
			}
		},
	},
)

// headersWalk calls found for every schema object carrying x-mcp-header,
// with its path and whether it is reached from the root through properties
// keys alone.
func headersWalk(node any, path string, static bool, found func(path string, static bool, typ, name any)) {
	switch v := node.(type) {
	case map[string]any:
		if name, ok := v["x-mcp-header"]; ok && path != "" {
			found(path, static, v["type"], name)
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := v[k]
			if k == "properties" {
				if props, ok := child.(map[string]any); ok {
					pk := make([]string, 0, len(props))
					for p := range props {
						pk = append(pk, p)
					}
					sort.Strings(pk)
					for _, p := range pk {
						headersWalk(props[p], path+"/properties/"+p, static, found)
					}
				}
				continue
			}
			if k == "x-mcp-header" || k == "enum" || k == "const" || k == "default" || k == "examples" {
				continue
			}
			headersWalk(child, path+"/"+k, false, found)
		}
	case []any:
		for i, x := range v {
			headersWalk(x, fmt.Sprintf("%s/%d", path, i), false, found)
		}
	}
}

// headersToken reports an RFC 9110 token: one or more tchar.
func headersToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// headersSortedKeys lists the header names of h, sorted, as sent.
func headersSortedKeys(h http.Header) []string {
	var ks []string
	for k := range h {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// headersSecretName reports a property path whose last name says it holds
// a credential (password, secret, API key, access token, private key).
func headersSecretName(path string) bool {
	name := path[strings.LastIndexByte(path, '/')+1:]
	n := strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(name))
	for _, w := range []string{"password", "passwd", "secret", "apikey", "accesstoken", "authtoken", "refreshtoken", "bearertoken", "privatekey", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// headersPlainPost POSTs body to the target with exactly the headers hdr
// (keys written as they are in the map) on a plain HTTP client, and
// returns the status and the JSON-RPC messages of the JSON or SSE answer.
func headersPlainPost(t *server.T, hdr http.Header, body []byte) (int, []jsonrpc.Message, error) {
	ctx, cancel := context.WithTimeout(t.Ctx, t.StepTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.Target().URL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = hdr
	var (
		status  int
		msgs    []jsonrpc.Message
		readErr error
	)
	err = t.PlainSend(req, body, func(resp *http.Response) {
		status = resp.StatusCode
		if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), wire.MediaSSE) {
			sr := wire.NewSSEReader(resp.Body, 0)
			for {
				ev, err := sr.Next()
				if err != nil {
					break
				}
				if !ev.HasData || len(ev.Data) == 0 {
					continue
				}
				m := jsonrpc.Decode(ev.Data)
				msgs = append(msgs, m)
				if m.Shape.IsResponse() {
					break // the response ends the exchange; the stream may stay open
				}
			}
			return
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		if err != nil {
			readErr = err
			return
		}
		if len(bytes.TrimSpace(b)) > 0 {
			msgs = append(msgs, jsonrpc.Decode(b))
		}
	})
	if err != nil {
		return 0, nil, err
	}
	return status, msgs, readErr
}
