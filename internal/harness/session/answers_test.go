package session

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// scripted is the far end of a pipe whose every line the test reads and
// writes itself.
type scripted struct {
	t     *testing.T
	lines chan string
	w     io.Writer
}

func newScripted(t *testing.T) (*wire.Stdio, *scripted) {
	t.Helper()
	c, peer := wire.Pipe(wire.Limits{})
	t.Cleanup(func() { c.Close(); peer.Close() })
	p := &scripted{t: t, lines: make(chan string, 16), w: peer}
	go func() {
		// Read all the time: a write to the pipe waits for its reader.
		defer close(p.lines)
		sc := bufio.NewScanner(peer)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	return c, p
}

// read returns the next line the session sent.
func (p *scripted) read() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the session sent nothing more")
		}
		return l
	case <-time.After(time.Minute):
		p.t.Fatal("the session sent nothing within a minute")
	}
	return ""
}

// write sends lines to the session, from a goroutine (the pipe blocks
// until the session reads).
func (p *scripted) write(lines ...string) {
	go func() {
		for _, l := range lines {
			if _, err := io.WriteString(p.w, l+"\n"); err != nil {
				return
			}
		}
	}()
}

// echoOnly rejects every response but one carrying id, as the checks that
// take "the next response" for theirs do, skipping (as they do) those
// s.AnswersOther says answer another request of the session.
func echoOnly(s *Stateful, id jsonrpc.ID) expect.Alt {
	return expect.Matching("a response with id "+id.String(), func(f wire.Frame) (expect.Verdict, string) {
		if f.Kind != wire.KindMessage || !f.Msg.Shape.IsResponse() || s.AnswersOther(f, id) {
			return expect.Unrelated, ""
		}
		if f.IsResponseTo(id) {
			return expect.Accepted, ""
		}
		return expect.Rejected, fmt.Sprintf("the response carries id %s instead of %s", f.Msg.ID, id)
	})
}

// TestLateAnswerSetAside: the answer to initialize that comes after its
// wait gave up (a slow server) answers initialize; a later wait that takes
// any other id for a wrong one does not take it for its own answer with a
// wrong id, and the session keeps it (Late).
func TestLateAnswerSetAside(t *testing.T) {
	c, p := newScripted(t)
	s := NewStateful(c, Config{Version: spec.V20251125, Timeout: 5 * time.Second})
	ctx := context.Background()
	done := make(chan Reply, 1)
	// The wait gives up once the initialize is out, as a run's shortened
	// deadline would on a slow server: cancelled when the request has been
	// read, not after a time (a timer could end it before the request went
	// out on a loaded machine).
	short, giveUp := context.WithCancel(ctx)
	defer giveUp()
	go func() {
		done <- s.Call(short, spec.MethodInitialize, s.InitializeParams())
	}()
	if l := p.read(); !strings.Contains(l, `"initialize"`) {
		t.Fatalf("first line %s, want initialize", l)
	}
	giveUp()
	if r := <-done; r.OK() {
		t.Fatalf("initialize was answered: %s", r.Describe())
	}
	echo := jsonrpc.StringID("mcpcheck-id-echo-1")
	if _, err := s.RequestWithID(ctx, echo, spec.MethodPing, nil); err != nil {
		t.Fatal(err)
	}
	p.read()
	p.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"slow","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":"mcpcheck-id-echo-1","result":{}}`)
	obs := s.WaitFor(ctx, expect.Options{Timeout: 5 * time.Second}, echoOnly(s, echo))
	if !obs.OK() {
		t.Fatalf("the wait for %s took the late answer to initialize for its own: %s", echo, obs.Actual)
	}
	if late := s.Late(); len(late) != 1 || !late[0].IsResponseTo(jsonrpc.IntID(1)) {
		t.Errorf("Late() = %v, want the answer to initialize", late)
	}
	for _, f := range s.Findings() {
		t.Errorf("finding on a well-formed late initialize result: %s", f)
	}
}

// TestAnswersOtherTellsDuplicates: a matcher skips the answer to another
// request still awaited, but not a second answer to a request answered
// already (an id mangled into an old one, 1.5 answered as 1), which breaks
// the id-echo rule; nor is that second answer validated as the answer to
// the method of the id it carries.
func TestAnswersOtherTellsDuplicates(t *testing.T) {
	c, p := newScripted(t)
	s := NewStateful(c, Config{Version: spec.V20251125, Timeout: 5 * time.Second})
	ctx := context.Background()
	go func() {
		p.read()
		p.write(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	}()
	if _, _, err := s.Initialize(ctx, nil); err != nil {
		t.Fatal(err)
	}
	a, b := jsonrpc.IntID(5), jsonrpc.IntID(6)
	for _, id := range []jsonrpc.ID{a, b} {
		if _, err := s.RequestWithID(ctx, id, spec.MethodPing, nil); err != nil {
			t.Fatal(err)
		}
		p.read()
	}
	p.write(`{"jsonrpc":"2.0","id":5,"result":{}}`, `{"jsonrpc":"2.0","id":6,"result":{}}`)
	if obs := s.WaitFor(ctx, expect.Options{}, echoOnly(s, b)); !obs.OK() {
		t.Fatalf("the answer to the other request awaited (5) was taken for a wrong id of 6: %s", obs.Actual)
	}
	if _, err := s.SendRaw(ctx, []byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	p.read()
	p.write(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	obs := s.WaitFor(ctx, expect.Options{}, expect.Matching("an answer to id 1.5", func(f wire.Frame) (expect.Verdict, string) {
		if f.Kind != wire.KindMessage || !f.Msg.Shape.IsResponse() || s.AnswersOther(f) {
			return expect.Unrelated, ""
		}
		return expect.Rejected, "another id"
	}))
	if obs.Status != expect.Mismatched {
		t.Fatalf("the answer to 1.5 carrying initialize's id 1 (answered already) was skipped: %s %s", obs.Status, obs.Actual)
	}
	for _, f := range s.Findings() {
		t.Errorf("the stray id-1 answer was validated as an initialize result: %s", f)
	}
}

// TestValidatorAnswerOnAnotherPOST: over streamable HTTP, a response on
// the stream of a POST whose message carried another id (1.5 answered as
// 1) is not validated as the answer to the request its id names, even
// while that one awaits an answer.
func TestValidatorAnswerOnAnotherPOST(t *testing.T) {
	v := NewValidator(spec.V20251125, 0)
	post := func(stream, body string) {
		v.Sent(wire.Outgoing{Raw: []byte(body), Stream: stream, HTTP: &wire.HTTPInfo{Method: http.MethodPost}})
	}
	post("post-1", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	post("post-2", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`)
	v.Received(wire.Frame{Kind: wire.KindMessage, Stream: "post-2", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), Msg: jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))})
	for _, f := range v.Findings() {
		t.Errorf("the answer on post-2 was validated as initialize's: %s", f)
	}
	init := `{"jsonrpc":"2.0","id":1,"result":{}}`
	v.Received(wire.Frame{Kind: wire.KindMessage, Stream: "post-1", Raw: []byte(init), Msg: jsonrpc.Decode([]byte(init))})
	if len(v.Findings()) == 0 {
		t.Error("an empty initialize result on initialize's own stream was not validated as one")
	}
}

// TestWorkingAnswersKeepTheStepTimeout: once the run's Health cuts waits
// short (the target left requests unanswered), the answer to a tools/call
// or a tasks/result, which waits on the tool's or the task's work, still
// gets the whole step timeout, whether the session waits for it (Call) or
// a check does (WaitFor with an alternative about the request's id); an
// unanswered ping does not (the control that the Health was cutting).
func TestWorkingAnswersKeepTheStepTimeout(t *testing.T) {
	c, p := newScripted(t)
	s := NewStateful(c, Config{Version: spec.V20251125, Timeout: 10 * time.Second})
	h := expect.NewHealth()
	ctx := expect.WithHealth(context.Background(), h)

	// One quick answer (the connection has spoken: no start-up wait
	// after it), then two requests left unanswered.
	done := make(chan Reply, 1)
	go func() { done <- s.Call(ctx, spec.MethodPing, nil) }()
	p.read()
	p.write(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if r := <-done; !r.OK() {
		t.Fatalf("the first ping: %s", r.Describe())
	}
	for i := 0; i < expect.MissesBeforeAdapting; i++ {
		id, _, err := s.Request(ctx, spec.MethodPing, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.read()
		if obs := s.WaitFor(ctx, expect.Options{Timeout: 20 * time.Millisecond}, expect.AnyResponse(id)); obs.Status != expect.TimedOut {
			t.Fatalf("an unanswered ping ended %s", obs.Status)
		}
	}

	late := expect.MinAdapted + expect.MinAdapted/2
	answerLate := func(id string) {
		line := p.read()
		if !strings.Contains(line, `"id":`+id) {
			t.Fatalf("the session sent %s, want the request with id %s", line, id)
		}
		go func() {
			time.Sleep(late) // the target's work, not synchronisation
			p.write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]}}`)
		}()
	}

	// The control: a ping gets the Health's shortened deadline.
	r := s.Call(ctx, spec.MethodPing, nil)
	p.read()
	if r.Observed.Status != expect.TimedOut || !strings.Contains(r.Observed.Actual, "the deadline was") {
		t.Fatalf("the control: an unanswered ping ended %s (%s); want a timeout at the Health's shortened deadline", r.Observed.Status, r.Observed.Actual)
	}

	go func() { done <- s.Call(ctx, spec.MethodToolsCall, map[string]any{"name": "slow"}) }()
	answerLate("5")
	if r := <-done; !r.OK() {
		t.Errorf("a tools/call answered after %v: %s; want the answer, within the 10s asked", late, r.Describe())
	}

	id, _, err := s.Request(ctx, spec.MethodTasksResult, map[string]any{"taskId": "t1"})
	if err != nil {
		t.Fatal(err)
	}
	answerLate(id.String())
	if obs := s.WaitFor(ctx, expect.Options{}, expect.AnyResponse(id)); !obs.OK() {
		t.Errorf("a tasks/result answered after %v ended %s (%s); want the answer", late, obs.Status, obs.Actual)
	}

}
