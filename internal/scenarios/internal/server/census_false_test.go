package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The census's false judgements (reports/interop/CENSUS-TRIAGE.json,
// verdict FALSE; issue 33), each replayed by a small scripted target that
// does what the real server did, and held to the verdict the spec allows.

// censusQuirks is what quirkServer does besides answering initialize and
// ping: emptyFrame writes the line {} after notifications/initialized
// (the SSE data {} the TS SDK's event store replays); pingRefused answers
// every ping -32601 (as Context7 answers a second server/discover);
// batchUnwrapped takes a JSON array for its first element and answers
// that alone, not as an array (as @antv/mcp-server-chart does);
// emptyResources declares resources and answers every resources/read with
// an empty contents list (as browsermcp does).
type censusQuirks struct {
	emptyFrame, pingRefused, batchUnwrapped, emptyResources bool
}

// quirkServer is a pipe server with q's quirks. A request whose id is no
// string or integer (1.5, true, an object, an array, null) gets -32600
// carrying that id as sent, as Context7 answers; other methods -32601.
func quirkServer(q censusQuirks) target.PipeServer {
	return func(ctx context.Context, in io.Reader, out io.Writer) error {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			msg := sc.Bytes()
			var batch []json.RawMessage
			if q.batchUnwrapped && json.Unmarshal(msg, &batch) == nil && len(batch) > 0 {
				msg = batch[0]
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"params"`
			}
			if json.Unmarshal(msg, &m) != nil {
				continue
			}
			var line string
			var id any
			switch {
			case m.Method == "notifications/initialized" && q.emptyFrame:
				line = `{}`
			case len(m.ID) == 0:
				continue
			case json.Unmarshal(m.ID, &id) != nil:
				continue
			case !validPipeID(id, m.ID):
				line = fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Bad Request: the request body is not a valid JSON-RPC message"},"id":%s}`, m.ID)
			case m.Method == "initialize":
				caps := `{}`
				if q.emptyResources {
					caps = `{"resources":{}}`
				}
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":%s,"serverInfo":{"name":"census-quirks","version":"1"}}}`, m.ID, m.Params.ProtocolVersion, caps)
			case m.Method == "resources/read" && q.emptyResources:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"contents":[]}}`, m.ID)
			case m.Method == "ping" && !q.pingRefused:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
			default:
				line = fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":%s}`, m.ID)
			}
			if _, err := io.WriteString(out, line+"\n"); err != nil {
				return err
			}
		}
		return sc.Err()
	}
}

// validPipeID reports an id MCP allows: a string, or an integer.
func validPipeID(id any, raw json.RawMessage) bool {
	switch id.(type) {
	case string:
		return true
	case float64:
		return !strings.ContainsAny(string(raw), ".eE")
	}
	return false
}

// TestResponseShapeJudgesOnlyResponses: a frame {} (no id, no method, no
// result, no error; the census's replayed SSE data {}) is no response:
// base/response-shape passes, and base/wire-schema is the one that fails
// it. Before the fix response-shape charged it to
// base.response.result-member-present.
func TestResponseShapeJudgesOnlyResponses(t *testing.T) {
	v := spec.V20251125
	res := runSuites(t, Config{Target: target.Pipe(quirkServer(censusQuirks{emptyFrame: true})), Versions: []spec.Version{v},
		Only: []string{"base/response-shape", "base/wire-schema"}}, time.Minute)
	expectOutcome(t, res, "base/response-shape", v, reports.Pass, "a frame {} that is no response")
	expectOutcome(t, res, "base/wire-schema", v, reports.Fail, "a frame {} that is no JSON-RPC message")
}

// TestNotificationCheckProbeRefused: a server that answers the check's
// liveness probe (ping) with -32601 and id of the probe answered no
// notification: base/notification-no-response says its probe failed
// (untestable), not that the server answered a notification (Context7's
// second server/discover in the census).
func TestNotificationCheckProbeRefused(t *testing.T) {
	v := spec.V20251125
	res := runSuites(t, Config{Target: target.Pipe(quirkServer(censusQuirks{pingRefused: true})), Versions: []spec.Version{v},
		Only: []string{"base/notification-no-response"}}, time.Minute)
	if c, ok := expectOutcome(t, res, "base/notification-no-response", v, reports.Untestable, "a refused liveness probe"); ok && !strings.Contains(c.Reason, "liveness probe") {
		t.Errorf("the untestable reason does not name the failed probe: %s", c.Reason)
	}
}

// TestBatchAnsweredOneByOneIsNoBatchResponse: from 2025-06-18 a server
// that takes a one-element batch for the request inside it and answers
// that request on its own (no array) sent no batch response, which is
// all base/batch-rejected may demand; it passes, and a server that
// answers nothing passes as before (@antv/mcp-server-chart in the census
// was failed for the single answer).
func TestBatchAnsweredOneByOneIsNoBatchResponse(t *testing.T) {
	v := spec.V20251125
	for _, q := range []censusQuirks{{batchUnwrapped: true}, {}} {
		res := runSuites(t, Config{Target: target.Pipe(quirkServer(q)), Versions: []spec.Version{v}, Only: []string{"base/batch-rejected"}}, time.Minute)
		expectOutcome(t, res, "base/batch-rejected", v, reports.Pass, fmt.Sprintf("a one-element batch answered without an array (%+v)", q))
	}
}

// TestWireSchemaAcceptsInvalidIDEcho: an error that echoes mcpcheck's own
// invalid id (1.5, true, an object, an array) is what base/invalid-ids
// accepts, so base/wire-schema must not fail it for the id (Context7 in
// the census); both pass.
func TestWireSchemaAcceptsInvalidIDEcho(t *testing.T) {
	only := []string{"base/invalid-ids", "base/wire-schema"}
	for _, v := range []spec.Version{spec.V20241105, spec.V20251125} {
		res := runSuites(t, Config{Target: target.Pipe(quirkServer(censusQuirks{})), Versions: []spec.Version{v}, Only: only}, time.Minute)
		for _, id := range only {
			expectOutcome(t, res, id, v, reports.Pass, "errors -32600 echoing the invalid ids sent")
		}
	}
}

// TestDeclinedGetIsNoStream: a server that declines every GET with HTTP
// 405 and a JSON-RPC error body with id null (Context7 over streamable
// HTTP) sent no response on a GET-opened stream: there was none.
// transport-http/responses-on-own-streams passes.
func TestDeclinedGetIsNoStream(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	v := spec.V20251125
	u, err := url.Parse(httpReference(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	proxy.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == u.Path {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusMethodNotAllowed)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	// transport-http/get-stream-or-405 and transport-http/get-stream-no-responses send the
	// GETs.
	only := []string{"transport-http/get-stream-or-405", "transport-http/get-stream-no-responses", "transport-http/responses-on-own-streams"}
	res := runURL(t, srv.URL+u.Path, target.Streamable, Config{Only: only, Versions: []spec.Version{v}})
	for _, c := range res.Report.Checks {
		t.Logf("%s %s: %s / %s", c.ID, c.Outcome, c.Actual, c.Reason)
	}
	expectOutcome(t, res, "transport-http/get-stream-or-405", v, reports.Pass, "every GET declined with 405 and a JSON body")
	expectOutcome(t, res, "transport-http/responses-on-own-streams", v, reports.Pass, "every GET declined with 405 and a JSON body")
}

// TestBatchAnsweredOneByOneOverHTTP: the same as
// TestBatchAnsweredOneByOneIsNoBatchResponse over streamable HTTP, where
// the census saw it (@antv/mcp-server-chart: the POST of a one-element
// batch answered 200 with the single response object, application/json):
// a proxy in front of the reference server in its JSON-response mode
// unwraps the array, so the server answers the ping alone with HTTP 200.
// base/batch-rejected passes; before, the HTTP-refusal alternative failed
// it ("HTTP status 200 is not 400 or ...").
func TestBatchAnsweredOneByOneOverHTTP(t *testing.T) {
	u := referenceBehindProxy(t, func(_ http.ResponseWriter, _ *http.Request, body []byte) ([]byte, bool) {
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) == nil && len(batch) == 1 {
			return batch[0], false
		}
		return body, false
	})
	v := spec.V20251125
	res := runURL(t, u, target.Streamable, Config{Versions: []spec.Version{v}, Only: []string{"base/batch-rejected"}})
	expectOutcome(t, res, "base/batch-rejected", v, reports.Pass, "a one-element batch answered 200 with the single response")
}

// referenceBehindProxy starts the reference server over streamable HTTP
// in its JSON-response mode behind a proxy and returns the proxy's MCP
// URL. post sees the body of every POST: it returns the body to pass on,
// or true when it answered the POST itself.
func referenceBehindProxy(t *testing.T, post func(w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool)) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the reference server over HTTP")
	}
	up, err := url.Parse(startReferenceHTTP(t, "--json-responses"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			proxy.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body.Close()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body, handled := post(w, r, body)
		if handled {
			return
		}
		r.Body, r.ContentLength = io.NopCloser(strings.NewReader(string(body))), int64(len(body))
		r.Header.Del("Content-Length")
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + up.Path
}

// TestLateIdlessBodyOfAnotherPostIsNotThisRowsAnswer: over streamable
// HTTP, base/invalid-ids judges each row by what comes back for it. A
// loaded server here sends the status line of its refusal of the id-array
// row at once and the body (an error without an id, rightly: the id was
// unusable) only when a later row's POST arrives. That late idless body
// travelled on the id-array row's POST and answers it, not the later
// row; it used to be taken for the later row's answer ("the answer
// carries id (none), not the id sent (9007199254740991)"), a fail seen in
// TestParallelOutcomesAgainstReference at load 35 on the reference server.
func TestLateIdlessBodyOfAnotherPostIsNotThisRowsAnswer(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	u := referenceBehindProxy(t, func(w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		switch {
		case strings.Contains(string(body), `"id":[`):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			case <-r.Context().Done():
				return nil, true
			}
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: the id is an array"}}`)
			return nil, true
		case strings.Contains(string(body), `9007199254740991`):
			once.Do(func() { close(release) })
		}
		return body, false
	})
	v := spec.V20250326
	res := runURL(t, u, target.Streamable, Config{Versions: []spec.Version{v}, Only: []string{"base/invalid-ids"},
		Session: session.Config{Timeout: 2 * time.Second}})
	expectOutcome(t, res, "base/invalid-ids", v, reports.Pass, "a late idless refusal on the id-array row's POST")
}

// TestEmptyReadOfAMalformedURIIsUntestable: a server that answers every
// resources/read, a malformed URI's too, with an empty contents list
// served nothing; whether it validated the URI cannot be told, so
// resources/malformed-uri is untestable, not failed on its MUST
// (browsermcp 0.1.3 in the census, judged with --one-instance).
func TestEmptyReadOfAMalformedURIIsUntestable(t *testing.T) {
	v := spec.V20251125
	res := runSuites(t, Config{Target: target.Pipe(quirkServer(censusQuirks{emptyResources: true})), Versions: []spec.Version{v},
		Only: []string{"resources/malformed-uri"}}, time.Minute)
	if c, ok := expectOutcome(t, res, "resources/malformed-uri", v, reports.Untestable, "an empty contents list"); ok && !strings.Contains(c.Reason, "nothing was served") {
		t.Errorf("the untestable reason does not say nothing was served: %s", c.Reason)
	}
}
