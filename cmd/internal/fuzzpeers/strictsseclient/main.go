// Command strictsseclient is a planted MCP client over streamable HTTP for
// the client campaign tests: it initializes, lists the tools and calls
// add_numbers at the URL it is given, and exits 0. Its bug: it reads SSE
// answers with a parser that knows only the plainest framing ("event:",
// "id:", a retry of a few digits and one "data: " line per event, LF line
// ends) and gives up, exit 1, on anything else the SSE format allows:
// comments, other retry values, several data lines, a data field without
// the space, CR line ends, a BOM. The
// fuzzer's valid-stream oracle must find it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: strictsseclient URL")
		os.Exit(2)
	}
	url := os.Args[1]
	version := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
	if version == "" {
		version = "2025-11-25"
	}
	hc := &http.Client{Timeout: 20 * time.Second}
	session := ""
	post := func(msg map[string]any) json.RawMessage {
		body, _ := json.Marshal(msg)
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			fail(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		if msg["method"] != "initialize" {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		resp, err := hc.Do(req)
		if err != nil {
			fail(err)
		}
		defer resp.Body.Close()
		if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
			session = s
		}
		if msg["id"] == nil {
			return nil // a notification: 202, no body
		}
		if resp.StatusCode != http.StatusOK {
			fail(fmt.Errorf("%s: HTTP %d", msg["method"], resp.StatusCode))
		}
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			return answerFromSSE(resp.Body, fmt.Sprint(msg["id"]))
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			fail(err)
		}
		return result(raw, fmt.Sprint(msg["id"]))
	}
	post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "strictsseclient", "version": "0"}}})
	post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	post(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	post(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "add_numbers", "arguments": map[string]any{"a": 2, "b": 3}}})
}

// answerFromSSE reads events until the response to id; the planted bug is
// that it refuses every line it does not expect.
func answerFromSSE(r io.Reader, id string) json.RawMessage {
	br := bufio.NewReader(io.LimitReader(r, 1<<20))
	var data []byte
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			fail(fmt.Errorf("the stream ended before the answer to %s: %v", id, err))
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.Contains(line, "\r"):
			fail(fmt.Errorf("refusing an SSE line with a CR: %q", line))
		case line == "":
			if data != nil {
				if res := result(data, id); res != nil {
					return res
				}
			}
			data = nil
		case strings.HasPrefix(line, "event: "), strings.HasPrefix(line, "id: "), plainRetry(line):
		case strings.HasPrefix(line, "data: ") && data == nil:
			data = []byte(strings.TrimPrefix(line, "data: "))
		default:
			fail(fmt.Errorf("refusing an SSE line this client does not know: %q", line))
		}
	}
}

// plainRetry reports a retry field of a plain number of milliseconds, the
// only retry this client knows (the SSE format ignores other values).
func plainRetry(line string) bool {
	v, ok := strings.CutPrefix(line, "retry: ")
	if !ok || v == "" || len(v) > 6 {
		return false
	}
	return strings.Trim(v, "0123456789") == ""
}

// result is the result of the response to id in raw, nil for any other
// message; an error response ends the client.
func result(raw []byte, id string) json.RawMessage {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &m) != nil || string(m.ID) != id {
		return nil
	}
	if m.Error != nil {
		fail(fmt.Errorf("request %s failed: %s", id, m.Error))
	}
	return m.Result
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "strictsseclient:", err)
	os.Exit(1)
}
