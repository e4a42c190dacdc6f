// Command fragileclient is a planted, deliberately fragile MCP client over
// stdio for the client campaign tests: it starts the server command line
// it is given, initializes, lists the tools and calls add_numbers, and
// exits. It has two bugs the fuzzer must find:
//
//   - it panics on an answer whose result is nested more than 64 deep;
//   - it stops reading for good (a hang: pings go unanswered) on a
//     notifications/message from the server.
//
// It answers ping, and refuses every other server request.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fragileclient SERVER-COMMAND [ARGS]")
		os.Exit(2)
	}
	version := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
	if version == "" {
		version = "2025-11-25"
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	lines := bufio.NewReaderSize(out, 1<<16)
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := in.Write(append(b, '\n')); err != nil {
			fail(err)
		}
	}
	// await reads until the answer to id, serving the server on the way.
	await := func(id int) json.RawMessage {
		for {
			l, err := lines.ReadBytes('\n')
			if err != nil {
				fail(fmt.Errorf("the server went away: %v", err))
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(l, &m) != nil {
				continue // not JSON: ignored
			}
			if depth(m.Result) > 64 {
				panic("fragileclient: result nested too deeply")
			}
			switch {
			case m.Method == "notifications/message":
				for {
					time.Sleep(time.Hour) // the planted hang
				}
			case m.Method == "ping" && m.ID != nil:
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
			case m.Method != "" && m.ID != nil:
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not supported"}})
			case m.Method == "" && string(m.ID) == fmt.Sprint(id):
				if m.Error != nil {
					fail(fmt.Errorf("request %d failed: %s", id, m.Error))
				}
				return m.Result
			}
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "fragileclient", "version": "0"}}})
	await(1)
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	await(2)
	send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "add_numbers", "arguments": map[string]any{"a": 2, "b": 3}}})
	await(3)
	in.Close()
	_ = cmd.Wait()
}

// depth is the deepest nesting of arrays and objects in raw JSON.
func depth(raw []byte) int {
	d, deepest, inStr, esc := 0, 0, false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fragileclient:", err)
	os.Exit(1)
}
