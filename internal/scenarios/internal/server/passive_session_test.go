package server

import (
	"net/http"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// ledgerSend and ledgerRecv feed a ledger as the tap does.
func ledgerSend(l *sessionLedger, stream, method, raw string) {
	var h *wire.HTTPInfo
	if stream != wire.StreamStdio {
		h = &wire.HTTPInfo{Method: method, Header: http.Header{}}
		if method == "RESUME" {
			h.Method = http.MethodGet
			h.Header.Set(wire.HeaderLastEventID, "e-1")
		}
	}
	l.sent(wire.Outgoing{Raw: []byte(raw), Stream: stream, HTTP: h})
}

func ledgerRecv(l *sessionLedger, stream, raw string) (*SessionFacts, Placement) {
	f := wire.Frame{Kind: wire.KindMessage, Raw: []byte(raw), Msg: jsonrpc.Decode([]byte(raw)), Stream: stream}
	if stream != wire.StreamStdio {
		f.HTTP = &wire.HTTPInfo{}
	}
	return l.received(f)
}

func TestLedgerStdio(t *testing.T) {
	l := newSessionLedger(1)
	st := wire.StreamStdio
	ledgerSend(l, st, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"x","version":"1"}}}`+"\n")
	facts, _ := ledgerRecv(l, st, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	if !facts.Initialize || !facts.Client.Has("roots") || facts.Client.Has("sampling") || !facts.Server.Has("tools") {
		t.Fatalf("after the handshake: %+v", facts)
	}
	ledgerSend(l, st, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	ledgerSend(l, st, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"tok"}}}`)
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1}}`); pl.Token != TokenActive {
		t.Errorf("progress while the request runs: %v, want active", pl.Token)
	}
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"other","progress":1}}`); pl.Token != TokenUnknown {
		t.Errorf("progress with a token never sent: %v, want unknown", pl.Token)
	}
	ledgerRecv(l, st, `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":2}}`); pl.Token != TokenAnswered {
		t.Errorf("progress after the response: %v, want answered", pl.Token)
	}
	// A number token matches by value.
	ledgerSend(l, st, "", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}}}`)
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7.0,"progress":1}}`); pl.Token != TokenActive {
		t.Errorf("progress with token 7.0 for 7: %v, want active", pl.Token)
	}
	// Subscriptions: a sub-resource counts; after the answered unsubscribe
	// the subscription has ended.
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`); pl.Subscription != SubNever {
		t.Errorf("update before any subscription: %v, want never", pl.Subscription)
	}
	ledgerSend(l, st, "", `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"file:///dir/"}}`)
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///dir/f.txt"}}`); pl.Subscription != SubActive {
		t.Errorf("update of a sub-resource: %v, want active", pl.Subscription)
	}
	ledgerSend(l, st, "", `{"jsonrpc":"2.0","id":5,"method":"resources/unsubscribe","params":{"uri":"file:///dir/"}}`)
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///dir/"}}`); pl.Subscription != SubActive {
		t.Errorf("update before the unsubscribe was answered: %v, want active", pl.Subscription)
	}
	ledgerRecv(l, st, `{"jsonrpc":"2.0","id":5,"result":{}}`)
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///dir/"}}`); pl.Subscription != SubEnded {
		t.Errorf("update after the answered unsubscribe: %v, want ended", pl.Subscription)
	}
}

func TestLedgerHTTPStreams(t *testing.T) {
	l := newSessionLedger(2)
	ledgerSend(l, "get-1", http.MethodGet, "")
	ledgerSend(l, "post-2", http.MethodPost, `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}`)
	if _, pl := ledgerRecv(l, "post-2", `{"jsonrpc":"2.0","id":"a","result":{}}`); pl.Stream != StreamPost || pl.RequestStream != "post-2" || pl.AnsweredOn != "" {
		t.Errorf("the response on its POST stream: %+v", pl)
	}
	if _, pl := ledgerRecv(l, "get-1", `{"jsonrpc":"2.0","id":"a","result":{}}`); pl.Stream != StreamGet || pl.AnsweredOn != "post-2" {
		t.Errorf("the same response on the GET stream: %+v, want a GET stream answered on post-2", pl)
	}
	// Progress on another stream after the response may have crossed it.
	if _, pl := ledgerRecv(l, "get-1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`); pl.Token != TokenAnsweredElsewhere {
		t.Errorf("progress on the GET stream after the POST's response: %v, want answered elsewhere", pl.Token)
	}
	if _, pl := ledgerRecv(l, "post-2", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2}}`); pl.Token != TokenAnswered {
		t.Errorf("progress after the response on the same stream: %v, want answered", pl.Token)
	}
	ledgerSend(l, "get-3", "RESUME", "")
	if _, pl := ledgerRecv(l, "get-3", `{"jsonrpc":"2.0","id":"a","result":{}}`); pl.Stream != StreamResumed {
		t.Errorf("a replay on a resumed stream: %+v", pl)
	}
	// An id mcpcheck sends twice (on purpose) answered on each POST is no
	// duplicate.
	ledgerSend(l, "post-4", http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	ledgerSend(l, "post-5", http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	ledgerRecv(l, "post-4", `{"jsonrpc":"2.0","id":9,"result":{}}`)
	if _, pl := ledgerRecv(l, "post-5", `{"jsonrpc":"2.0","id":9,"result":{}}`); pl.AnsweredOn != "" || pl.RequestStream != "post-5" {
		t.Errorf("the answer to a reused id on its own POST: %+v", pl)
	}
}

func TestLedgerOverflowStopsJudging(t *testing.T) {
	l := newSessionLedger(3)
	for i := 0; i <= maxLedgerEntries; i++ {
		ledgerSend(l, wire.StreamStdio, "", `{"jsonrpc":"2.0","id":`+itoa(i)+`,"method":"ping"}`)
	}
	if _, pl := ledgerRecv(l, wire.StreamStdio, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}`); pl.Token != TokenUntracked {
		t.Errorf("a token after the ledger overflowed: %v, want untracked", pl.Token)
	}
}

func itoa(i int) string { return jsonrpc.IntID(int64(i)).String() }

func TestLedgerLogScope(t *testing.T) {
	l := newSessionLedger(4)
	st := wire.StreamStdio
	logMsg := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	if _, pl := ledgerRecv(l, st, logMsg); pl.Log != LogNoLevel {
		t.Errorf("a log with no request in progress: %v, want no level", pl.Log)
	}
	ledgerSend(l, st, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/logLevel":"debug"}}}`)
	if _, pl := ledgerRecv(l, st, logMsg); pl.Log != LogScoped {
		t.Errorf("a log while a request with a level runs: %v, want scoped", pl.Log)
	}
	if _, pl := ledgerRecv(l, st, `{"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"level":"info","data":"x"}}`); pl.Log != LogListen {
		t.Errorf("a log for a subscription: %v, want listen", pl.Log)
	}
	ledgerRecv(l, st, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	if _, pl := ledgerRecv(l, st, logMsg); pl.Log != LogNoLevel {
		t.Errorf("a log after the request with a level was answered: %v, want no level", pl.Log)
	}

	h := newSessionLedger(5)
	ledgerSend(h, "post-1", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	ledgerSend(h, "post-2", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{}}`)
	ledgerSend(h, "post-3", http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/logLevel":"info"}}}`)
	for stream, want := range map[string]LogScope{"post-1": LogNoLevel, "post-2": LogListen, "post-3": LogScoped, "post-9": LogUntracked} {
		if _, pl := ledgerRecv(h, stream, logMsg); pl.Log != want {
			t.Errorf("a log on %s: %v, want %v", stream, pl.Log, want)
		}
	}
}
