package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The probes of the switches of faults_transport.go. Several defects make
// messages that are not schema-valid, so these probes read the server's
// messages without validating them.

// tpResponse reads messages until the response to id, unvalidated.
func tpResponse(c *stdioClient, id jsonrpc.ID) (wireMsg, []wireMsg) {
	c.t.Helper()
	var before []wireMsg
	for {
		m := decodeWire(c.t, c.nextRaw())
		if m.Method == "" && string(m.ID) == id.String() {
			return m, before
		}
		before = append(before, m)
	}
}

// tpLoop answers the server's requests with answer until the response to
// id, unvalidated; seen holds everything that came before it.
func tpLoop(c *stdioClient, id jsonrpc.ID, answer func(m wireMsg) any) (wireMsg, []wireMsg) {
	c.t.Helper()
	var seen []wireMsg
	for {
		m := decodeWire(c.t, c.nextRaw())
		if m.Method != "" && len(m.ID) > 0 {
			seen = append(seen, m)
			var rid jsonrpc.ID
			_ = json.Unmarshal(m.ID, &rid)
			b, err := jsonrpc.NewResponse(rid, answer(m))
			if err != nil {
				c.t.Fatal(err)
			}
			c.sendRaw(b)
			continue
		}
		if m.Method == "" && string(m.ID) == id.String() {
			return m, seen
		}
		seen = append(seen, m)
	}
}

// tpTask starts ref_slow (ms milliseconds) as a task on a 2025-11-25
// session and returns the CreateTaskResult.
func tpTask(c *stdioClient, ms int, task map[string]any) json.RawMessage {
	c.t.Helper()
	if task == nil {
		task = map[string]any{"ttl": 60000}
	}
	m, _ := tpResponse(c, c.request("tools/call", map[string]any{"name": "ref_slow", "arguments": map[string]any{"ms": ms}, "task": task}))
	if m.Error != nil {
		c.t.Fatalf("task-augmented tools/call: %s", m.raw)
	}
	return m.Result
}

func tpTaskID(t *testing.T, res json.RawMessage) string {
	var r struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	mustJSON(t, res, &r)
	return r.Task.TaskID
}

// tpStateless2026 starts a stdio client that speaks 2026-07-28.
func tpStateless2026(t *testing.T, s *Server) *stdioClient {
	c := startStdio(t, s)
	c.version = spec.V20260728
	return c
}

// tpGet opens a GET SSE stream on path with the given headers; it ends
// with the test.
func tpGet(t *testing.T, c *httpClient, path string, hdr map[string]string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", c.srv.URL+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func init() {
	faultProbes[FaultResponseOnGetStream] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		c.initialize(spec.V20251125)
		get := tpGet(t, c, "/mcp", map[string]string{"Mcp-Session-Id": c.session})
		c.do("POST", rpc(2, "ping", nil), nil)
		// A list change is the GET stream's fence: it comes first unless
		// the ping response was sent there too.
		c.do("POST", rpc(3, "tools/call", map[string]any{"name": "ref_change_lists", "arguments": map[string]any{"kind": "prompts"}}), nil)
		evs := readSSE(t, get.Body, 1)
		return len(evs) == 1 && !strings.Contains(string(evs[0].data), "notifications/prompts/list_changed")
	}
	faultProbes[FaultStatelessStreamRequest] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		rep := c.statelessPost(1, "server/discover", withMeta(nil, nil), nil)
		return len(rep.msgs) > 0 && rep.msgs[0].Method == "ping"
	}
	faultProbes[FaultStateBoundToConnection] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		const name = "test_input_required_result_request_state"
		rep := c.statelessPost(1, "tools/call", withMeta(map[string]any{"name": name}, nil), nil)
		var r struct{ RequestState string }
		mustJSON(t, rep.msgs[0].Result, &r)
		// Round 2 on another TCP connection: a client of its own.
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		body := rpc(2, "tools/call", withMeta(map[string]any{"name": name, "requestState": r.RequestState,
			"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}, nil))
		req, _ := http.NewRequestWithContext(ctx, "POST", c.srv.URL+"/mcp", strings.NewReader(string(body)))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name} {
			req.Header.Set(k, v)
		}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		rep = c.readReply(resp, -1)
		return len(rep.msgs) == 0 || rep.msgs[0].Error != nil
	}
	faultProbes[FaultEndpointNotFirst] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{LegacySSE: true})
		evs := readSSE(t, tpGet(t, c, "/sse", nil).Body, 1)
		return len(evs) == 1 && evs[0].event != "endpoint"
	}
	faultProbes[FaultLegacyResponseInPost] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{LegacySSE: true})
		evs := readSSE(t, tpGet(t, c, "/sse", nil).Body, 1)
		if len(evs) != 1 || evs[0].event != "endpoint" {
			t.Fatalf("no endpoint event: %v", evs)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		body := rpc(1, "initialize", map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
		req, _ := http.NewRequestWithContext(ctx, "POST", c.srv.URL+string(evs[0].data), strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && strings.Contains(string(b), `"result"`)
	}
	faultProbes[FaultStdioServerRequest] = func(t *testing.T, s *Server) bool {
		c := tpStateless2026(t, s)
		c.request("server/discover", withMeta(nil, nil))
		return decodeWire(t, c.nextRaw()).Method == "ping"
	}
	faultProbes[FaultStdinEOFIgnored] = func(t *testing.T, s *Server) bool {
		// A bound, not a synchronisation: without the defect ServeStdio
		// returns at once on the empty input.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return s.ServeStdio(ctx, strings.NewReader(""), io.Discard, io.Discard) != nil
	}
	faultProbes[FaultNoServerDiscover] = func(t *testing.T, s *Server) bool {
		c := tpStateless2026(t, s)
		m, _ := tpResponse(c, c.request("server/discover", withMeta(nil, nil)))
		return m.Error != nil
	}
	faultProbes[FaultInputViaRequest] = func(t *testing.T, s *Server) bool {
		c := tpStateless2026(t, s)
		const name = "test_input_required_result_elicitation"
		tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": name}, nil)))
		_, before := tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": name,
			"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}}, nil)))
		return len(before) > 0 && before[0].Method == "elicitation/create" && len(before[0].ID) > 0
	}
	faultProbes[FaultInputRequiredOnComplete] = func(t *testing.T, s *Server) bool {
		c := tpStateless2026(t, s)
		m, _ := tpResponse(c, c.request("completion/complete", withMeta(map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_simple_prompt"},
			"argument": map[string]any{"name": "arg", "value": "t"}}, nil)))
		return strings.Contains(string(m.Result), `"resultType":"input_required"`)
	}
	faultProbes[FaultSamplingInputBadRole] = func(t *testing.T, s *Server) bool {
		c := tpStateless2026(t, s)
		m, _ := tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": "test_input_required_result_sampling"}, nil)))
		return strings.Contains(string(m.Result), `"role":"system"`)
	}
	faultProbes[FaultOneConversation] = func(t *testing.T, s *Server) bool {
		c := tpStateless2026(t, s)
		const a, b = "test_input_required_result_request_state", "test_input_required_result_elicitation"
		ra, _ := tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": a}, nil)))
		var st struct{ RequestState string }
		mustJSON(t, ra.Result, &st)
		tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": b}, nil)))
		m, _ := tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": a, "requestState": st.RequestState,
			"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}}, nil)))
		return strings.Contains(string(m.Result), `"resultType":"input_required"`)
	}
	faultProbes[FaultMissingCapabilityCode] = func(t *testing.T, s *Server) bool {
		c := tpStateless2026(t, s)
		m, _ := tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": "test_missing_capability"}, map[string]any{})))
		return m.Error != nil && m.Error.Code == jsonrpc.InvalidParams
	}
	faultProbes[FaultCapsFromConnection] = func(t *testing.T, s *Server) bool {
		c := tpStateless2026(t, s)
		tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": "test_missing_capability"}, nil)))
		m, _ := tpResponse(c, c.request("tools/call", withMeta(map[string]any{"name": "test_missing_capability"}, map[string]any{})))
		return m.Error == nil
	}
	faultProbes[FaultListenNoSubscriptionID] = func(t *testing.T, s *Server) bool {
		c := startHTTP(t, s, HTTPOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		body := rpc(100, "subscriptions/listen", withMeta(map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil))
		req, _ := http.NewRequestWithContext(ctx, "POST", c.srv.URL+"/mcp", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		readSSE(t, resp.Body, 1) // the acknowledgement
		c.statelessPost(1, "tools/call", withMeta(map[string]any{"name": "test_trigger_tool_change"}, nil), nil)
		ev := readSSE(t, resp.Body, 1)
		return len(ev) == 1 && strings.Contains(string(ev[0].data), "notifications/tools/list_changed") && !strings.Contains(string(ev[0].data), "subscriptionId")
	}
	faultProbes[FaultSamplingToolsUndeclared] = func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, map[string]any{"sampling": map[string]any{}})
		_, seen := tpLoop(c, c.request("tools/call", map[string]any{"name": "ref_sampling_tools"}), func(wireMsg) any {
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "sunny"}, "model": "m", "stopReason": "endTurn"}
		})
		return len(seen) > 0 && seen[0].Method == "sampling/createMessage" && strings.Contains(string(seen[0].Params), `"tools"`)
	}
	faultProbes[FaultSamplingToolResultsMixed] = func(t *testing.T, s *Server) bool {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, map[string]any{"sampling": map[string]any{"tools": map[string]any{}}})
		mixed := false
		round := 0
		tpLoop(c, c.request("tools/call", map[string]any{"name": "ref_sampling_tools"}), func(m wireMsg) any {
			round++
			if round == 1 {
				return map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "u1", "name": "get_weather", "input": map[string]any{"city": "Paris"}}}, "model": "m", "stopReason": "toolUse"}
			}
			var p struct {
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			mustJSON(t, m.Params, &p)
			var blocks []struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(p.Messages[len(p.Messages)-1].Content, &blocks)
			kinds := map[string]bool{}
			for _, bl := range blocks {
				kinds[bl.Type] = true
			}
			mixed = kinds["tool_result"] && len(kinds) > 1
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "sunny"}, "model": "m", "stopReason": "endTurn"}
		})
		return mixed
	}
	elicitURL := func(t *testing.T, s *Server, caps map[string]any, action string) []wireMsg {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, map[string]any{"elicitation": caps})
		_, seen := tpLoop(c, c.request("tools/call", map[string]any{"name": "ref_elicit_url"}), func(wireMsg) any {
			return map[string]any{"action": action}
		})
		return seen
	}
	faultProbes[FaultElicitURLUndeclared] = func(t *testing.T, s *Server) bool {
		seen := elicitURL(t, s, map[string]any{"form": map[string]any{}}, "decline")
		return len(seen) > 0 && seen[0].Method == "elicitation/create"
	}
	faultProbes[FaultElicitURLInvalid] = func(t *testing.T, s *Server) bool {
		seen := elicitURL(t, s, map[string]any{"url": map[string]any{}}, "decline")
		if len(seen) == 0 {
			t.Fatal("ref_elicit_url sent no elicitation")
		}
		return !strings.Contains(string(seen[0].Params), `"url":"https://`)
	}
	faultProbes[FaultElicitCompleteWrongID] = func(t *testing.T, s *Server) bool {
		seen := elicitURL(t, s, map[string]any{"url": map[string]any{}}, "accept")
		var sent, done string
		for _, m := range seen {
			var p struct {
				ElicitationID string `json:"elicitationId"`
			}
			_ = json.Unmarshal(m.Params, &p)
			switch m.Method {
			case "elicitation/create":
				sent = p.ElicitationID
			case "notifications/elicitation/complete":
				done = p.ElicitationID
			}
		}
		if sent == "" || done == "" {
			t.Fatalf("no URL elicitation and completion: %v", seen)
		}
		return sent != done
	}
	tasks := func(t *testing.T, s *Server) *stdioClient {
		c := startStdio(t, s)
		c.initialize(spec.V20251125, nil)
		return c
	}
	faultProbes[FaultTaskCancelTerminalAccepted] = func(t *testing.T, s *Server) bool {
		c := tasks(t, s)
		id := tpTaskID(t, tpTask(c, 0, nil))
		tpResponse(c, c.request("tasks/result", map[string]any{"taskId": id}))
		m, _ := tpResponse(c, c.request("tasks/cancel", map[string]any{"taskId": id}))
		return m.Error == nil
	}
	faultProbes[FaultTaskCancelAnswersWorking] = func(t *testing.T, s *Server) bool {
		c := tasks(t, s)
		id := tpTaskID(t, tpTask(c, 600000, nil))
		m, _ := tpResponse(c, c.request("tasks/cancel", map[string]any{"taskId": id}))
		return strings.Contains(string(m.Result), `"status":"working"`)
	}
	faultProbes[FaultTaskCreatedAtNotRFC3339] = func(t *testing.T, s *Server) bool {
		var r struct {
			Task struct {
				CreatedAt string `json:"createdAt"`
			} `json:"task"`
		}
		mustJSON(t, tpTask(tasks(t, s), 0, nil), &r)
		_, err := time.Parse(time.RFC3339Nano, r.Task.CreatedAt)
		return err != nil
	}
	faultProbes[FaultTaskIDFromRequestor] = func(t *testing.T, s *Server) bool {
		return tpTaskID(t, tpTask(tasks(t, s), 0, map[string]any{"ttl": 60000, "taskId": "chosen-by-the-client"})) == "chosen-by-the-client"
	}
	faultProbes[FaultTaskIDCounter] = func(t *testing.T, s *Server) bool {
		return strings.HasPrefix(tpTaskID(t, tpTask(tasks(t, s), 0, nil)), "task-")
	}
	faultProbes[FaultTaskResultNoRelatedMeta] = func(t *testing.T, s *Server) bool {
		c := tasks(t, s)
		m, _ := tpResponse(c, c.request("tasks/result", map[string]any{"taskId": tpTaskID(t, tpTask(c, 0, nil))}))
		return !strings.Contains(string(m.Result), "io.modelcontextprotocol/related-task")
	}
	faultProbes[FaultTaskResultDiffers] = func(t *testing.T, s *Server) bool {
		c := tasks(t, s)
		m, _ := tpResponse(c, c.request("tasks/result", map[string]any{"taskId": tpTaskID(t, tpTask(c, 0, nil))}))
		return !strings.Contains(string(m.Result), "waited 0 ms")
	}
	faultProbes[FaultTaskStatusRelatedMeta] = func(t *testing.T, s *Server) bool {
		// tasks/cancel announces the new status before it answers.
		c := tasks(t, s)
		_, before := tpResponse(c, c.request("tasks/cancel", map[string]any{"taskId": tpTaskID(t, tpTask(c, 600000, nil))}))
		for _, m := range before {
			if m.Method == "notifications/tasks/status" {
				return strings.Contains(string(m.Params), "io.modelcontextprotocol/related-task")
			}
		}
		t.Fatalf("no status notification before the tasks/cancel response: %v", before)
		return false
	}
	faultProbes[FaultTasksUndeclaredHonoured] = func(t *testing.T, s *Server) bool {
		res := startStdio(t, s).initialize(spec.V20251125, nil)
		return !strings.Contains(string(res), `"requests"`)
	}
	faultProbes[FaultUnknownTaskInternalError] = func(t *testing.T, s *Server) bool {
		c := tasks(t, s)
		m, _ := tpResponse(c, c.request("tasks/get", map[string]any{"taskId": "no-such-task"}))
		return m.Error != nil && m.Error.Code == jsonrpc.InternalError
	}
}
