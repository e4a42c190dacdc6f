package mutate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/spec"
)

// HTTPMutator is a named, deterministic maker of hostile HTTP requests.
type HTTPMutator struct {
	Name string
	Doc  string
	// Make builds the request from a base message (a valid client request
	// of the campaign's version).
	Make func(r *rand.Rand, b Base) conn.HTTPRequest
	// Cost is Mutator.Cost.
	Cost Cost
}

// httpBodyMax bounds the huge-body mutator.
const httpBodyMax = 16 << 20

func post(b Base, body []byte) conn.HTTPRequest {
	return conn.HTTPRequest{Method: "POST", Body: body}
}

var httpMutators = []HTTPMutator{
	{Name: "http/missing-accept", Doc: "POSTs a valid request without an Accept header", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		q.Omit = []string{"Accept"}
		return q
	}},
	{Name: "http/wrong-accept", Doc: "POSTs with an Accept that names only one or neither of application/json and text/event-stream", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		q.Header = [][2]string{{"Accept", pick(r, []string{"application/json", "text/event-stream", "text/html", "*/*", "application/xml;q=1", ""})}}
		q.Omit = []string{"Accept"}
		return q
	}},
	{Name: "http/wrong-content-type", Doc: "POSTs a valid request with a Content-Type that is not application/json, or none", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		ct := pick(r, []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1", "application/jsonx", "-"})
		q.Omit = []string{"Content-Type"}
		if ct != "-" {
			q.Header = [][2]string{{"Content-Type", ct}}
		}
		return q
	}},
	{Name: "http/garbage-header", Doc: "sends MCP headers whose values are garbage (control bytes, huge, non-ASCII)", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		name := pick(r, []string{"MCP-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name", "Last-Event-ID", "Origin"})
		val := pick(r, []string{"\x01\x02", strings.Repeat("A", 64<<10), "ünïcödé", "=?base64?!!!?=", "2025-13-45", " ", "null"})
		q.Header = [][2]string{{name, val}}
		q.Omit = []string{name}
		return q
	}},
	{Name: "http/duplicate-header", Doc: "sends MCP-Protocol-Version or Mcp-Session-Id twice with different values", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		name := pick(r, []string{"MCP-Protocol-Version", "Mcp-Session-Id", "Content-Type", "Mcp-Method"})
		q.Header = [][2]string{{name, headerValueFor(name, b.Version)}, {name, pick(r, []string{"2024-11-05", "other", "application/xml"})}}
		q.Omit = []string{name}
		return q
	}},
	{Name: "http/missing-protocol-version", Doc: "POSTs a valid request without MCP-Protocol-Version", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		q.Omit = []string{"MCP-Protocol-Version"}
		return q
	}},
	{Name: "http/forged-session", Doc: "POSTs with a session id the server never issued", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		q.Session = "forged"
		q.Header = [][2]string{{"Mcp-Session-Id", pick(r, []string{"00000000-0000-0000-0000-000000000000", fmt.Sprintf("mcpcheck-%016x", r.Uint64()), "../../etc/passwd", "*"})}}
		return q
	}},
	{Name: "http/expired-session", Doc: "ends the session with DELETE, then POSTs with its id", Cost: Costly, Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		q.Session = "expired"
		return q
	}},
	{Name: "http/no-session", Doc: "POSTs a non-initialize request without Mcp-Session-Id", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		body := b.Msg.Raw()
		if b.Msg.Method == spec.MethodInitialize {
			body = gen.Marshal(gen.Request(b.Version, "mcpcheck-no-session", spec.MethodToolsList, nil))
		}
		q := post(b, body)
		q.Session = "none"
		return q
	}},
	{Name: "http/forged-last-event-id", Doc: "opens a GET stream with a Last-Event-ID the server never sent", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		return conn.HTTPRequest{Method: "GET", Header: [][2]string{{"Accept", "text/event-stream"}, {"Last-Event-ID", pick(r, []string{"0", "999999999", "mcpcheck-forged", "-1", strings.Repeat("9", 4096), "\x00"})}}, Omit: []string{"Accept"}}
	}},
	{Name: "http/huge-body", Doc: "POSTs a valid request padded to between 1 and 16 MiB", Cost: Costly, Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		m := b.Msg.Raw()
		size := pick(r, []int{1 << 20, 4 << 20, httpBodyMax})
		body := splice(m, len(m)-1, len(m)-1, bytes.Repeat([]byte{' '}, size-len(m)))
		return post(b, body)
	}},
	{Name: "http/slow-body", Doc: "trickles a valid request a few bytes at a time", Cost: Slow, Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		q.BodyChunk = 1 + r.IntN(16)
		q.BodyDelay = time.Duration(1+r.IntN(20)) * time.Millisecond
		return q
	}},
	{Name: "http/lying-length", Doc: "declares a Content-Length longer or shorter than the body", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		n := int64(len(q.Body))
		q.DeclaredLength = pick(r, []int64{n + 100, n / 2, 1, 1 << 40})
		return q
	}},
	{Name: "http/wrong-method", Doc: "uses PUT, PATCH, OPTIONS, HEAD, DELETE or GET where POST is expected", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		q.Method = pick(r, []string{"PUT", "PATCH", "OPTIONS", "HEAD", "DELETE", "GET", "TRACE", "BREW"})
		return q
	}},
	{Name: "http/empty-body", Doc: "POSTs an empty body", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		return post(b, nil)
	}},
	{Name: "http/header-body-mismatch", Doc: "sends Mcp-Method or MCP-Protocol-Version disagreeing with the body (2026-07-28 must answer 400)", Make: func(r *rand.Rand, b Base) conn.HTTPRequest {
		q := post(b, b.Msg.Raw())
		name := pick(r, []string{"Mcp-Method", "MCP-Protocol-Version", "Mcp-Name"})
		q.Header = [][2]string{{name, pick(r, []string{"tools/call", "2024-11-05", "not-the-name"})}}
		q.Omit = []string{name}
		return q
	}},
}

func headerValueFor(name string, v spec.Version) string {
	switch strings.ToLower(name) {
	case "mcp-protocol-version":
		return string(v)
	case "content-type":
		return "application/json"
	case "mcp-method":
		return spec.MethodPing
	}
	return "mcpcheck"
}

// HTTPMutators returns every HTTP mutator, sorted by name.
func HTTPMutators() []HTTPMutator {
	out := append([]HTTPMutator(nil), httpMutators...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// httpAsMutators wraps the HTTP mutators as Mutators whose inputs carry
// the request in Input.HTTP.
func httpAsMutators() []Mutator {
	var out []Mutator
	for _, m := range HTTPMutators() {
		m := m
		out = append(out, Mutator{Name: m.Name, Doc: m.Doc, Cost: m.Cost, Over: OverHTTP, Mutate: func(r *rand.Rand, b Base) Input {
			q := m.Make(r, b)
			return Input{HTTP: &q}
		}})
	}
	return out
}

// MakeHTTPRequest builds the request of one HTTP mutator for version v from
// seed, deterministically.
func MakeHTTPRequest(v spec.Version, mutator string, seed uint64) (conn.HTTPRequest, error) {
	for _, m := range httpMutators {
		if m.Name != mutator {
			continue
		}
		b, err := MakeBase(v, seed, nil)
		if err != nil {
			return conn.HTTPRequest{}, err
		}
		return m.Make(newRand(seed, nameSalt(m.Name)), b), nil
	}
	return conn.HTTPRequest{}, fmt.Errorf("fuzz: there is no HTTP mutator %q; HTTPMutators lists them", mutator)
}
