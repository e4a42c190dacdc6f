package fuzz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/spec"
)

// FuzzClientStage keeps the harness side of client campaigns honest: any
// bytes, played by the stage as a client campaign's input with the answer
// to one of the client's requests, must neither break the stage (a panic,
// a deadlock, an answer lost) nor make the client oracles judge a correct
// client. The client is in-process: a careful stdio client behind the
// stage's relay (stage.RunRelay on pipes) that initializes, lists the
// tools and calls one, answers ping, refuses other requests with their id
// echoed exactly as written, answers a request whose id is not a string or
// an integer with an error whose id is null, and ignores everything else.
// This file compiles on its own with the package's production files (see
// .clusterfuzzlite/build.sh).
func FuzzClientStage(f *testing.F) {
	requests := []string{spec.MethodInitialize, spec.MethodToolsList, spec.MethodToolsCall}
	for seed := uint64(1); seed <= 8; seed++ {
		for _, m := range []string{"bytes/truncate", "json/exotic-id", "json/duplicate-key", "protocol/duplicate-id", "framing/two-per-line", "json/deep-nesting"} {
			if in, err := mutate.MakeClientInput(spec.V20251125, m, seed, requests); err == nil {
				f.Add(in.Bytes(), uint8(seed))
			}
		}
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":"mcpcheck:trigger-id","result":{}}`+"\n"), uint8(1))
	f.Add([]byte(`{"jsonrpc":"2.0","id":{},"method":"ping"}`), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, at uint8) {
		if len(data) > 1<<16 {
			return
		}
		st, err := stage.New()
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		in := mutate.Input{Mutator: "fuzz", Chunks: [][]byte{data}, Client: &mutate.ClientPlan{Trigger: requests[int(at)%len(requests)], Nth: 1}}
		pl := newPlayer(spec.V20251125, in, "fuzz")
		sc, err := pl.open(st, true)
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		defer close(pl.done)

		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		args := sc.RelayArgs()
		relayDone := make(chan int, 1)
		go func() {
			relayDone <- stage.RunRelay(context.Background(), stage.RelayOptions{Stage: args[2], Case: args[4], Stdin: inR, Stdout: outW, Stderr: io.Discard})
		}()
		lines := make(chan []byte, 64)
		go func() {
			defer close(lines)
			br := bufio.NewReaderSize(outR, 1<<16)
			for {
				l, err := br.ReadBytes('\n')
				if len(l) > 0 {
					lines <- l
				}
				if err != nil {
					return
				}
			}
		}()
		c := &carefulClient{w: inW, lines: lines, deadline: time.Now().Add(5 * time.Second)}
		done := c.run()
		inW.Close()
		// The relay's stdout ends when the stage tells it to exit.
		go func() {
			for range lines {
			}
		}()
		select {
		case <-relayDone:
		case <-time.After(5 * time.Second):
			t.Fatal("the relay did not end after the client closed its stdin")
		}
		outW.Close()
		if !done {
			t.Fatalf("the careful client could not finish its task: %s", c.stuck)
		}
		if played, _ := pl.state(); !played {
			t.Fatalf("the stage did not play the input with the answer to %s", in.Client.Trigger)
		}
		if obs, _, _ := oracle.JudgeClient(spec.V20251125, false, sc.Recording().Events()); len(obs) > 0 {
			t.Fatalf("a correct client was judged: %+v", obs)
		}
	})
}

// carefulClient is a small, correct stdio MCP client for FuzzClientStage.
type carefulClient struct {
	w        io.Writer
	lines    <-chan []byte
	deadline time.Time
	stuck    string
}

// run performs the task; false means it could not (stuck says why).
func (c *carefulClient) run() bool {
	steps := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"careful","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_numbers","arguments":{"a":2,"b":3}}}`,
	}
	for _, s := range steps {
		if _, err := io.WriteString(c.w, s+"\n"); err != nil {
			c.stuck = "the relay stopped reading: " + err.Error()
			return false
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(s), &m)
		if m.ID != nil && !c.await(string(m.ID)) {
			return false
		}
	}
	return true
}

// await serves the server until the answer to id arrives.
func (c *carefulClient) await(id string) bool {
	timer := time.NewTimer(time.Until(c.deadline))
	defer timer.Stop()
	for {
		var l []byte
		select {
		case l = <-c.lines:
		case <-timer.C:
			c.stuck = "no answer to request " + id
			return false
		}
		if l == nil {
			c.stuck = "the server's stdout ended before the answer to request " + id
			return false
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(l, &m) != nil {
			continue
		}
		var method string
		methodRaw, hasMethod := m["method"]
		if hasMethod && json.Unmarshal(methodRaw, &method) != nil {
			continue
		}
		idTok, hasID := m["id"]
		switch {
		case hasMethod && hasID:
			var reply string
			switch {
			case !plainID(idTok):
				reply = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request id"}}`
			case method == "ping":
				reply = `{"jsonrpc":"2.0","id":` + string(idTok) + `,"result":{}}`
			default:
				reply = `{"jsonrpc":"2.0","id":` + string(idTok) + `,"error":{"code":-32601,"message":"not supported"}}`
			}
			if _, err := io.WriteString(c.w, reply+"\n"); err != nil {
				c.stuck = "the relay stopped reading"
				return false
			}
		case !hasMethod && hasID && string(idTok) == id:
			return true // the answer (or a hostile message with its id)
		}
	}
}

// plainID reports whether an id token is a string or an integer written
// with digits only.
func plainID(tok json.RawMessage) bool {
	var s string
	if json.Unmarshal(tok, &s) == nil {
		return true
	}
	_, err := strconv.ParseInt(string(tok), 10, 64)
	return err == nil
}
