package oracle

import (
	"bytes"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// JudgeClient holds everything the client wrote to the oracles of the
// client side (the judge, with the client-to-server schema): JSON-RPC,
// schema, answers to requests the stage never sent, stdin framing. It
// returns the methods of the client's requests and of the stage's requests
// it answered, in order.
func JudgeClient(v spec.Version, http bool, evs []stage.Event) (obs []Observation, requests, answered []string) {
	judges := map[int]*Judge{} // one per stdio connection (a session each); HTTP is connection 0
	get := func(conn int) *Judge {
		j := judges[conn]
		if j == nil {
			j = NewJudge(v)
			j.Client, j.HTTP = true, http
			judges[conn] = j
		}
		return j
	}
	for _, e := range evs {
		switch {
		case e.From == stage.FromStage && (e.Kind == wire.KindMessage || e.Kind == wire.KindGarbage):
			get(e.Conn).Sent(e.Raw)
		case e.From == stage.FromClient && (e.Kind == wire.KindMessage || e.Kind == wire.KindGarbage):
			if len(bytes.TrimSpace(e.Raw)) == 0 {
				continue // a blank line carries nothing to judge
			}
			if e.Kind == wire.KindMessage && e.Msg.Kind == jsonrpc.KindRequest {
				requests = append(requests, e.Msg.Method)
			}
			res := get(e.Conn).Received(conn.Frame{Data: e.Raw})
			obs = append(obs, res.Obs...)
			answered = append(answered, res.Methods...)
		}
	}
	return obs, requests, answered
}
