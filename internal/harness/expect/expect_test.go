package expect

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// frames is a Source that replays frames, then blocks until ctx ends.
type frames []wire.Frame

func (s *frames) Recv(ctx context.Context) (wire.Frame, error) {
	if len(*s) == 0 {
		<-ctx.Done()
		return wire.Frame{}, ctx.Err()
	}
	f := (*s)[0]
	*s = (*s)[1:]
	return f, nil
}

func msg(raw string) wire.Frame {
	m := jsonrpc.Decode([]byte(raw))
	return wire.Frame{Kind: wire.KindMessage, Raw: []byte(raw), Msg: m, Stream: wire.StreamStdio}
}

func src(fs ...wire.Frame) *frames { s := frames(fs); return &s }

var id3 = jsonrpc.IntID(3)

func TestAcceptsAnyPermittedOutcome(t *testing.T) {
	alts := []Alt{
		Result(id3, "a tools list", func(r json.RawMessage) error {
			if !strings.Contains(string(r), "tools") {
				return errors.New("the result has no tools member")
			}
			return nil
		}),
		Error(id3, jsonrpc.MethodNotFound),
	}
	o := Options{Timeout: time.Second}
	got := Wait(context.Background(), src(
		msg(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`),
		msg(`{"jsonrpc":"2.0","id":2,"result":{}}`),
		msg(`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope"}}`),
	), o, alts...)
	if !got.OK() || got.Alt != 1 || len(got.Others) != 2 {
		t.Fatalf("%+v", got)
	}
	got = Wait(context.Background(), src(msg(`{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`)), o, alts...)
	if !got.OK() || got.Alt != 0 {
		t.Fatalf("%+v", got)
	}
}

func TestBindsTheReason(t *testing.T) {
	got := Wait(context.Background(), src(msg(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"boom"}}`)),
		Options{Timeout: time.Second}, Error(id3, jsonrpc.MethodNotFound, jsonrpc.InvalidParams))
	if got.Status != Mismatched {
		t.Fatalf("a rejection with the wrong code must not pass: %+v", got)
	}
	for _, want := range []string{"-32603 (InternalError)", "is not one of -32601 (MethodNotFound), -32602 (InvalidParams)"} {
		if !strings.Contains(got.Actual, want) {
			t.Errorf("Actual %q lacks %q", got.Actual, want)
		}
	}
	if !strings.Contains(got.Expected, "an error response to id 3 with code one of -32601") {
		t.Errorf("Expected = %q", got.Expected)
	}
	got = Wait(context.Background(), src(msg(`{"jsonrpc":"2.0","id":3,"result":{}}`)), Options{Timeout: time.Second}, Error(id3))
	if got.Status != Mismatched || !strings.Contains(got.Actual, "not an error") {
		t.Errorf("%+v", got)
	}
	got = Wait(context.Background(), src(msg(`{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":""}}`)), Options{Timeout: time.Second}, AnyResponse(id3))
	if got.Status != Mismatched || !strings.Contains(got.Actual, "not valid JSON-RPC") {
		t.Errorf("%+v", got)
	}
}

func TestTimeoutIsAnEvent(t *testing.T) {
	o := Options{Timeout: 20 * time.Millisecond}
	got := Wait(context.Background(), src(msg(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)), o, AnyResponse(id3))
	if got.Status != TimedOut || !strings.Contains(got.Actual, "no answer within 20ms") || !strings.Contains(got.Actual, "notifications/progress") {
		t.Fatalf("%+v", got)
	}
	// "A notification gets no response": silence passes, a response fails.
	never := Never("no response to the notification", func(f wire.Frame) bool { return f.Kind == wire.KindMessage && f.Msg.Shape.IsResponse() })
	if got := Wait(context.Background(), src(), o, Silence(""), never); !got.OK() {
		t.Errorf("silence: %+v", got)
	}
	if got := Wait(context.Background(), src(msg(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`)), o, Silence(""), never); got.Status != Mismatched {
		t.Errorf("a response to a notification: %+v", got)
	}
}

func TestEndFloodAndAbort(t *testing.T) {
	o := Options{Timeout: time.Second}
	got := Wait(context.Background(), src(wire.Frame{Kind: wire.KindGarbage, Raw: []byte("hi"), Stream: wire.StreamStdio}, wire.Frame{Kind: wire.KindEnd, Stream: wire.StreamStdio}), o, AnyResponse(id3))
	if got.Status != Ended || !got.TargetFault() || !strings.Contains(got.Actual, "the end of the stream") {
		t.Fatalf("%+v", got)
	}
	// An SSE stream of another exchange ending does not settle the wait.
	got = Wait(context.Background(), src(wire.Frame{Kind: wire.KindEnd, Stream: "get-1"}), Options{Timeout: 10 * time.Millisecond, Stream: "post-2"}, AnyResponse(id3))
	if got.Status != TimedOut {
		t.Fatalf("%+v", got)
	}
	var flood []wire.Frame
	for i := 0; i < 50; i++ {
		flood = append(flood, msg(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`))
	}
	got = Wait(context.Background(), src(flood...), Options{Timeout: time.Second, MaxFrames: 20, KeepOthers: 5}, AnyResponse(id3))
	if got.Status != Flooded || len(got.Others) != 5 || got.Dropped != 15 {
		t.Fatalf("%+v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got = Wait(ctx, src(), o, AnyResponse(id3))
	if got.Status != Aborted || got.TargetFault() {
		t.Fatalf("%+v", got)
	}
}

func TestHTTPStatusAlternatives(t *testing.T) {
	f := msg(`{"jsonrpc":"2.0","id":3,"error":{"code":-32020,"message":"mismatch"}}`)
	f.Stream = "post-1"
	f.HTTP = &wire.HTTPInfo{Status: 200}
	got := Wait(context.Background(), src(f), Options{Timeout: time.Second}, WithStatus(Error(id3, jsonrpc.HeaderMismatch), 400))
	if got.Status != Mismatched || !strings.Contains(got.Actual, "HTTP status 200, not 400") {
		t.Fatalf("%+v", got)
	}
	s := wire.Frame{Kind: wire.KindStatus, Stream: "post-2", HTTP: &wire.HTTPInfo{Status: 202}}
	if got := Wait(context.Background(), src(s), Options{Timeout: time.Second}, HTTPStatus("post-2", 202)); !got.OK() {
		t.Fatalf("%+v", got)
	}
}

func TestJSONBodyEndsTheExchange(t *testing.T) {
	f := msg(`{"jsonrpc":"2.0","id":4,"result":{}}`)
	f.Stream, f.HTTP = "post-1", &wire.HTTPInfo{Status: 200}
	got := Wait(context.Background(), src(f), Options{Timeout: 5 * time.Second, Stream: "post-1"}, AnyResponse(id3))
	if got.Status != Ended || got.Elapsed > time.Second || !strings.Contains(got.Actual, "only answer was a result response (id 4)") {
		t.Fatalf("%+v", got)
	}
	f.InSSE = true
	got = Wait(context.Background(), src(f), Options{Timeout: 10 * time.Millisecond, Stream: "post-1"}, AnyResponse(id3))
	if got.Status != TimedOut {
		t.Fatalf("an SSE stream may carry more: %+v", got)
	}
}
