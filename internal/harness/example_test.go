package harness_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// fakeServer answers initialize and rejects every other request with
// -32603, which is the wrong code for an unknown method.
func fakeServer(peer net.Conn) {
	in := bufio.NewScanner(peer)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage
			Method string
		}
		json.Unmarshal(in.Bytes(), &m)
		switch {
		case m.ID == nil:
		case m.Method == "initialize":
			fmt.Fprintf(peer, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`+"\n", m.ID)
		default:
			fmt.Fprintf(peer, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"oops"}}`+"\n", m.ID)
		}
	}
}

type requirements map[string]catalog.Record

func (r requirements) Get(id string) (catalog.Record, bool) { rec, ok := r[id]; return rec, ok }

// A check as a scenario writes it: open a session, send what the check is
// about, accept every outcome the specification permits, bind the reason,
// and let the Check turn what was observed into a verdict with evidence.
// Real scenarios cite IDs from the embedded catalog (RunOptions.Catalog
// defaults to it) and get the target from target.Connect or a Pool.
func Example() {
	run, _ := harness.NewRun(harness.RunOptions{Catalog: requirements{
		"base.unknown-method": {ID: "base.unknown-method", Level: catalog.Must, Area: "base", Since: spec.V20241105},
	}})
	conn, peer := wire.Pipe(wire.Limits{})
	defer conn.Close()
	go fakeServer(peer)
	conn.Observe(run.Recorder())

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := session.NewStateful(conn, session.Config{Timeout: 2 * time.Second})
	if _, err := s.Open(ctx); err != nil {
		fmt.Println(err)
		return
	}

	scope := run.Scope(s.Version(), "stdio")
	got := scope.Do("base/unknown-method", "an unknown method is rejected with -32601", []string{"base.unknown-method"}, func(c *harness.Check) {
		id, _, err := s.Request(ctx, "mcpcheck/no-such-method", nil)
		if err != nil {
			c.Error(err)
			return
		}
		c.Judge(s.Wait(ctx, expect.Error(id, jsonrpc.MethodNotFound)))
	})
	fmt.Println(got.Outcome)
	fmt.Println("expected:", got.Expected)
	fmt.Println("actual:", got.Actual)
	fmt.Println("transcript events:", len(got.Transcript))
	// Output:
	// fail
	// expected: an error response to id 2 with code -32601 (MethodNotFound)
	// actual: got an error response (id 2) with code -32603 (InternalError): "oops": code -32603 (InternalError) is not -32601 (MethodNotFound)
	// transcript events: 2
}
