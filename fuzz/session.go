package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// maxEventBytes bounds the bytes one transcript event keeps.
const maxEventBytes = 1 << 20

// maxFramesPerExec bounds the frames read after one input; a target that
// writes more is treated as flooding and restarted.
const maxFramesPerExec = 10000

// session is one live target instance driven by the runner.
type session struct {
	v      spec.Version
	conn   Conn
	judge  *judge
	start  time.Time
	wait   time.Duration
	probes int
	events []reports.WireEvent // of the current exec (and the handshake)
}

// execOutcome is what one input did.
type execOutcome struct {
	obs []Observation
	// dead means the instance must not be used again (it crashed, hung,
	// flooded, or its stdin was closed).
	dead bool
	// answered lists the methods of requests that got an answer.
	answered []string
}

// openSession starts an instance and, for stateful versions unless bare,
// performs the handshake (initialize, then notifications/initialized).
func openSession(ctx context.Context, t Target, v spec.Version, wait time.Duration, bare bool) (*session, error) {
	conn, err := t.Start(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{v: v, conn: conn, judge: newJudge(v), start: time.Now(), wait: wait}
	hc, isHTTP := conn.(*httpConn)
	s.judge.http = isHTTP
	if bare || v.Era() == spec.Stateless {
		if isHTTP {
			hc.negotiated(v)
		}
		return s, nil
	}
	if err := s.send(line(initializeRequest(v, "mcpcheck-init"))); err != nil {
		s.close()
		return nil, fmt.Errorf("fuzz: %s: cannot send initialize: %w", t.Describe(), err)
	}
	if _, err := s.awaitWithin(`"mcpcheck-init"`, handshakeWait(wait)); err != nil {
		tail := conn.StderrTail()
		s.close()
		return nil, fmt.Errorf("fuzz: %s did not answer initialize (%v); check that it is an MCP server speaking %s over stdio; stderr ends: %s", t.Describe(), err, v, quoteStart(tail))
	}
	if isHTTP {
		hc.negotiated(v)
	}
	if err := s.send(line(initializedNotification())); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *session) close() { _ = s.conn.Close() }

func (s *session) note(text string) {
	s.events = append(s.events, reports.WireEvent{Offset: time.Since(s.start), Direction: reports.Note, Note: text})
}

func (s *session) record(dir reports.Direction, b []byte) {
	ev := reports.WireEvent{Offset: time.Since(s.start), Direction: dir}
	if len(b) > maxEventBytes {
		ev.Note = fmt.Sprintf("%d bytes; the transcript keeps the first %d (the finding's input file has them all)", len(b), maxEventBytes)
		b = b[:maxEventBytes]
	}
	ev.Raw, ev.Base64 = reports.RawBytes(b)
	s.events = append(s.events, ev)
}

func (s *session) send(b []byte) error {
	s.judge.sent(b)
	s.record(reports.Sent, b)
	return s.conn.Send(b)
}

// handshakeWait is how long initialize may take: the liveness deadline,
// but never less than DefaultWait, so that a short probe deadline does not
// turn a slow start into a failed session.
func handshakeWait(wait time.Duration) time.Duration {
	if wait < DefaultWait {
		return DefaultWait
	}
	return wait
}

// await reads frames until the request with wire id key is answered.
func (s *session) await(key string) (json.RawMessage, error) {
	return s.awaitWithin(key, s.wait)
}

func (s *session) awaitWithin(key string, wait time.Duration) (json.RawMessage, error) {
	deadline := time.Now().Add(wait)
	for i := 0; i < maxFramesPerExec; i++ {
		f, err := s.conn.Recv(deadline)
		if err != nil {
			return nil, err
		}
		s.recordFrame(f)
		res := s.judge.received(f)
		s.answerRequests(res.requests)
		for _, k := range res.answered {
			if k == key {
				m := jsonrpc.Decode(f.Data)
				return m.Result, nil
			}
		}
	}
	return nil, errors.New("the target flooded its output")
}

// answerRequests replies to requests a stateful target sends: ping gets an
// empty result, anything else "method not found" (mcpcheck declares no
// client capabilities).
func (s *session) answerRequests(reqs []jsonrpc.Message) {
	for _, r := range reqs {
		var b []byte
		if r.Method == spec.MethodPing {
			b, _ = jsonrpc.NewResponse(r.ID, map[string]any{})
		} else {
			b, _ = jsonrpc.NewErrorResponse(r.ID, jsonrpc.MethodNotFound, "mcpcheck-fuzz declares no client capabilities", nil)
		}
		if b != nil {
			s.record(reports.Sent, line(b))
			_ = s.conn.Send(line(b))
		}
	}
}

// exec sends one input, then (unless the input closes stdin) a liveness
// probe, and judges everything the target writes until the probe is
// answered.
func (s *session) exec(in Input) execOutcome {
	var out execOutcome
	s.judge.seq++
	s.judge.sent(in.Bytes())
	for _, c := range in.Chunks {
		s.record(reports.Sent, c)
		if err := s.conn.Send(c); err != nil {
			return s.sendFailed(out, err)
		}
	}
	if in.HTTP != nil {
		if hc, ok := s.conn.(*httpConn); ok {
			q := in.HTTP
			s.record(reports.Sent, q.Body)
			ev := &s.events[len(s.events)-1]
			ev.HTTP, ev.Note = &reports.HTTPInfo{Method: q.Method, Headers: headerMap(q.Header)}, httpNote(q)
			s.judge.sent(q.Body)
			if err := hc.doHTTP(*q); err != nil {
				return s.crashed(out)
			}
		} else {
			s.note("skipped an HTTP request: the target is not an HTTP target")
		}
	}
	probeKey, probeStream := "", ""
	if in.CloseAfter {
		_ = s.conn.CloseSend()
		s.note("closed the target's stdin")
		out.dead = true
	} else {
		if b := in.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			if err := s.conn.Send([]byte{'\n'}); err != nil {
				return s.sendFailed(out, err)
			}
			s.record(reports.Sent, []byte{'\n'})
		}
		s.probes++
		id := "mcpcheck-probe-" + itoa(s.probes)
		probeKey = `"` + id + `"`
		if err := s.send(line(pingFor(s.v, id))); err != nil {
			return s.sendFailed(out, err)
		}
		if hc, ok := s.conn.(*httpConn); ok {
			probeStream = hc.last
		}
	}
	deadline := time.Now().Add(s.wait)
	for i := 0; ; i++ {
		if i == maxFramesPerExec {
			s.note("the target wrote more than " + itoa(maxFramesPerExec) + " lines after one input; restarting it")
			out.dead = true
			return out
		}
		f, err := s.conn.Recv(deadline)
		switch {
		case errors.Is(err, ErrClosed):
			if in.CloseAfter {
				s.note("the target closed its output after its stdin was closed")
				return out
			}
			return s.crashed(out)
		case errors.Is(err, ErrDeadline):
			if in.CloseAfter {
				return out
			}
			s.note("no answer to the liveness probe within " + s.wait.String())
			out.obs = append(out.obs, hangObservation(s.v, s.wait.String()))
			out.dead = true
			return out
		case err != nil:
			return s.crashed(out)
		}
		s.recordFrame(f)
		res := s.judge.received(f)
		out.obs = append(out.obs, res.obs...)
		s.answerRequests(res.requests)
		if probeStream != "" && f.Stream == probeStream && f.HTTPStatus != 0 {
			return out // any HTTP answer to the probe shows the target is alive
		}
		for _, k := range res.answered {
			if k == probeKey {
				return out
			}
			if m := s.judge.methods[k]; m != "" {
				out.answered = append(out.answered, m)
			}
		}
	}
}

// sendFailed turns a failed write into an outcome: a target that stopped
// reading is a hang, one that went away a crash.
func (s *session) sendFailed(out execOutcome, err error) execOutcome {
	if errors.Is(err, ErrStalled) {
		s.note(err.Error())
		out.obs = append(out.obs, Observation{Kind: reports.FindingHang, Check: "hang/stdin",
			Message: "the target stopped reading its input: " + err.Error()})
		out.dead = true
		return out
	}
	return s.crashed(out)
}

func (s *session) crashed(out execOutcome) execOutcome {
	exit := s.conn.Exit(time.Now().Add(2 * time.Second))
	s.note("the target went away: " + exit.String())
	out.obs = append(out.obs, crashObservation(exit, s.conn.StderrTail()))
	out.dead = true
	return out
}

// listTools asks the target for its tools (first page), for the tool-call
// mutator. Failures leave the list empty.
func (s *session) listTools() []Tool {
	req := request(s.v, "mcpcheck-tools", spec.MethodToolsList, nil)
	if err := s.send(line(marshal(req))); err != nil {
		return nil
	}
	res, err := s.await(`"mcpcheck-tools"`)
	if err != nil || res == nil {
		return nil
	}
	var list struct {
		Tools []Tool `json:"tools"`
	}
	if json.Unmarshal(res, &list) != nil {
		return nil
	}
	return list.Tools
}

// recordFrame records a received frame, with its HTTP status when it came
// over HTTP.
func (s *session) recordFrame(f Frame) {
	s.record(reports.Received, f.Data)
	if f.HTTPStatus != 0 {
		s.events[len(s.events)-1].HTTP = &reports.HTTPInfo{Status: f.HTTPStatus}
	}
	if f.Problem != "" {
		s.events[len(s.events)-1].Note = f.Problem
	}
}

func headerMap(pairs [][2]string) map[string][]string {
	if len(pairs) == 0 {
		return nil
	}
	out := map[string][]string{}
	for _, kv := range pairs {
		out[kv[0]] = append(out[kv[0]], kv[1])
	}
	return out
}

func httpNote(q *HTTPRequest) string {
	note := "hostile HTTP request"
	if len(q.Omit) > 0 {
		note += fmt.Sprintf("; default headers left out: %v", q.Omit)
	}
	if q.Session != "" {
		note += "; session: " + q.Session
	}
	return note
}
