package client

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/transport"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches: deliberate defects, each breaking one named requirement,
// so that mcpcheck's client checks can be proven to fire against this
// client. Every switch is off unless named in Options.Faults.
//
// Most faults only change what the client writes: they are rewriters in
// the table below (Rewrite for messages, RewriteHTTP for the HTTP requests
// that carry them), applied at one seam, the connection's Send, and the
// client's own code knows nothing of them. The few that change what the
// client does (skip a step, wait less) are named hooks; hookFaults lists
// every one of them and the code tests them with Client.fault.

// Fault is one fault switch.
type Fault struct {
	// Name is the switch's flag value ("skip-initialize").
	Name string
	// Requirement is the catalog ID of the requirement it breaks.
	Requirement string
	// Description says in one line what the client does wrong.
	Description string
	// Rewrite, when set, is the fault's whole effect on messages: it gets
	// each message on its way to the transport and returns the messages
	// to send instead (none: drop it).
	Rewrite func(w Written) [][]byte
	// RewriteHTTP, when set, changes each HTTP request the transports
	// send (headers, method) just before it goes out.
	RewriteHTTP func(r *http.Request)
}

// Written is a message on its way out, as a Rewrite sees it.
type Written struct {
	// Msg is the message; Decoded its classification.
	Msg     []byte
	Decoded jsonrpc.Message
	// Version is the negotiated protocol version ("" before it is known).
	Version spec.Version
	// N counts the messages written so far on the connection, from 1.
	N int
}

// The named hooks: faults that change what the client does rather than
// what it writes. Each is tested at one place in the client's code.
const (
	FaultSkipInitialize    = "skip-initialize"
	FaultNoInitialized     = "no-initialized"
	FaultUnreleasedVersion = "offer-unreleased-version"
	// FaultContinueOnUnknownVersion goes on with a session whose
	// initialize result names a revision the client does not implement.
	FaultContinueOnUnknownVersion = "continue-on-unknown-version"
	// FaultOfferOlderVersion offers the revision before the configured one
	// in initialize, while still accepting any revision it implements.
	FaultOfferOlderVersion = "offer-older-version"
)

var hookFaults = map[string]bool{
	FaultSkipInitialize:           true,
	FaultNoInitialized:            true,
	FaultUnreleasedVersion:        true,
	FaultContinueOnUnknownVersion: true,
	FaultOfferOlderVersion:        true,
}

// registerFaults adds fault switches of one protocol area (from an init of
// the file that holds them, faults_AREA.go); hooks names those that are
// named hooks. A duplicate name panics.
func registerFaults(hooks []string, fs ...Fault) {
	for _, f := range fs {
		for _, g := range faultTable {
			if g.Name == f.Name {
				panic("client: fault switch " + f.Name + " registered twice")
			}
		}
		faultTable = append(faultTable, f)
	}
	for _, h := range hooks {
		hookFaults[h] = true
	}
}

// faultTable is every fault switch: the base and lifecycle ones here, the
// other areas' added by registerFaults.
var faultTable = []Fault{
	{Name: "invalid-jsonrpc", Requirement: "base.jsonrpc.messages-are-jsonrpc-2", Description: "tools/list requests say \"jsonrpc\":\"1.0\"",
		Rewrite: onMethod(spec.MethodToolsList, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"jsonrpc":"2.0"`), []byte(`"jsonrpc":"1.0"`), 1)
		})},
	{Name: "latin1-message", Requirement: "base.messages.utf8", Description: "the first message carries a Latin-1 byte (not UTF-8) in a string",
		Rewrite: func(w Written) [][]byte {
			if w.N != 1 {
				return [][]byte{w.Msg}
			}
			return [][]byte{bytes.Replace(w.Msg, []byte(`"method":"`), []byte("\"x-mcpcheck\":\"caf\xe9\",\"method\":\""), 1)}
		}},
	{Name: "reuse-request-id", Requirement: "base.request.id-unique-in-session", Description: "the first tools/list request is sent twice with the same id",
		Rewrite: func() func(Written) [][]byte {
			var once sync.Once
			return onMethod(spec.MethodToolsList, func(b []byte) []byte {
				dup := false
				once.Do(func() { dup = true })
				if dup {
					return append(append(append([]byte(nil), b...), '\n'), b...)
				}
				return b
			})
		}()},
	{Name: "notification-with-id", Requirement: "base.notification.no-id", Description: "notifications/initialized carries an id",
		Rewrite: onMethod(spec.MethodInitialized, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"jsonrpc":"2.0",`), []byte(`"jsonrpc":"2.0","id":9001,`), 1)
		})},
	{Name: "response-result-and-error", Requirement: "base.response.not-both-result-and-error", Description: "answers to the server's requests carry an error next to the result",
		Rewrite: func(w Written) [][]byte {
			if w.Decoded.Shape != jsonrpc.KindResponse {
				return [][]byte{w.Msg}
			}
			return [][]byte{bytes.Replace(w.Msg, []byte(`"result":`), []byte(`"error":{"code":-32603,"message":"both"},"result":`), 1)}
		}},
	{Name: "response-id-mismatch", Requirement: "base.response.id-matches-request", Description: "answers to the server's requests carry another id",
		Rewrite: func(w Written) [][]byte {
			if !w.Decoded.Shape.IsResponse() || w.Decoded.ID.IsZero() {
				return [][]byte{w.Msg}
			}
			return [][]byte{bytes.Replace(w.Msg, []byte(`"id":`+w.Decoded.ID.String()), []byte(`"id":"mismatched-`+strings.Trim(w.Decoded.ID.String(), `"`)+`"`), 1)}
		}},
	{Name: "ping-nonempty-result", Requirement: "ping.response.prompt-empty-result", Description: "the server's pings are answered with a non-empty result",
		Rewrite: func(w Written) [][]byte {
			if w.Decoded.Shape != jsonrpc.KindResponse {
				return [][]byte{w.Msg}
			}
			return [][]byte{bytes.Replace(w.Msg, []byte(`"result":{}`), []byte(`"result":{"mcpcheck":"not empty"}`), 1)}
		}},
	{Name: FaultSkipInitialize, Requirement: "lifecycle.initialize.first-interaction", Description: "a ping is sent before initialize"},
	{Name: FaultNoInitialized, Requirement: "lifecycle.initialized.client-sends-notification", Description: "notifications/initialized is never sent"},
	{Name: "request-before-initialize-result", Requirement: "lifecycle.initialize.client-only-ping-before-result", Description: "a tools/list request goes out with initialize, before its result",
		Rewrite: onMethod(spec.MethodInitialize, func(b []byte) []byte {
			return append(append(append([]byte(nil), b...), '\n'), `{"jsonrpc":"2.0","id":"mcpcheck-eager","method":"tools/list"}`...)
		})},
	{Name: FaultUnreleasedVersion, Requirement: "versioning.initialize.client-offers-supported-version", Description: "initialize offers the version 2099-01-01"},
	{Name: FaultOfferOlderVersion, Requirement: "versioning.initialize.client-offers-latest", Description: "initialize offers the revision before the newest one the client is set to use, though it goes on with any it implements"},
	{Name: FaultContinueOnUnknownVersion, Requirement: "versioning.initialize.client-disconnects-on-unsupported", Description: "a session goes on after the initialize result names a revision the client does not implement"},
}

// onMethod makes a Rewrite that changes the messages of one method.
func onMethod(method string, f func([]byte) []byte) func(Written) [][]byte {
	return func(w Written) [][]byte {
		if w.Decoded.Method != method {
			return [][]byte{w.Msg}
		}
		return [][]byte{f(w.Msg)}
	}
}

// Faults returns every fault switch, sorted by name.
func Faults() []Fault {
	out := append([]Fault(nil), faultTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// faultSet is the switches that are on.
type faultSet map[string]Fault

func parseFaults(names []string) (faultSet, error) {
	fs := faultSet{}
	for _, n := range names {
		found := false
		for _, f := range faultTable {
			if f.Name == n {
				fs[n] = f
				found = true
			}
		}
		if !found {
			var all []string
			for _, f := range Faults() {
				all = append(all, f.Name)
			}
			return nil, fmt.Errorf("client: unknown fault switch %q; the switches are: %s", n, strings.Join(all, ", "))
		}
	}
	return fs, nil
}

// fault reports whether the named hook fault is on.
func (c *Client) fault(name string) bool {
	if !hookFaults[name] {
		panic("client: " + name + " is not a hook fault")
	}
	_, on := c.faults[name]
	return on
}

// HTTPRewriter returns the RewriteHTTP of the named faults as one function
// for the HTTP transports (nil when none has one), and an error for an
// unknown name.
func HTTPRewriter(names []string) (func(*http.Request), error) {
	fs, err := parseFaults(names)
	if err != nil {
		return nil, err
	}
	var rw []func(*http.Request)
	for _, f := range fs {
		if f.RewriteHTTP != nil {
			rw = append(rw, f.RewriteHTTP)
		}
	}
	if len(rw) == 0 {
		return nil, nil
	}
	return func(r *http.Request) {
		for _, f := range rw {
			f(r)
		}
	}, nil
}

// faultConn applies the message rewriters of the faults that are on to
// everything the client sends.
type faultConn struct {
	transport.Conn
	c  *Client
	rw []func(Written) [][]byte
	mu sync.Mutex
	n  int
	// held: the initialize's body is held back while what a rewrite put
	// after it goes out (fault cancel-initialize-streamed; see
	// sendAlongside).
	held bool
}

func (f *faultConn) Send(ctx context.Context, msg []byte) error {
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	out := [][]byte{msg}
	for _, rw := range f.rw {
		var next [][]byte
		for _, m := range out {
			next = append(next, rw(Written{Msg: m, Decoded: jsonrpc.Decode(m), Version: f.c.ProtocolVersion(), N: n})...)
		}
		out = next
	}
	for _, m := range out {
		if !bytes.ContainsAny(m, "\r\n") {
			if err := f.Conn.Send(ctx, m); err != nil {
				return err
			}
			continue
		}
		// A rewrite that put several lines in one (a duplicate, an eager
		// request) is written in one go where the transport can (stdio),
		// else one message at a time.
		if rs, ok := f.Conn.(rawSender); ok {
			if err := rs.SendRaw(ctx, append(bytes.TrimRight(m, "\r\n"), '\n')); err != nil {
				return err
			}
			continue
		}
		var lines [][]byte
		for _, line := range bytes.Split(m, []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) > 0 {
				lines = append(lines, line)
			}
		}
		if len(lines) > 1 && jsonrpc.Decode(lines[0]).Method == spec.MethodInitialize {
			if err := f.sendAlongside(ctx, lines[0], lines[1:]); err != nil {
				return err
			}
			continue
		}
		for _, line := range lines {
			if err := f.Conn.Send(ctx, line); err != nil {
				return err
			}
		}
	}
	return nil
}

// alongsideDelay is how long after an initialize goes out the messages a
// rewrite put after it follow (sendAlongside).
const alongsideDelay = 500 * time.Millisecond

// sendAlongside sends an initialize request and, when it is still
// unanswered after alongsideDelay, the messages a fault put after it while
// it waits: a transport whose Send waits for the answer (HTTP with a JSON
// response) would otherwise send them only after the result, and the fault
// is about not waiting for it. When the initialize returns sooner they
// follow it, as before. Their own errors are dropped (a
// server may refuse them); the initialize's is returned.
func (f *faultConn) sendAlongside(ctx context.Context, init []byte, rest [][]byte) error {
	if f.held {
		return f.sendWhileStreaming(ctx, init, rest)
	}
	done := make(chan error, 1)
	go func() { done <- f.Conn.Send(ctx, init) }()
	t := time.NewTimer(alongsideDelay)
	defer t.Stop()
	select {
	case err := <-done:
		done <- err
	case <-t.C:
	}
	for _, m := range rest {
		_ = f.Conn.Send(ctx, m)
	}
	return <-done
}

// sendWhileStreaming sends an initialize whose body (over streamable
// HTTP) ends only after the messages a fault put after it have gone out
// and been answered, as the TS SDK's streamed (chunked) initialize body
// ends after its next, small POST was read: the server takes the
// initialize first and has it whole last. Over other transports the
// initialize goes out whole and they follow.
func (f *faultConn) sendWhileStreaming(ctx context.Context, init []byte, rest [][]byte) error {
	h := &transport.HeldBody{Started: make(chan struct{}), Release: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- f.Conn.Send(transport.WithHeldBody(ctx, h), init) }()
	var err error
	sent := false
	select {
	case <-h.Started:
	case err = <-done:
		sent = true
	case <-ctx.Done():
		close(h.Release)
		return <-done
	}
	for _, m := range rest {
		_ = f.Conn.Send(ctx, m)
	}
	close(h.Release)
	if sent {
		return err
	}
	return <-done
}

// rawSender is a transport that can write bytes exactly (stdio).
type rawSender interface {
	SendRaw(ctx context.Context, b []byte) error
}

// withFaults wraps conn in the message rewriters of fs (conn itself when
// none has one).
func withFaults(c *Client, conn transport.Conn, fs faultSet) transport.Conn {
	var rw []func(Written) [][]byte
	for _, f := range faultTable { // table order: deterministic
		if _, on := fs[f.Name]; on && f.Rewrite != nil {
			rw = append(rw, f.Rewrite)
		}
	}
	if len(rw) == 0 {
		return conn
	}
	_, held := fs["cancel-initialize-streamed"]
	return &faultConn{Conn: conn, c: c, rw: rw, held: held}
}
