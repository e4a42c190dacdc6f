package session

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// fakeStdio is an in-process stateful MCP server over a pipe that
// misbehaves on request (mode).
type fakeStdio struct {
	mode    string
	answers chan map[string]json.RawMessage // answers to the server's requests
}

type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func startFakeB(b *testing.B) (*wire.Stdio, *fakeStdio) { return startFake(b, "") }

func startFake(t testing.TB, mode string) (*wire.Stdio, *fakeStdio) {
	t.Helper()
	c, peer := wire.Pipe(wire.Limits{})
	f := &fakeStdio{mode: mode, answers: make(chan map[string]json.RawMessage, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.serve(peer)
	}()
	t.Cleanup(func() {
		c.Close()
		peer.Close()
		<-done
	})
	return c, f
}

func (f *fakeStdio) serve(peer net.Conn) {
	sc := bufio.NewScanner(peer)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(peer)
	send := func(s string) {
		if f.mode == "garbage" {
			io.WriteString(w, "debug: about to answer\n")
		}
		io.WriteString(w, s+"\n")
		w.Flush()
	}
	next := func() (rpc, bool) {
		if !sc.Scan() {
			return rpc{}, false
		}
		var m rpc
		json.Unmarshal(sc.Bytes(), &m)
		return m, true
	}
	for {
		m, ok := next()
		if !ok {
			return
		}
		switch m.Method {
		case "initialize":
			var p struct{ ProtocolVersion string }
			json.Unmarshal(m.Params, &p)
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, m.ID, p.ProtocolVersion))
		case "ping":
			if f.mode == "wrong-id" {
				send(`{"jsonrpc":"2.0","id":999,"result":{}}`)
				continue
			}
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID))
		case "tools/list":
			if f.mode == "bad-schema" {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":"nope"}}`, m.ID))
				continue
			}
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"ask","inputSchema":{"type":"object"}}]}}`, m.ID))
		case "tools/call":
			var reqs []string
			switch f.mode {
			case "sampling-tools":
				reqs = []string{`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10,"tools":[{"name":"t","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"required"}}}`}
			case "unbalanced":
				reqs = []string{`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"t","input":{}}]},{"role":"user","content":[{"type":"text","text":"where is my result"}]}],"maxTokens":10}}`}
			default:
				reqs = []string{
					`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}`,
					`{"jsonrpc":"2.0","id":"s2","method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":10},"n":{"type":"integer","minimum":3},"c":{"type":"string","enum":["red","blue"]}},"required":["name"]}}}`,
					`{"jsonrpc":"2.0","id":"s3","method":"roots/list"}`,
					`{"jsonrpc":"2.0","id":"s4","method":"ping"}`,
				}
			}
			answers := map[string]json.RawMessage{}
			for _, r := range reqs {
				send(r)
				a, ok := next()
				if !ok {
					return
				}
				if a.Result != nil {
					answers[string(a.ID)] = a.Result
				} else {
					answers[string(a.ID)] = a.Error
				}
			}
			f.answers <- answers
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`, m.ID))
		default:
			if m.ID != nil {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID))
			}
		}
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
