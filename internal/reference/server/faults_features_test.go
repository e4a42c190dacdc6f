package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ffConn is a stdio client for the probes of faults_features.go. It reads
// lines as they are (a fault may make them invalid, which the validating
// stdioClient.next would report as a test error) and answers every request
// from the server, with answer or with -32601.
type ffConn struct {
	c      *stdioClient
	n      int64
	answer json.RawMessage
}

func ffStart(t *testing.T, s *Server) *ffConn { return &ffConn{c: startStdio(t, s)} }

func (f *ffConn) send(v any) {
	f.c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		f.c.t.Fatal(err)
	}
	f.c.sendRaw(b)
}

// next returns the next message, answering it first if it is a request.
func (f *ffConn) next() jsonrpc.Message {
	f.c.t.Helper()
	m := jsonrpc.Decode(f.c.nextRaw())
	if m.Shape == jsonrpc.KindRequest && !m.ID.IsZero() {
		var b []byte
		if f.answer != nil {
			b, _ = jsonrpc.NewResponse(m.ID, f.answer)
		} else {
			b, _ = jsonrpc.NewErrorResponse(m.ID, jsonrpc.MethodNotFound, "the probe does not handle "+m.Method, nil)
		}
		f.c.sendRaw(b)
	}
	return m
}

func (f *ffConn) requestID(id jsonrpc.ID, method string, params any) {
	f.c.t.Helper()
	b, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		f.c.t.Fatal(err)
	}
	f.c.sendRaw(b)
}

func (f *ffConn) request(method string, params any) jsonrpc.ID {
	f.n++
	id := jsonrpc.IntID(f.n)
	f.requestID(id, method, params)
	return id
}

// until reads up to the response to id; it returns that response and the
// messages before it.
func (f *ffConn) until(id jsonrpc.ID) (jsonrpc.Message, []jsonrpc.Message) {
	f.c.t.Helper()
	var before []jsonrpc.Message
	for {
		m := f.next()
		if m.Shape.IsResponse() && m.ID == id {
			return m, before
		}
		before = append(before, m)
	}
}

func (f *ffConn) call(method string, params any) (jsonrpc.Message, []jsonrpc.Message) {
	f.c.t.Helper()
	return f.until(f.request(method, params))
}

// init runs the handshake of version v declaring caps (nothing when nil)
// and returns the initialize response.
func (f *ffConn) init(v spec.Version, caps any) jsonrpc.Message {
	f.c.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	m, _ := f.call("initialize", map[string]any{"protocolVersion": string(v), "capabilities": caps, "clientInfo": map[string]any{"name": "probe", "version": "1"}})
	f.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return m
}

// ffObject decodes a JSON object (nil when it is not one).
func ffObject(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	return m
}

func ffCode(m jsonrpc.Message) int64 {
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

func ffHasMethod(ms []jsonrpc.Message, method string) bool {
	for _, m := range ms {
		if m.Method == method {
			return true
		}
	}
	return false
}

// ffTool returns the listed tool name, or false.
func ffTool(res json.RawMessage, name string) (mcp.Tool, bool) {
	var l mcp.ListToolsResult
	_ = json.Unmarshal(res, &l)
	for _, t := range l.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return mcp.Tool{}, false
}

// ffUndeclaredNotice reports a notification of method sent once the session
// is initialized while the capability at path (of the initialize result) is
// absent.
func ffUndeclaredNotice(t *testing.T, s *Server, method string, path ...string) bool {
	f := ffStart(t, s)
	ini := f.init(spec.V20251125, nil)
	_, before := f.call("ping", nil)
	v := ffObject(ini.Result)["capabilities"]
	for _, p := range path {
		v = ffObject(v)[p]
	}
	return ffHasMethod(before, method) && (len(v) == 0 || string(v) == "false")
}

// ffSamplingAnswer is a sampling/createMessage result.
var ffSamplingAnswer = json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"probe"},"model":"probe"}`)

// The probes of the switches of faults_features.go.
func init() {
	faultProbes[FaultBatchRefused] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20250326, nil)
		f.c.sendRaw([]byte(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`))
		return !bytes.HasPrefix(f.c.nextRaw(), []byte("["))
	}
	faultProbes[FaultBatchAnswered] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		f.c.sendRaw([]byte(`[{"jsonrpc":"2.0","id":"a","method":"ping"}]`))
		return bytes.HasPrefix(f.c.nextRaw(), []byte("["))
	}
	faultProbes[FaultErrorWithoutMessage] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("mcpcheck/nope", nil)
		return m.Has(jsonrpc.ReasonErrorMessageMissing)
	}
	faultProbes[FaultErrorWithResult] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("mcpcheck/nope", nil)
		return m.Has(jsonrpc.ReasonResultAndError)
	}
	faultProbes[FaultInvalidRequestResult] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		f.c.sendRaw([]byte(`{"jsonrpc":"2.0","id":"bad-1","method":42}`))
		m, _ := f.until(jsonrpc.StringID("bad-1"))
		return m.Shape == jsonrpc.KindResponse
	}
	faultProbes[FaultParseErrorWrongCode] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		f.c.sendRaw([]byte(`{"jsonrpc":"2.0","id":"x"`))
		return ffCode(f.next()) == jsonrpc.InvalidRequest
	}
	faultProbes[FaultMetaVersionAssumed] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		m, _ := f.call("tools/list", map[string]any{"_meta": map[string]any{mcp.MetaClientCapabilities: map[string]any{}}})
		return m.Shape == jsonrpc.KindResponse
	}
	faultProbes[FaultStatelessServerRequest] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		_, before := f.call("server/discover", withMeta(nil, nil))
		for _, m := range before {
			if m.Shape == jsonrpc.KindRequest {
				return true
			}
		}
		return false
	}
	faultProbes[FaultNotificationWithID] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		_, before := f.call("tools/call", map[string]any{"name": "ref_progress", "arguments": map[string]any{"steps": 2}, "_meta": map[string]any{"progressToken": "p"}})
		for _, m := range before {
			if m.Method == "notifications/progress" && !m.IDAbsent {
				return true
			}
		}
		return false
	}
	faultProbes[FaultServerRequestIDReused] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.answer = ffSamplingAnswer
		f.init(spec.V20251125, map[string]any{"sampling": map[string]any{}})
		ids := map[jsonrpc.ID]bool{}
		for i := 0; i < 2; i++ {
			_, before := f.call("tools/call", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"}})
			for _, m := range before {
				if m.Method == "sampling/createMessage" {
					if ids[m.ID] {
						return true
					}
					ids[m.ID] = true
				}
			}
		}
		return false
	}
	faultProbes[FaultRequestProgressTokenFloat] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.answer = ffSamplingAnswer
		f.init(spec.V20251125, map[string]any{"sampling": map[string]any{}})
		_, before := f.call("tools/call", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"}})
		for _, m := range before {
			if m.Method == "sampling/createMessage" && string(ffObject(ffObject(m.Params)["_meta"])["progressToken"]) == "1.5" {
				return true
			}
		}
		return false
	}
	faultProbes[FaultResultIDTruncated] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		id := jsonrpc.StringID("probe-a-rather-long-id")
		f.requestID(id, "ping", nil)
		return f.next().ID != id
	}
	faultProbes[FaultResponseIDsWrong] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		id := jsonrpc.IntID(5)
		f.requestID(id, "ping", nil) // ping is answered before initialize too
		return f.next().ID != id
	}
	faultProbes[FaultIDsThroughFloat] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		id := jsonrpc.IntID(1<<53 + 1)
		f.requestID(id, "ping", nil)
		return f.next().ID != id
	}
	faultProbes[FaultFractionIDsTruncated] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		f.c.sendRaw([]byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`))
		return bytes.Contains(f.c.nextRaw(), []byte(`"id":1,`))
	}
	faultProbes[FaultNoServerInfoMeta] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		m, _ := f.call("tools/list", withMeta(nil, nil))
		return !strings.Contains(string(m.Result), mcp.MetaServerInfo)
	}
	faultProbes[FaultUnknownMethodWrongCode] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("mcpcheck/nope", nil)
		return ffCode(m) == jsonrpc.InvalidParams
	}
	faultProbes[FaultLatin1Ping] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		f.request("ping", nil)
		return !utf8.Valid(f.c.nextRaw())
	}
	faultProbes[FaultPingMetaNotObject] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("ping", nil)
		meta := ffObject(m.Result)["_meta"]
		return len(meta) > 0 && meta[0] != '{'
	}
	faultProbes[FaultStaleCancelAnswered] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		f.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": "never-sent"}})
		_, before := f.call("ping", nil)
		for _, m := range before {
			if m.Shape == jsonrpc.KindErrorResponse {
				return true
			}
		}
		return false
	}
	faultProbes[FaultCancelClientRequest] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		_, before := f.call("ping", nil)
		return ffHasMethod(before, "notifications/cancelled")
	}
	faultProbes[FaultClientCapsAssumed] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		_, before := f.call("tools/call", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"}})
		return ffHasMethod(before, "sampling/createMessage")
	}
	faultProbes[FaultInitNoServerInfo] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		m := f.init(spec.V20251125, nil)
		_, ok := ffObject(m.Result)["serverInfo"]
		return !ok
	}
	faultProbes[FaultRequestBeforeInitialized] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "probe", "version": "1"}})
		_, before := f.call("ping", nil) // before notifications/initialized
		return ffHasMethod(before, "roots/list")
	}
	faultProbes[FaultSecondInitUnanswered] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		again := f.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "probe", "version": "1"}})
		_, before := f.call("ping", nil)
		for _, m := range before {
			if m.Shape.IsResponse() && m.ID == again {
				return false
			}
		}
		return true
	}
	faultProbes[FaultUnknownVersionOldest] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		m := f.init("1999-01-01", nil)
		return string(ffObject(m.Result)["protocolVersion"]) == `"2024-11-05"`
	}
	faultProbes[FaultPromptsUndeclared] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		m := f.init(spec.V20251125, nil)
		_, ok := ffObject(ffObject(m.Result)["capabilities"])["prompts"]
		return !ok
	}
	faultProbes[FaultPromptNotesUndeclared] = func(t *testing.T, s *Server) bool {
		return ffUndeclaredNotice(t, s, "notifications/prompts/list_changed", "prompts", "listChanged")
	}
	faultProbes[FaultToolNotesUndeclared] = func(t *testing.T, s *Server) bool {
		return ffUndeclaredNotice(t, s, "notifications/tools/list_changed", "tools", "listChanged")
	}
	faultProbes[FaultLoggingUndeclared] = func(t *testing.T, s *Server) bool {
		return ffUndeclaredNotice(t, s, "notifications/message", "logging")
	}
	faultProbes[FaultUndeclaredInputKinds] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		m, _ := f.call("tools/call", withMeta(map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{}}, map[string]any{}))
		return strings.Contains(string(m.Result), `"input_required"`)
	}
	faultProbes[FaultCompletionBogusRefServed] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/bogus", "name": "x"}, "argument": map[string]any{"name": "x", "value": ""}})
		return m.Shape == jsonrpc.KindResponse
	}
	faultProbes[FaultCompletionUndeclaredCode] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		ini := f.init(spec.V20251125, nil)
		_, declared := ffObject(ffObject(ini.Result)["capabilities"])["completions"]
		m, _ := f.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": ""}})
		return !declared && ffCode(m) == jsonrpc.InvalidParams
	}
	faultProbes[FaultCompletionUnknownCode] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nope"}, "argument": map[string]any{"name": "x", "value": ""}})
		return ffCode(m) == jsonrpc.InternalError
	}
	faultProbes[FaultCompletionUnbounded] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": ""}})
		var res mcp.CompleteResult
		_ = json.Unmarshal(m.Result, &res)
		return len(res.Completion.Values) > 100
	}
	faultProbes[FaultInvalidLogLevelIgnored] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		meta := statelessMeta(nil)
		meta["io.modelcontextprotocol/logLevel"] = "bogus"
		m, _ := f.call("server/discover", map[string]any{"_meta": meta})
		return m.Shape == jsonrpc.KindResponse
	}
	faultProbes[FaultUnsupportedNoList] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		meta := statelessMeta(nil)
		meta[mcp.MetaProtocolVersion] = "2099-01-01"
		m, _ := f.call("server/discover", map[string]any{"_meta": meta})
		var d struct{ Supported []string }
		if m.Error != nil {
			_ = json.Unmarshal(m.Error.Data, &d)
		}
		return ffCode(m) == jsonrpc.UnsupportedProtocolVersion && len(d.Supported) == 0
	}
	faultProbes[FaultCursorLoops] = func(t *testing.T, s *Server) bool {
		s.opts.PageSize = 3 // set before the server serves anything
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		first, _ := f.call("tools/list", nil)
		var a, b mcp.ListToolsResult
		_ = json.Unmarshal(first.Result, &a)
		second, _ := f.call("tools/list", map[string]any{"cursor": a.NextCursor})
		_ = json.Unmarshal(second.Result, &b)
		return a.NextCursor != "" && b.NextCursor == a.NextCursor
	}
	faultProbes[FaultProgressWithoutToken] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		_, before := f.call("tools/call", map[string]any{"name": "ref_progress", "arguments": map[string]any{"steps": 2}})
		return ffHasMethod(before, "notifications/progress")
	}
	faultProbes[FaultPromptImageNotBase64] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("prompts/get", map[string]any{"name": "test_prompt_with_image"})
		var res struct {
			Messages []struct {
				Content struct{ Type, Data string }
			}
		}
		_ = json.Unmarshal(m.Result, &res)
		for _, pm := range res.Messages {
			if pm.Content.Type == "image" {
				_, err := base64.StdEncoding.DecodeString(pm.Content.Data)
				return err != nil
			}
		}
		return false
	}
	faultProbes[FaultPromptArgsUnchecked] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg2": "x"}})
		return m.Shape == jsonrpc.KindResponse
	}
	faultProbes[FaultUnknownPromptWrongCode] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("prompts/get", map[string]any{"name": "nope"})
		return ffCode(m) == jsonrpc.InternalError
	}
	for fault, kind := range map[string]string{FaultNoPromptsListChanged: "prompts", FaultNoResourcesListChanged: "resources"} {
		kind := kind
		faultProbes[fault] = func(t *testing.T, s *Server) bool {
			f := ffStart(t, s)
			f.init(spec.V20251125, nil)
			_, before := f.call("tools/call", map[string]any{"name": "ref_change_lists", "arguments": map[string]any{"kind": kind}})
			_, more := f.call("ping", nil) // the notification goes to the general stream: the ping fences it
			return !ffHasMethod(append(before, more...), "notifications/"+kind+"/list_changed")
		}
	}
	for fault, method := range map[string]string{FaultPromptsListRefused: "prompts/list", FaultResourcesListRefused: "resources/list", FaultToolsListRefused: "tools/list"} {
		method := method
		faultProbes[fault] = func(t *testing.T, s *Server) bool {
			f := ffStart(t, s)
			m, _ := f.call(method, withMeta(nil, nil))
			return m.Error != nil
		}
	}
	faultProbes[FaultMalformedURIServed] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("resources/read", map[string]any{"uri": "mcpcheck:%zz/../../etc/passwd"})
		return m.Shape == jsonrpc.KindResponse
	}
	faultProbes[FaultNotFoundInvalidParams] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("resources/read", map[string]any{"uri": "test://missing"})
		return ffCode(m) == jsonrpc.InvalidParams
	}
	faultProbes[FaultResourceURINoScheme] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("resources/list", nil)
		var res mcp.ListResourcesResult
		_ = json.Unmarshal(m.Result, &res)
		for _, r := range res.Resources {
			if !strings.Contains(r.URI, ":") {
				return true
			}
		}
		return false
	}
	faultProbes[FaultToolNamesCaseInsensitive] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("tools/call", map[string]any{"name": "TEST_SIMPLE_TEXT", "arguments": map[string]any{}})
		return m.Shape == jsonrpc.KindResponse && !strings.Contains(string(m.Result), `"isError":true`)
	}
	faultProbes[FaultUnknownToolServed] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("tools/call", map[string]any{"name": "nope", "arguments": map[string]any{}})
		return m.Shape == jsonrpc.KindResponse && !strings.Contains(string(m.Result), `"isError":true`)
	}
	faultProbes[FaultToolArgsUnchecked] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("tools/call", map[string]any{"name": "ref_structured", "arguments": map[string]any{"b": 1}})
		return m.Shape == jsonrpc.KindResponse && !strings.Contains(string(m.Result), `"isError":true`)
	}
	faultProbes[FaultInputSchemaNull] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("tools/list", nil)
		tl, ok := ffTool(m.Result, "test_simple_text")
		return ok && string(tl.InputSchema) == "null"
	}
	faultProbes[FaultToolNameWithSpace] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("tools/list", nil)
		_, ok := ffTool(m.Result, "test simple text")
		return ok
	}
	faultProbes[FaultOutputSchemaInvalid] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		f.init(spec.V20251125, nil)
		m, _ := f.call("tools/list", nil)
		tl, _ := ffTool(m.Result, "ref_structured")
		return strings.Contains(string(tl.OutputSchema), `"numbr"`)
	}
	faultProbes[FaultDuplicateXMCPHeader] = func(t *testing.T, s *Server) bool {
		f := ffStart(t, s)
		m, _ := f.call("tools/list", withMeta(nil, nil))
		tl, ok := ffTool(m.Result, "ref_header_params")
		_, err := mcp.HeaderParams(tl.InputSchema)
		return ok && err != nil
	}
}
