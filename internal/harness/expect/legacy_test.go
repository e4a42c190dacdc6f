package expect

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// On the HTTP+SSE transport the 202 of a POST only acknowledges the
// message: the wait goes on to the answer on the SSE stream, which is
// judged; a refusal status, or the SSE stream's end, still settles it.
func TestLegacyAckSettlesNothing(t *testing.T) {
	ack := wire.Frame{Kind: wire.KindStatus, Raw: []byte{}, Stream: "post-2", HTTP: &wire.HTTPInfo{Method: "POST", Status: 202}, Ack: true}
	answer := msg(`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}`)
	answer.Stream, answer.InSSE, answer.HTTP = wire.StreamSSE, true, &wire.HTTPInfo{Method: "GET", Status: 200}
	o := Options{Timeout: 5 * time.Second, Stream: "post-2"}

	got := Wait(context.Background(), src(ack, answer), o, Error(id3, jsonrpc.MethodNotFound), HTTPStatus("post-2", 400, 404))
	if !got.OK() || got.Alt != 0 || len(got.Others) != 1 {
		t.Fatalf("the answer on the SSE stream must settle the wait: %+v", got)
	}
	// A wrong answer on the SSE stream is still a mismatch.
	got = Wait(context.Background(), src(ack, answer), o, Error(id3, jsonrpc.InvalidParams), HTTPStatus("post-2", 400))
	if got.Status != Mismatched || !strings.Contains(got.Actual, "-32601") {
		t.Fatalf("a wrong code on the SSE stream must be a mismatch: %+v", got)
	}
	// A streamable HTTP 202 (no Ack) to a request is still its only answer.
	plain := ack
	plain.Ack = false
	got = Wait(context.Background(), src(plain, answer), o, Error(id3, jsonrpc.MethodNotFound))
	if got.Status != Ended {
		t.Fatalf("a streamable 202 ends the exchange: %+v", got)
	}
	// A refusal of the POST settles it, and is judged.
	refused := wire.Frame{Kind: wire.KindStatus, Raw: []byte{}, Stream: "post-2", HTTP: &wire.HTTPInfo{Method: "POST", Status: 500}}
	got = Wait(context.Background(), src(refused), o, Error(id3, jsonrpc.MethodNotFound), HTTPStatus("post-2", 400))
	if got.Status != Mismatched {
		t.Fatalf("a 500 is not a 400: %+v", got)
	}
	// The SSE stream's end settles a wait for an answer that can only come
	// on it.
	end := wire.Frame{Kind: wire.KindEnd, Stream: wire.StreamSSE, InSSE: true}
	got = Wait(context.Background(), src(ack, end), o, Error(id3, jsonrpc.MethodNotFound))
	if got.Status != Ended || got.Elapsed > time.Second {
		t.Fatalf("the end of the SSE stream must settle the wait: %+v", got)
	}
}

// HTTPStatus leaves the events of an SSE response stream (a priming event,
// then the response) to the other alternatives; a stream that never
// carries what is expected still fails when it ends.
func TestHTTPStatusOnSSEResponseStream(t *testing.T) {
	info := &wire.HTTPInfo{Method: "POST", Status: 200}
	prime := wire.Frame{Kind: wire.KindEmptyEvent, Stream: "post-5", HTTP: info, InSSE: true, HasEventID: true, EventID: "p1.0"}
	resp := msg(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	resp.Stream, resp.HTTP, resp.InSSE = "post-5", info, true
	end := wire.Frame{Kind: wire.KindEnd, Stream: "post-5", HTTP: info, InSSE: true}
	o := Options{Timeout: 5 * time.Second, Stream: "post-5"}
	if got := Wait(context.Background(), src(prime, resp, end), o, AnyResponse(id3), HTTPStatus("post-5", 400)); !got.OK() || got.Alt != 0 {
		t.Fatalf("the response after the priming event must match: %+v", got)
	}
	if got := Wait(context.Background(), src(prime, resp, end), o, HTTPStatus("post-5", 400)); got.OK() {
		t.Fatalf("an SSE 200 stream is no 400: %+v", got)
	}
	if got := Wait(context.Background(), src(prime), o, HTTPStatus("post-5", 200)); !got.OK() {
		t.Fatalf("a wanted 200 is still accepted on the first event: %+v", got)
	}
}
