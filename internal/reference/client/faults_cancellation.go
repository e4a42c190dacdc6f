package client

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of cancellation: notifications/cancelled the client adds
// to what it sends.

// FaultUnknownCancelFatal is the hook of cancellation: a
// notifications/cancelled naming no request of the server in progress ends
// the connection.
const FaultUnknownCancelFatal = "unknown-cancel-fatal"

func init() {
	registerFaults([]string{FaultUnknownCancelFatal},
		Fault{Name: FaultUnknownCancelFatal, Requirement: "cancellation.invalid.ignored", Description: "a notifications/cancelled for no request in progress ends the connection"},
		Fault{Name: "cancel-unknown-request", Requirement: "cancellation.notify.only-in-flight-client-requests", Description: "right after initialization the client cancels a request it never sent",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method != spec.MethodInitialized {
					return [][]byte{w.Msg}
				}
				return [][]byte{w.Msg, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpcheck-never-sent","reason":"fault"}}`)}
			}},
		Fault{Name: "cancel-initialize", Requirement: "cancellation.initialize.never-cancelled", Description: "initialize is followed at once by a notifications/cancelled for it",
			Rewrite: cancelInitialize},
		Fault{Name: "cancel-initialize-streamed", Requirement: "cancellation.initialize.never-cancelled", Description: "initialize is cancelled while its body is still being sent (over HTTP the cancellation's POST is read whole first, as the TS SDK's is)",
			// faultConn.held makes the initialize's body end only after
			// the cancellation was answered.
			Rewrite: cancelInitialize},
		Fault{Name: "cancel-initialize-crossing", Requirement: "cancellation.initialize.never-cancelled", Description: "initialize is cancelled after its result arrived, the cancellation crossing it: sent before notifications/initialized and, over HTTP, without the session id (as by a client that had not read the result yet)",
			Rewrite: crossing.rewrite, RewriteHTTP: crossing.rewriteHTTP},
	)
}

// crossing is the state of fault cancel-initialize-crossing: the id of the
// client's last initialize.
var crossing crossingCancel

type crossingCancel struct {
	mu sync.Mutex
	id string
}

// rewrite remembers the initialize's id and puts a notifications/cancelled
// for it before notifications/initialized, which the client sends once it
// has the result.
func (x *crossingCancel) rewrite(w Written) [][]byte {
	switch w.Decoded.Method {
	case spec.MethodInitialize:
		x.mu.Lock()
		x.id = w.Decoded.ID.String()
		x.mu.Unlock()
	case spec.MethodInitialized:
		x.mu.Lock()
		id := x.id
		x.mu.Unlock()
		if id != "" {
			return [][]byte{[]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"fault"}}`), w.Msg}
		}
	}
	return [][]byte{w.Msg}
}

// rewriteHTTP sends that cancellation without the Mcp-Session-Id the
// initialize result gave.
func (x *crossingCancel) rewriteHTTP(r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") == "" {
		return
	}
	m := peekMessage(r)
	if m.Method != spec.MethodCancelled {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(m.Params, &p)
	x.mu.Lock()
	id := x.id
	x.mu.Unlock()
	if id != "" && string(p.RequestID) == id {
		r.Header.Del("Mcp-Session-Id")
	}
}

func init() {
	registerFaults(nil,
		Fault{Name: "timeout-without-cancel", Requirement: "cancellation.timeout.cancel-on-expiry", Description: "a request given up on after its timeout is not cancelled: notifications/cancelled is never sent",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method == spec.MethodCancelled {
					return nil
				}
				return [][]byte{w.Msg}
			}},
	)
}

// Fault switches of timeouts and of the races between a cancellation and
// the answer it crosses (named hooks, in rpc.go and request.go).
const (
	// FaultLateAnswerFatal ends the connection when a response arrives for
	// a request the client cancelled.
	FaultLateAnswerFatal = "late-answer-fatal"
	// FaultAnsweredCancelFatal ends the connection when the server cancels
	// a request the client has already answered.
	FaultAnsweredCancelFatal = "answered-cancel-fatal"
	// FaultNoRequestTimeout waits for a tools/call answer forever.
	FaultNoRequestTimeout = "no-request-timeout"
	// FaultProgressExtendsTimeout makes every progress notification start
	// a call's timeout afresh, with no upper bound.
	FaultProgressExtendsTimeout = "progress-extends-timeout"
)

func init() {
	registerFaults([]string{FaultLateAnswerFatal, FaultAnsweredCancelFatal, FaultNoRequestTimeout, FaultProgressExtendsTimeout},
		Fault{Name: FaultLateAnswerFatal, Requirement: "cancellation.sender.ignore-late-response", Description: "a response that arrives after the client cancelled its request ends the connection"},
		Fault{Name: FaultAnsweredCancelFatal, Requirement: "cancellation.race.handled-gracefully", Description: "a notifications/cancelled for a server request the client has already answered ends the connection"},
		Fault{Name: FaultNoRequestTimeout, Requirement: "lifecycle.timeouts.per-request-timeout", Description: "tools/call waits for its answer without any time limit"},
		Fault{Name: FaultProgressExtendsTimeout, Requirement: "lifecycle.timeouts.maximum-despite-progress", Description: "each progress notification restarts a tools/call's timeout, so a server that keeps sending progress is waited for without end"},
	)
}

// raceFaults remembers, for the race faults only, the ids of requests the
// client cancelled and of server requests it answered (at most raceKeep
// of each).
type raceFaults struct {
	mu        sync.Mutex
	cancelled map[jsonrpc.ID]bool
	answered  map[jsonrpc.ID]bool
}

const raceKeep = 256

func remember(m *map[jsonrpc.ID]bool, id jsonrpc.ID) {
	if *m == nil || len(*m) >= raceKeep {
		*m = map[jsonrpc.ID]bool{}
	}
	(*m)[id] = true
}

// noteRace records, while fault is on, id as a request the client
// cancelled (FaultLateAnswerFatal) or a server request it answered
// (FaultAnsweredCancelFatal).
func (c *Client) noteRace(fault string, id jsonrpc.ID) {
	if !c.fault(fault) {
		return
	}
	c.race.mu.Lock()
	defer c.race.mu.Unlock()
	if fault == FaultAnsweredCancelFatal {
		remember(&c.race.answered, id)
	} else {
		remember(&c.race.cancelled, id)
	}
}

// raceFatal reports whether a race fault ends the connection on a late
// response (response true) or a late cancellation for id.
func (c *Client) raceFatal(id jsonrpc.ID, response bool) bool {
	c.race.mu.Lock()
	defer c.race.mu.Unlock()
	if response {
		return c.race.cancelled[id] && c.fault(FaultLateAnswerFatal)
	}
	return c.race.answered[id] && c.fault(FaultAnsweredCancelFatal)
}

// callTimeout is the time limit of a call: FaultNoRequestTimeout lifts it
// for tools/call.
func (c *Client) callTimeout(method string, d time.Duration) time.Duration {
	if method == spec.MethodToolsCall && c.fault(FaultNoRequestTimeout) {
		return 24 * time.Hour
	}
	return d
}

// progressExtends is FaultProgressExtendsTimeout: with it on, the call
// runs without its own time limit and ctx ends only when no progress came
// for timeout; it returns the wrapped progress handler, the context and
// its cancel function.
func (c *Client) progressExtends(ctx context.Context, timeout time.Duration, onProgress func(p mcp.ProgressNotificationParams)) (context.Context, func(p mcp.ProgressNotificationParams), context.CancelFunc, bool) {
	if onProgress == nil || !c.fault(FaultProgressExtendsTimeout) {
		return ctx, onProgress, func() {}, false
	}
	ctx, cancel := context.WithCancel(ctx)
	kick := make(chan struct{}, 1)
	go func() {
		t := time.NewTimer(timeout)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
				if !t.Stop() {
					<-t.C
				}
				t.Reset(timeout)
			case <-t.C:
				cancel()
				return
			}
		}
	}()
	return ctx, func(p mcp.ProgressNotificationParams) {
		select {
		case kick <- struct{}{}:
		default:
		}
		onProgress(p)
	}, cancel, true
}

// cancelInitialize puts a notifications/cancelled for the initialize after
// it, in one message of two lines, so that over HTTP the cancellation goes
// out while the initialize is unanswered (faultConn.sendAlongside), as it
// does over stdio; as two messages it waited for the result, then went out
// without the negotiated MCP-Protocol-Version header.
func cancelInitialize(w Written) [][]byte {
	if w.Decoded.Method != spec.MethodInitialize {
		return [][]byte{w.Msg}
	}
	return [][]byte{append(append(append([]byte(nil), w.Msg...), '\n'), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+w.Decoded.ID.String()+`,"reason":"fault"}}`...)}
}
