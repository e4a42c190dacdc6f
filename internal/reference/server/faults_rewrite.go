package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// faultRewriters holds the whole effect of every rewrite fault switch
// (faultTable, Kind Rewrite). Each gets every message the server core
// writes, before Options.Rewrite sees it, and returns the messages to write
// instead: itself, changed, none, or more. The Outgoing they get names the
// request only for a valid client request: a message on the general
// stream, or one answering an invalid message or a notification, has a
// zero Request and an empty Method.
//
// They edit the encoded message and leave every byte they do not mean to
// change as the server wrote it (jsonObject).
var faultRewriters = map[string]func(Outgoing) [][]byte{
	// Responses: ids, error members, the answer to one method.
	FaultErrorIDMismatch: onError(func(o Outgoing, msg []byte) [][]byte {
		id, _ := jsonrpc.StringID("mismatched-" + o.Request.String()).MarshalJSON()
		return one(setMember(msg, []string{"id"}, id))
	}),
	FaultErrorWithoutMessage: onError(func(_ Outgoing, msg []byte) [][]byte {
		return one(remarshal(msg, func(m map[string]json.RawMessage) {
			var e map[string]json.RawMessage
			if json.Unmarshal(m["error"], &e) == nil {
				delete(e, "message")
				m["error"], _ = json.Marshal(e)
			}
		}))
	}),
	FaultErrorWithResult: onError(func(_ Outgoing, msg []byte) [][]byte {
		return one(remarshal(msg, func(m map[string]json.RawMessage) { m["result"] = json.RawMessage(`{}`) }))
	}),
	FaultResultIDTruncated: onResponse(func(o Outgoing, msg []byte) [][]byte {
		str, ok := o.Request.Str()
		if !ok || len(str) <= 16 || jsonrpc.Decode(msg).Shape != jsonrpc.KindResponse {
			return one(msg)
		}
		id, _ := jsonrpc.StringID(str[:16]).MarshalJSON()
		return one(setMember(msg, []string{"id"}, id))
	}),
	FaultResponseIDsWrong: onResponse(func(o Outgoing, msg []byte) [][]byte {
		id, _ := jsonrpc.StringID("wrong-" + o.Request.String()).MarshalJSON()
		return one(setMember(msg, []string{"id"}, id))
	}),
	FaultIDsThroughFloat: onResponse(func(o Outgoing, msg []byte) [][]byte {
		n, ok := o.Request.Int()
		if !ok || int64(float64(n)) == n {
			return one(msg)
		}
		return one(setMember(msg, []string{"id"}, []byte(strconv.FormatInt(int64(float64(n)), 10))))
	}),
	FaultParseErrorWrongCode: func(o Outgoing) [][]byte {
		if m := jsonrpc.Decode(o.Msg); m.Shape != jsonrpc.KindErrorResponse || m.Error == nil || m.Error.Code != jsonrpc.ParseError {
			return one(o.Msg)
		}
		return one(setMember(o.Msg, []string{"error"}, []byte(`{"code":-32600,"message":"Invalid Request"}`)))
	},
	FaultCancelClientRequest: func(o Outgoing) [][]byte {
		if !answersRequest(o) {
			return one(o.Msg)
		}
		n, err := jsonrpc.NewNotification(spec.MethodCancelled, map[string]any{"requestId": o.Request, "reason": "fault: cancelling the client's request"})
		if err != nil {
			return one(o.Msg)
		}
		return [][]byte{o.Msg, n}
	},
	FaultPingNonEmpty:      onResult(constant(`{"pong":true}`), spec.MethodPing),
	FaultLatin1Ping:        onResult(constant("{\"_meta\":{\"note\":\"caf\xe9\"}}"), spec.MethodPing),
	FaultPingMetaNotObject: onResult(constant(`{"_meta":"pong"}`), spec.MethodPing),

	// 2026-07-28 results and errors.
	FaultNoResultType: func(o Outgoing) [][]byte {
		if o.Method == methodTasksUpdate || o.Method == spec.MethodTasksCancel {
			return one(o.Msg) // the bare acknowledgements keep theirs
		}
		return inStateless(onResult(func(res []byte) []byte { return setMember(res, []string{"resultType"}, nil) }))(o)
	},
	FaultNoServerInfoMeta: func(o Outgoing) [][]byte {
		if o.Method == spec.MethodServerDiscover {
			return one(o.Msg) // server/discover names the server itself
		}
		return inStateless(onResult(func(res []byte) []byte { return removeMetaKey(res, mcp.MetaServerInfo) }))(o)
	},
	FaultUnknownResultType: inStateless(onResult(func(res []byte) []byte {
		return setMember(res, []string{"resultType"}, []byte(`"partial"`))
	}, spec.MethodToolsList)),
	FaultUnsupportedNoList: onError(func(o Outgoing, msg []byte) [][]byte {
		if m := jsonrpc.Decode(msg); m.Error == nil || m.Error.Code != jsonrpc.UnsupportedProtocolVersion {
			return one(msg)
		}
		return one(editMember(msg, []string{"error", "data", "supported"}, func(v []byte) []byte {
			if v == nil {
				return nil
			}
			return []byte("[]")
		}))
	}),
	FaultRetiredNotFoundCode: inStateless(onError(func(o Outgoing, msg []byte) [][]byte {
		if !isResourceNotFound(msg, jsonrpc.InvalidParams) {
			return one(msg)
		}
		return one(setMember(msg, []string{"error", "code"}, []byte(strconv.FormatInt(jsonrpc.ResourceNotFound, 10))))
	}, spec.MethodResourcesRead)),
	FaultNotFoundInvalidParams: inStateful(onError(func(o Outgoing, msg []byte) [][]byte {
		m := jsonrpc.Decode(msg)
		var data struct {
			URI *string `json:"uri"`
		}
		if !isResourceNotFound(msg, jsonrpc.ResourceNotFound) || json.Unmarshal(m.Error.Data, &data) != nil || data.URI == nil {
			return one(msg)
		}
		return one(errorMessage(m.ID, jsonrpc.InvalidParams, "Resource not found: "+*data.URI, nil))
	}, spec.MethodResourcesRead)),

	// Lifecycle and server/discover.
	FaultInitNoServerInfo: onResult(func(res []byte) []byte {
		return remarshal(res, func(m map[string]json.RawMessage) { delete(m, "serverInfo") })
	}, spec.MethodInitialize),
	FaultRequestBeforeInitialized: onResponse(func(_ Outgoing, msg []byte) [][]byte {
		if jsonrpc.Decode(msg).Shape != jsonrpc.KindResponse {
			return one(msg)
		}
		return [][]byte{msg, []byte(`{"jsonrpc":"2.0","id":"ref-early-roots","method":"roots/list"}`)}
	}, spec.MethodInitialize),
	FaultSecondInitUnanswered: onError(func(_ Outgoing, msg []byte) [][]byte {
		if m := jsonrpc.Decode(msg); m.Error != nil && m.Error.Code == jsonrpc.InvalidRequest {
			return nil // the answer to an initialize on an initialized session
		}
		return one(msg)
	}, spec.MethodInitialize),
	FaultPromptsUndeclared: onResult(func(res []byte) []byte {
		return setMember(res, []string{"capabilities", "prompts"}, nil)
	}, spec.MethodInitialize, spec.MethodServerDiscover),
	FaultTasksUndeclaredHonoured: onResult(func(res []byte) []byte {
		return setMember(res, []string{"capabilities", "tasks", "requests"}, nil)
	}, spec.MethodInitialize),
	FaultStatelessServerRequest: onResponse(func(_ Outgoing, msg []byte) [][]byte {
		if jsonrpc.Decode(msg).Shape != jsonrpc.KindResponse {
			return one(msg)
		}
		return [][]byte{[]byte(`{"jsonrpc":"2.0","id":"ref-stateless-ping","method":"ping"}`), msg}
	}, spec.MethodServerDiscover),
	FaultBadExtensionName: onResult(func(res []byte) []byte {
		return editMember(res, []string{"capabilities", "extensions"}, func(v []byte) []byte {
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) != nil || m == nil {
				return v
			}
			m["tasks"] = json.RawMessage(`{}`)
			out, err := json.Marshal(m)
			if err != nil {
				return v
			}
			return out
		})
	}, spec.MethodServerDiscover),

	// Notifications.
	FaultNoToolsListChanged:     dropNotification(spec.MethodToolsListChanged),
	FaultNoPromptsListChanged:   dropNotification(spec.MethodPromptsListChanged),
	FaultNoResourcesListChanged: dropNotification(spec.MethodResourcesListChanged),
	FaultNotificationWithID: func(o Outgoing) [][]byte {
		// Progress and log messages related to a request: not those of a
		// task (they carry its related-task _meta) nor those forwarded on a
		// subscriptions/listen stream.
		m := jsonrpc.Decode(o.Msg)
		if o.Request.IsZero() || o.Method == spec.MethodSubscriptionsListen || m.Shape != jsonrpc.KindNotification ||
			(m.Method != spec.MethodProgress && m.Method != spec.MethodLoggingMessage) || hasMetaKey(m.Params, mcp.MetaRelatedTask) {
			return one(o.Msg)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(o.Msg, &obj) != nil {
			return one(o.Msg)
		}
		obj["id"], _ = json.Marshal(o.Request)
		out, err := json.Marshal(obj)
		if err != nil {
			return one(o.Msg)
		}
		return one(out)
	},
	FaultListenNoSubscriptionID: func(o Outgoing) [][]byte {
		m := jsonrpc.Decode(o.Msg)
		if o.Method != spec.MethodSubscriptionsListen || m.Shape != jsonrpc.KindNotification || m.Method == spec.MethodSubscriptionsAcknowledge {
			return one(o.Msg)
		}
		return one(setMember(o.Msg, []string{"params", "_meta"}, nil))
	},
	FaultTaskStatusRelatedMeta: inStateful(func(o Outgoing) [][]byte {
		m := jsonrpc.Decode(o.Msg)
		var p struct {
			TaskID string `json:"taskId"`
		}
		if m.Shape != jsonrpc.KindNotification || m.Method != spec.MethodTasksStatus || json.Unmarshal(m.Params, &p) != nil {
			return one(o.Msg)
		}
		var meta mcp.Meta
		meta.SetRelatedTask(p.TaskID)
		b, _ := json.Marshal(meta)
		return one(editMember(o.Msg, []string{"params"}, func(params []byte) []byte {
			obj, ok := parseObject(params)
			if !ok || obj.has("_meta") {
				return params
			}
			return append(jsonObject{{Name: "_meta", Value: b}}, obj...).encode()
		}))
	}),

	// Requests to the client.
	FaultRequestProgressTokenFloat: func(o Outgoing) [][]byte {
		m := jsonrpc.Decode(o.Msg)
		if m.Shape != jsonrpc.KindRequest {
			return one(o.Msg)
		}
		b, _ := json.Marshal(json.RawMessage(m.Params)) // as the params were marshalled
		var p map[string]json.RawMessage
		if json.Unmarshal(b, &p) != nil || p == nil {
			p = map[string]json.RawMessage{}
		}
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(p["_meta"], &meta)
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta["progressToken"] = json.RawMessage(`1.5`)
		p["_meta"], _ = json.Marshal(meta)
		out, err := jsonrpc.NewRequest(m.ID, m.Method, p)
		if err != nil {
			return one(o.Msg)
		}
		return one(out)
	},
	FaultSamplingToolResultsMixed: onRequest(spec.MethodSamplingCreateMessage, func(msg []byte) []byte {
		return editMember(msg, []string{"params", "messages"}, eachElement(func(sm []byte) []byte {
			if role, _ := stringMember(sm, "role"); role != string(mcp.RoleUser) {
				return sm
			}
			return editMember(sm, []string{"content"}, func(c []byte) []byte {
				blocks, ok := parseArray(c)
				if !ok || !containsType(blocks, mcp.ContentToolResult) {
					return c
				}
				return encodeArray(append(blocks, mixedTextBlock))
			})
		}))
	}),
	FaultElicitURLInvalid: onRequest(spec.MethodElicitationCreate, func(msg []byte) []byte {
		return editMember(msg, []string{"params", "url"}, func(v []byte) []byte {
			var u string
			if json.Unmarshal(v, &u) != nil || !strings.HasPrefix(u, refElicitURL) {
				return v
			}
			return plainString("mcpcheck/confirm?e=" + strings.TrimPrefix(u, refElicitURL))
		})
	}),

	// Features.
	FaultOutputSchemaMismatch: onResult(func(res []byte) []byte {
		return editMember(res, []string{"structuredContent"}, func(v []byte) []byte {
			if v == nil {
				return nil
			}
			return []byte(`{"unexpected":"this does not match the outputSchema"}`)
		})
	}, spec.MethodToolsCall, spec.MethodTasksResult),
	FaultBlobNotBase64: onResult(func(res []byte) []byte {
		return editMember(res, []string{"contents"}, eachElement(func(c []byte) []byte {
			return editMember(c, []string{"blob"}, func(v []byte) []byte {
				if v == nil {
					return nil
				}
				return notBase64
			})
		}))
	}, spec.MethodResourcesRead),
	FaultPromptImageNotBase64: onResult(func(res []byte) []byte {
		return editMember(res, []string{"messages"}, eachElement(func(pm []byte) []byte {
			return editMember(pm, []string{"content"}, func(c []byte) []byte {
				if t, _ := stringMember(c, "type"); t != string(mcp.ContentImage) {
					return c
				}
				return setMember(c, []string{"data"}, notBase64)
			})
		}))
	}, spec.MethodPromptsGet),
	FaultResourceURINoScheme: onResult(func(res []byte) []byte {
		return editMember(res, []string{"resources"}, eachElement(func(r []byte) []byte {
			return editMember(r, []string{"uri"}, func(v []byte) []byte {
				var u string
				if json.Unmarshal(v, &u) != nil || !strings.HasPrefix(u, "test://") {
					return v
				}
				b, _ := json.Marshal(strings.TrimPrefix(u, "test://"))
				return b
			})
		}))
	}, spec.MethodResourcesList),
	FaultInputSchemaNull: listedTool("test_simple_text", func(t []byte) []byte {
		return setMember(t, []string{"inputSchema"}, []byte("null"))
	}),
	FaultToolNameWithSpace: listedTool("test_simple_text", func(t []byte) []byte {
		return setMember(t, []string{"name"}, []byte(`"test simple text"`))
	}),
	FaultOutputSchemaInvalid: listedTool("ref_structured", func(t []byte) []byte {
		return editMember(t, []string{"outputSchema"}, func(v []byte) []byte {
			if v == nil {
				return nil
			}
			return []byte(`{"type":"object","properties":{"sum":{"type":"numbr"}}}`)
		})
	}),
	FaultDuplicateXMCPHeader: listedTool("ref_header_params", func(t []byte) []byte {
		return setMember(t, []string{"inputSchema"}, []byte(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},"query":{"type":"string","x-mcp-header":"region"}}}`))
	}),
	FaultSamplingInputBadRole: onResult(func(res []byte) []byte {
		if rt, _ := stringMember(res, "resultType"); rt != string(mcp.ResultInputRequired) {
			return res
		}
		return editMember(res, []string{"inputRequests"}, eachMember(func(q []byte) []byte {
			if method, _ := stringMember(q, "method"); method != spec.MethodSamplingCreateMessage {
				return q
			}
			return editMember(q, []string{"params", "messages"}, eachElement(func(sm []byte) []byte {
				return setMember(sm, []string{"role"}, []byte(`"system"`))
			}))
		}))
	}),

	// Tasks (2025-11-25).
	FaultTaskCreatedAtNotRFC3339: inStateful(onResult(func(res []byte) []byte {
		return editMember(res, []string{"task", "createdAt"}, func(v []byte) []byte {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return v
			}
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return v
			}
			return plainString(strconv.FormatInt(t.Unix(), 10))
		})
	}, spec.MethodToolsCall)),
	FaultTaskCancelAnswersWorking: inStateful(onResult(func(res []byte) []byte {
		return editMember(res, []string{"status"}, func(v []byte) []byte {
			if v == nil {
				return nil
			}
			return []byte(`"` + mcp.TaskWorking + `"`)
		})
	}, spec.MethodTasksCancel)),
	FaultTaskResultNoRelatedMeta: onResult(func(res []byte) []byte {
		return removeMetaKey(res, mcp.MetaRelatedTask)
	}, spec.MethodTasksResult),
	FaultTaskResultDiffers: onResult(func(res []byte) []byte {
		var r struct {
			Meta mcp.Meta `json:"_meta"`
		}
		if json.Unmarshal(res, &r) != nil {
			return res
		}
		rt, ok, err := r.Meta.RelatedTask()
		if !ok || err != nil {
			return res
		}
		return withRelatedTask(textResult("task finished"), rt.TaskID)
	}, spec.MethodTasksResult),
}

// refElicitURL is where ref_elicit_url sends the user.
const refElicitURL = "https://example.com/mcpcheck/confirm?e="

// notBase64 is what the not-base64 faults send as base64 data.
var notBase64, _ = json.Marshal("\x89PNG raw bytes, not base64!")

// mixedTextBlock is the text block sampling-tool-results-mixed puts among
// the tool results.
var mixedTextBlock, _ = json.Marshal(mcp.Block(&mcp.TextContent{Text: "Here are the tool results."}))

// faultRewritersFor returns the rewriters of the switches that are on, in
// table order.
func faultRewritersFor(fs faultSet) []func(Outgoing) [][]byte {
	var out []func(Outgoing) [][]byte
	for _, f := range faultTable {
		if fs[f.Name] && f.Kind == Rewrite {
			out = append(out, faultRewriters[f.Name])
		}
	}
	return out
}

// rewriteAll passes msgs through each rewriter in turn.
func rewriteAll(rws []func(Outgoing) [][]byte, o Outgoing, msgs [][]byte) [][]byte {
	for _, rw := range rws {
		var next [][]byte
		for _, m := range msgs {
			o.Msg = m
			next = append(next, rw(o)...)
		}
		msgs = next
	}
	return msgs
}

// one is a rewriter's answer that writes msg alone.
func one(msg []byte) [][]byte { return [][]byte{msg} }

// answersRequest reports whether o is the response (a result or an error)
// to the client request it relates to.
func answersRequest(o Outgoing) bool {
	return !o.Request.IsZero() && jsonrpc.Decode(o.Msg).Shape.IsResponse()
}

// isMethod reports whether o relates to a request of one of methods (any
// request when none is named).
func isMethod(o Outgoing, methods []string) bool {
	if len(methods) == 0 {
		return true
	}
	for _, m := range methods {
		if o.Method == m {
			return true
		}
	}
	return false
}

// onResponse makes a rewriter of the responses (results and errors) to
// requests of methods (any request when none is named).
func onResponse(f func(o Outgoing, msg []byte) [][]byte, methods ...string) func(Outgoing) [][]byte {
	return func(o Outgoing) [][]byte {
		if !isMethod(o, methods) || !answersRequest(o) {
			return one(o.Msg)
		}
		return f(o, o.Msg)
	}
}

// onError makes a rewriter of the error responses to requests of methods
// (any request when none is named).
func onError(f func(o Outgoing, msg []byte) [][]byte, methods ...string) func(Outgoing) [][]byte {
	return onResponse(func(o Outgoing, msg []byte) [][]byte {
		if jsonrpc.Decode(msg).Shape != jsonrpc.KindErrorResponse {
			return one(msg)
		}
		return f(o, msg)
	}, methods...)
}

// onResult makes a rewriter of the results of the successful responses to
// requests of methods (any request when none is named).
func onResult(f func(res []byte) []byte, methods ...string) func(Outgoing) [][]byte {
	return onResponse(func(o Outgoing, msg []byte) [][]byte {
		if jsonrpc.Decode(msg).Shape != jsonrpc.KindResponse {
			return one(msg)
		}
		return one(editMember(msg, []string{"result"}, func(res []byte) []byte {
			if res == nil {
				return nil
			}
			return f(res)
		}))
	}, methods...)
}

// onRequest makes a rewriter of the server's requests of one method.
func onRequest(method string, f func(msg []byte) []byte) func(Outgoing) [][]byte {
	return func(o Outgoing) [][]byte {
		if m := jsonrpc.Decode(o.Msg); m.Shape != jsonrpc.KindRequest || m.Method != method {
			return one(o.Msg)
		}
		return one(f(o.Msg))
	}
}

// inStateless restricts a rewriter to the messages of 2026-07-28
// requests.
func inStateless(rw func(Outgoing) [][]byte) func(Outgoing) [][]byte {
	return func(o Outgoing) [][]byte {
		if o.Version.Era() != spec.Stateless {
			return one(o.Msg)
		}
		return rw(o)
	}
}

// inStateful restricts a rewriter to the messages of the
// initialize-based versions.
func inStateful(rw func(Outgoing) [][]byte) func(Outgoing) [][]byte {
	return func(o Outgoing) [][]byte {
		if o.Version.Era() == spec.Stateless {
			return one(o.Msg)
		}
		return rw(o)
	}
}

// constant is a result edit that answers res with one fixed result.
func constant(res string) func([]byte) []byte {
	return func([]byte) []byte { return []byte(res) }
}

// dropNotification makes a rewriter that leaves out every notification of
// method.
func dropNotification(method string) func(Outgoing) [][]byte {
	return func(o Outgoing) [][]byte {
		if m := jsonrpc.Decode(o.Msg); m.Shape == jsonrpc.KindNotification && m.Method == method {
			return nil
		}
		return one(o.Msg)
	}
}

// listedTool makes a rewriter of the entry of tool name in tools/list
// results.
func listedTool(name string, f func(tool []byte) []byte) func(Outgoing) [][]byte {
	return onResult(func(res []byte) []byte {
		return editMember(res, []string{"tools"}, eachElement(func(t []byte) []byte {
			if n, _ := stringMember(t, "name"); n != name {
				return t
			}
			return f(t)
		}))
	}, spec.MethodToolsList)
}

// remarshal decodes the object msg, lets f change its members and encodes
// it again with its members sorted, as these faults always have.
func remarshal(msg []byte, f func(m map[string]json.RawMessage)) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// isResourceNotFound reports whether msg is the error resources/read
// answers for a resource that does not exist (readResource), with code.
func isResourceNotFound(msg []byte, code int64) bool {
	m := jsonrpc.Decode(msg)
	return m.Error != nil && m.Error.Code == code && strings.HasPrefix(m.Error.Message, "Resource not found: ")
}

// hasMetaKey reports whether params hold _meta[key].
func hasMetaKey(params []byte, key string) bool {
	if !mayHoldMeta(params) {
		return false
	}
	var p struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[key]
	return ok
}

// removeMetaKey removes _meta[key] from the object obj, and _meta itself
// when nothing else is left in it.
func removeMetaKey(obj []byte, key string) []byte {
	return editMember(obj, []string{"_meta"}, func(v []byte) []byte {
		meta, ok := parseObject(v)
		if !ok || !meta.has(key) {
			return v
		}
		meta = meta.remove(key)
		if len(meta) == 0 {
			return nil
		}
		return meta.encode()
	})
}

// containsType reports whether one of the content blocks is of type t.
func containsType(blocks []json.RawMessage, t mcp.ContentType) bool {
	for _, b := range blocks {
		if s, _ := stringMember(b, "type"); s == string(t) {
			return true
		}
	}
	return false
}

// plainString encodes s as a JSON string the way jsonrpc encodes message
// members (without HTML escaping).
func plainString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsonObject is a JSON object's members in order. The rewriters decode
// only the objects on the way to the member they change and encode them
// back member by member, so that every other byte stays as the server
// wrote it.
type jsonObject []jsonrpc.RawMember

// parseObject splits the JSON object b into its members.
func parseObject(b []byte) (jsonObject, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	o := jsonObject{}
	for dec.More() {
		t, err := dec.Token()
		name, ok := t.(string)
		if err != nil || !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		o = append(o, jsonrpc.RawMember{Name: name, Value: v})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	return o, true
}

func (o jsonObject) index(name string) int {
	for i, m := range o {
		if m.Name == name {
			return i
		}
	}
	return -1
}

func (o jsonObject) has(name string) bool { return o.index(name) >= 0 }

// remove returns o without the member name.
func (o jsonObject) remove(name string) jsonObject {
	i := o.index(name)
	if i < 0 {
		return o
	}
	return append(o[:i:i], o[i+1:]...)
}

// encode writes the object back.
func (o jsonObject) encode() []byte { return jsonrpc.RawObject(o...) }

// editMember returns the JSON object b with the member at path (a member
// name per level of nested objects) replaced by what f returns for its
// value: f gets nil when the member is absent and returns nil to leave it
// out. b is returned as it is when an object on the path is missing.
func editMember(b []byte, path []string, f func(v []byte) []byte) []byte {
	o, ok := parseObject(b)
	if !ok {
		return b
	}
	i := o.index(path[0])
	var v []byte
	if i >= 0 {
		v = o[i].Value
	}
	var nv []byte
	if len(path) > 1 {
		if i < 0 {
			return b
		}
		nv = editMember(v, path[1:], f)
	} else {
		nv = f(v)
	}
	switch {
	case nv == nil && i < 0:
		return b
	case nv == nil:
		return o.remove(path[0]).encode()
	case i < 0:
		return append(o, jsonrpc.RawMember{Name: path[0], Value: nv}).encode()
	}
	o[i].Value = nv
	return o.encode()
}

// setMember returns b with the member at path set to v (nil: left out).
func setMember(b []byte, path []string, v []byte) []byte {
	return editMember(b, path, func([]byte) []byte { return v })
}

// stringMember returns the string member name of the object b.
func stringMember(b []byte, name string) (string, bool) {
	o, ok := parseObject(b)
	if !ok {
		return "", false
	}
	i := o.index(name)
	if i < 0 {
		return "", false
	}
	var s string
	return s, json.Unmarshal(o[i].Value, &s) == nil
}

// parseArray splits the JSON array b into its elements.
func parseArray(b []byte) ([]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, false
	}
	out := []json.RawMessage{}
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim(']') {
		return nil, false
	}
	return out, true
}

// encodeArray writes elements as a JSON array.
func encodeArray(elems []json.RawMessage) []byte {
	b := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, ']')
}

// eachElement is a member edit that applies f to every element of an
// array.
func eachElement(f func(elem []byte) []byte) func(v []byte) []byte {
	return func(v []byte) []byte {
		elems, ok := parseArray(v)
		if !ok {
			return v
		}
		for i, e := range elems {
			elems[i] = f(e)
		}
		return encodeArray(elems)
	}
}

// eachMember is a member edit that applies f to the value of every member
// of an object.
func eachMember(f func(v []byte) []byte) func(v []byte) []byte {
	return func(v []byte) []byte {
		o, ok := parseObject(v)
		if !ok {
			return v
		}
		for i := range o {
			o[i].Value = f(o[i].Value)
		}
		return o.encode()
	}
}
