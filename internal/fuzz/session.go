package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	hsession "github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// maxEventBytes bounds the bytes one transcript event keeps.
const maxEventBytes = 1 << 20

// session is one live target instance driven by the runner.
type session struct {
	v      spec.Version
	conn   conn.Conn
	judge  *oracle.Judge
	start  time.Time
	wait   time.Duration
	probes int
	// startup is the start-up allowance (Config.StartupTimeout): until the
	// instance has said anything (heard), a wait lasts at least that long,
	// and ends early only when ctx does (see within and recv).
	startup time.Duration
	heard   bool
	ctx     context.Context
	// probe is the liveness probe with its id cut out: probe[0] + id +
	// probe[1] is one line.
	probe  [2][]byte
	events []event // of the current exec (and the handshake)
	buf    []byte  // the last write of an exec: the input's end and the probe
}

// event is one transcript entry, kept as the bytes themselves: input chunks
// and received frames are never modified, so recording costs no copy, and
// the bytes become reports.WireEvents only when a finding or a replay needs
// them (transcript).
type event struct {
	at     time.Duration
	dir    reports.Direction
	data   []byte
	note   string
	http   *reports.HTTPInfo
	status int
}

// maxKeptEvents bounds the event array a session keeps between execs (it
// is cleared after each one; a larger one is dropped).
const maxKeptEvents = 1024

// reset forgets the events of the previous exec.
func (s *session) reset() {
	if cap(s.events) > maxKeptEvents {
		s.events = nil
		return
	}
	clear(s.events)
	s.events = s.events[:0]
}

// transcript renders the recorded events as the reports model's wire
// events.
func (s *session) transcript() []reports.WireEvent {
	out := make([]reports.WireEvent, 0, len(s.events))
	for _, e := range s.events {
		ev := reports.WireEvent{Offset: e.at, Direction: e.dir, Note: e.note, HTTP: e.http}
		if e.dir != reports.Note {
			b := e.data
			if len(b) > maxEventBytes {
				cut := fmt.Sprintf("%d bytes; the transcript keeps the first %d (the finding's input file has them all)", len(b), maxEventBytes)
				if ev.Note != "" {
					cut = ev.Note + "; " + cut
				}
				ev.Note, b = cut, b[:maxEventBytes]
			}
			ev.Raw, ev.Base64 = reports.RawBytes(b)
		}
		if e.status != 0 {
			ev.HTTP = &reports.HTTPInfo{Status: e.status}
		}
		out = append(out, ev)
	}
	return out
}

// execOutcome is what one input did.
type execOutcome struct {
	obs []oracle.Observation
	// dead means the instance must not be used again (it crashed, hung,
	// flooded, or its stdin was closed).
	dead bool
	// answered lists the methods of requests that got an answer.
	answered []string
	// recycle means the instance is fine but its judge remembers too many
	// ids (oracle.MaxJudgeIDs): the runner should start a new one.
	recycle bool
	// slow means the probe was answered only after the liveness wait ran
	// out, within the confirmation window (conn.HangConfirm): no hang, but a
	// sign of a slow target or a busy machine.
	slow bool
}

// endsIncomplete reports whether the last non-blank line of the input is
// the start of a JSON value that the line ends before it is complete
// (a truncated message), as opposed to a whole value or bytes that are no
// JSON at all.
func endsIncomplete(in mutate.Input) bool {
	b := bytes.TrimRight(bytes.Join(in.Chunks, nil), " \t\r\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return false
	}
	var v json.RawMessage
	return errors.Is(json.NewDecoder(bytes.NewReader(b)).Decode(&v), io.ErrUnexpectedEOF)
}

// openSession starts an instance and, unless bare, performs the handshake
// (initialize, then notifications/initialized), or in a stateless version
// the contact probe (see contact).
// wait is the liveness deadline, startup the start-up allowance (0:
// DefaultStartupTimeout): the instance's first wait, the handshake or a
// bare instance's first exchange, lasts up to the longer of the two, since
// a process started on a busy machine may take many seconds to say
// anything; ctx ends that wait early (the campaign is over), and bounds
// the start itself.
func openSession(ctx context.Context, t conn.Target, v spec.Version, wait, startup time.Duration, bare bool) (*session, error) {
	c, err := t.Start(ctx)
	if err != nil {
		return nil, err
	}
	if startup <= 0 {
		startup = DefaultStartupTimeout
	}
	s := &session{v: v, conn: c, judge: oracle.NewJudge(v), start: time.Now(), wait: wait, startup: startup, ctx: ctx}
	if pre, post, ok := bytes.Cut(mutate.Line(gen.PingFor(v, "\x00")), []byte(`\u0000`)); ok {
		s.probe = [2][]byte{pre, post}
	}
	hc, isHTTP := c.(*conn.HTTPConn)
	s.judge.HTTP = isHTTP
	if bare || v.Era() == spec.Stateless {
		if isHTTP {
			hc.Negotiated(v)
		}
		if !bare && v.Era() == spec.Stateless {
			// No handshake, but the instance answers one probe
			// (server/discover) before the campaign uses it: from then
			// on it has said something, and an input it never answers
			// is judged by the liveness wait rather than the start-up
			// allowance (a go-sdk server that swallows the probe into
			// a truncated line cost a minute per input otherwise).
			if err := s.contact(t.Describe()); err != nil {
				s.close()
				return nil, err
			}
		}
		return s, nil
	}
	if err := s.send(mutate.Line(gen.InitializeRequest(v, "mcpcheck-init"))); err != nil {
		s.close()
		return nil, fmt.Errorf("fuzz: %s: cannot send initialize: %w", t.Describe(), err)
	}
	res, err := s.awaitWithin(`"mcpcheck-init"`, wait)
	if err != nil {
		tail := c.StderrTail()
		s.close()
		return nil, fmt.Errorf("fuzz: %s did not answer initialize (%s)%s; check that it is an MCP server speaking %s%s%s", t.Describe(), s.noAnswer(err), s.sent(), v, s.over(), stderrEnds(tail))
	}
	if res == nil {
		// An error: there is no session to fuzz (a server out of
		// sessions, say).
		s.close()
		return nil, fmt.Errorf("fuzz: %s refused initialize: %s", t.Describe(), oracle.QuoteStart(s.lastReceived()))
	}
	if isHTTP {
		hc.Negotiated(v)
	}
	if err := s.send(mutate.Line(gen.InitializedNotification())); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *session) close() { _ = s.conn.Close() }

// contact sends the liveness probe (server/discover in a stateless
// version, which has no initialize) and waits for its answer, a result or
// an error: proof that the target answers requests at all, the handshake
// of a session that has none.
//
// The answer also tells the target's era, as a dual-era client's probe
// does (hsession.ProbeEra): a result or a modern error (-32020, -32021,
// -32022) is a server that speaks the stateless era; any other error,
// also one with a null id, is a legacy server's, and contact returns a
// *NotSpokenError.
func (s *session) contact(target string) error {
	const id = "mcpcheck-contact"
	if err := s.send(s.probeLine(id)); err != nil {
		return fmt.Errorf("fuzz: %s: cannot send %s: %w", target, gen.ProbeMethod(s.v), err)
	}
	m, err := s.awaitAnswer(`"`+id+`"`, s.wait, true)
	if err != nil {
		e := fmt.Errorf("fuzz: %s did not answer %s (%s)%s; check that it is an MCP server speaking %s%s%s", target, gen.ProbeMethod(s.v), s.noAnswer(err), s.sent(), s.v, s.over(), stderrEnds(s.conn.StderrTail()))
		if errors.Is(err, conn.ErrDeadline) {
			return silentError{e}
		}
		return e
	}
	if m.Error != nil && s.v.Era() == spec.Stateless && !hsession.ModernProbeError(m.Error.Code) {
		return &NotSpokenError{Version: s.v, Saw: fmt.Sprintf("%s was answered with error %d (%s), a legacy server's answer", gen.ProbeMethod(s.v), m.Error.Code, oracle.QuoteStart([]byte(m.Error.Message)))}
	}
	return nil
}

// NotSpokenError says that a target does not speak the campaign's
// stateless version: its server/discover probe got a legacy server's
// answer. Fuzzing it by that version's rules would make violations of
// answers the target never meant for it.
type NotSpokenError struct {
	Version spec.Version
	Saw     string // what the probe got, in words
}

func (e *NotSpokenError) Error() string {
	return fmt.Sprintf("the target does not speak %s: %s", e.Version, e.Saw)
}

// silentError is contact's error when the target said nothing in time:
// a legacy server may ignore a request it does not know before
// initialize, so a Config.NewestSpoken campaign tries a legacy version.
type silentError struct{ error }

func (e silentError) Unwrap() error { return e.error }

// sent says what the target sent last, for a message: "; it sent: ...",
// or "" when it sent nothing.
func (s *session) sent() string {
	if b := s.lastReceived(); len(b) > 0 {
		return "; it sent: " + oracle.QuoteStart(b)
	}
	return ""
}

// noAnswer says why a handshake got no answer: err, or for ErrDeadline
// "no answer within D" (with, when the instance had said nothing yet, that
// D was its start-up allowance).
func (s *session) noAnswer(err error) string {
	switch {
	case errors.Is(err, conn.ErrDeadline) && !s.heard:
		return "no answer within " + s.within(s.wait).String() + ", its start-up allowance: it never said anything; a target that takes longer to start needs a longer --startup-timeout"
	case errors.Is(err, conn.ErrDeadline):
		return "no answer within " + s.wait.String()
	case errors.Is(err, errStopped):
		return fmt.Sprintf("it said nothing in the %s it had before the campaign ended (its time was up, or it was cancelled), within a start-up allowance of %s", time.Since(s.start).Round(time.Millisecond), s.within(s.wait))
	}
	return strings.TrimPrefix(err.Error(), "fuzz: ")
}

// stderrEnds quotes the end of a target's stderr for a message:
// "; stderr ends: ...", or "" when it wrote none.
func stderrEnds(tail []byte) string {
	if len(bytes.TrimSpace(tail)) == 0 {
		return ""
	}
	return "; stderr ends: " + oracle.QuoteStart(tail)
}

// over names the session's transport for a message: " over stdio" or
// " over HTTP".
func (s *session) over() string {
	if s.judge.HTTP {
		return " over HTTP"
	}
	return " over stdio"
}

// lastReceived is the last frame recorded.
func (s *session) lastReceived() []byte {
	for i := len(s.events) - 1; i >= 0; i-- {
		if s.events[i].dir == reports.Received {
			return s.events[i].data
		}
	}
	return nil
}

func (s *session) note(text string) {
	s.events = append(s.events, event{at: time.Since(s.start), dir: reports.Note, note: text})
}

// record notes bytes sent or received; b must not be modified afterwards.
func (s *session) record(dir reports.Direction, b []byte) {
	s.events = append(s.events, event{at: time.Since(s.start), dir: dir, data: b})
}

func (s *session) send(b []byte) error {
	s.judge.Sent(b)
	s.record(reports.Sent, b)
	return s.conn.Send(b)
}

// within is how long a wait that starts now may last: wait once the
// instance has said something, and until then its start-up allowance when
// that is longer.
func (s *session) within(wait time.Duration) time.Duration {
	if s.heard {
		return wait
	}
	return max(wait, s.startup)
}

// startSlice is how often a start-up wait looks whether its context ended.
const startSlice = 250 * time.Millisecond

// errStopped ends a start-up wait whose context ended first.
var errStopped = errors.New("the campaign ended (its time was up, or it was cancelled) before the target said anything")

// recv is Conn.Recv, except that a wait before the instance has said
// anything (a start-up wait, which may last a minute) also ends, with
// errStopped, once s.ctx is done: a campaign whose time is up, or that is
// cancelled, does not wait out a slow start, nor blames the target for it.
func (s *session) recv(deadline time.Time) (conn.Frame, error) {
	if s.heard || s.ctx == nil {
		return s.conn.Recv(deadline)
	}
	for {
		if s.ctx.Err() != nil {
			return conn.Frame{}, errStopped
		}
		d := deadline
		if next := time.Now().Add(startSlice); next.Before(d) {
			d = next
		}
		f, err := s.conn.Recv(d)
		if errors.Is(err, conn.ErrDeadline) && time.Now().Before(deadline) {
			continue
		}
		return f, err
	}
}

// await reads frames until the request with wire id key is answered.
func (s *session) await(key string) (json.RawMessage, error) {
	return s.awaitWithin(key, s.wait)
}

// awaitWithin reads frames until the request with wire id key is
// answered, for at most wait (within: the start-up allowance while the
// instance has said nothing; once it has, wait from then).
func (s *session) awaitWithin(key string, wait time.Duration) (json.RawMessage, error) {
	m, err := s.awaitAnswer(key, wait, false)
	return m.Result, err
}

// awaitAnswer is awaitWithin returning the whole answer; with nullError an
// error response with a null id answers too (a target that refuses the
// request without naming it, as a legacy HTTP server refuses a
// server/discover outside a session).
func (s *session) awaitAnswer(key string, wait time.Duration, nullError bool) (jsonrpc.Message, error) {
	deadline := time.Now().Add(s.within(wait))
	for i := 0; i < conn.MaxFramesPerExec; i++ {
		starting := !s.heard
		f, err := s.recv(deadline)
		if err != nil {
			return jsonrpc.Message{}, err
		}
		s.recordFrame(f)
		if starting {
			deadline = earliest(deadline, time.Now().Add(wait))
		}
		res := s.judge.Received(f)
		s.answerRequests(res.Requests)
		for _, k := range res.Answered {
			if k == key {
				return jsonrpc.Decode(f.Data), nil
			}
		}
		if nullError {
			if m := jsonrpc.Decode(f.Data); m.Shape == jsonrpc.KindErrorResponse && m.IDNull {
				return m, nil
			}
		}
	}
	return jsonrpc.Message{}, errors.New("the target flooded its output")
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
			b = mutate.Line(b)
			s.record(reports.Sent, b)
			_ = s.conn.Send(b)
		}
	}
}

// exec sends one input, then (unless the input closes stdin) a liveness
// probe, and judges everything the target writes until the probe is
// answered. The end of the input and the probe go out in one write.
//
// Nothing is waited for beyond the probe's answer: a response the target
// writes after it (to a slow request of this input) is read with the next
// input's frames, and the judge attributes it to the input that sent the
// request (Observation.origin) so that the campaign reproduces that one.
func (s *session) exec(in mutate.Input) (out execOutcome) {
	s.judge.Seq++
	// suspected is when the liveness wait ran out with the probe still
	// unanswered; the probe then gets the confirmation window (see
	// conn.HangConfirm) before the exec is called a hang.
	var suspected time.Time
	// sampler watches a stdio target from then on (conn.BusySampler).
	var sampler *conn.BusySampler
	busyNoted := false
	// misnumbered counts the responses the target wrote under ids no
	// request awaits (response/id-unknown) after the probe went out: each
	// an answer, so a sign of life, whatever became of the probe's own id.
	misnumbered := 0
	defer func() {
		sampler.Stop()
		if !suspected.IsZero() && !out.dead {
			out.slow = true
			s.note(fmt.Sprintf("the target answered %v after the liveness wait of %v ran out: slow, or starved by a busy machine, but not hung", time.Since(suspected).Round(time.Millisecond), s.wait))
		}
	}()
	registered := false
	// register tells the judge what the input sent. It runs once the
	// input is written, so that decoding it overlaps with the target's
	// work, and always before the first frame is judged.
	register := func() {
		if registered {
			return
		}
		registered = true
		if len(in.Chunks) == 1 {
			s.judge.Sent(in.Chunks[0])
		} else {
			s.judge.Sent(in.Bytes())
		}
	}
	chunks := in.Chunks
	var last []byte // sent with the probe
	if in.HTTP == nil && !in.CloseAfter && len(chunks) > 0 {
		chunks, last = chunks[:len(chunks)-1], chunks[len(chunks)-1]
	}
	for _, c := range chunks {
		s.record(reports.Sent, c)
		if err := s.conn.Send(c); err != nil {
			return s.sendFailed(out, err)
		}
	}
	if in.HTTP != nil {
		register() // the HTTP request's answers may come with its reply
		if hc, ok := s.conn.(*conn.HTTPConn); ok {
			q := in.HTTP
			s.record(reports.Sent, q.Body)
			ev := &s.events[len(s.events)-1]
			ev.http, ev.note = &reports.HTTPInfo{Method: q.Method, Headers: headerMap(q.Header)}, httpNote(q)
			s.judge.Latin1 = oracle.DeclaresForeignCharset(q.Header)
			s.judge.Sent(q.Body)
			s.judge.Latin1 = false
			if err := hc.DoHTTP(*q); err != nil {
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
		w := s.buf[:0]
		if len(last) > maxKeptWrite {
			// A large chunk goes out alone rather than copied.
			s.record(reports.Sent, last)
			if err := s.conn.Send(last); err != nil {
				return s.sendFailed(out, err)
			}
		} else if len(last) > 0 {
			s.record(reports.Sent, last)
			w = append(w, last...)
		}
		if c, ok := in.LastByte(); ok && c != '\n' {
			s.record(reports.Sent, newline)
			w = append(w, '\n')
		}
		s.probes++
		id := "mcpcheck-probe-" + strconv.Itoa(s.probes)
		probeKey = `"` + id + `"`
		probe := s.probeLine(id)
		s.record(reports.Sent, probe)
		w = append(w, probe...)
		err := s.conn.Send(w)
		if cap(w) <= maxKeptWrite {
			s.buf = w[:0]
		}
		if err != nil {
			return s.sendFailed(out, err)
		}
		register() // the input's requests, then the probe, in the order written
		s.judge.Expect(probeKey, gen.ProbeMethod(s.v))
		if hc, ok := s.conn.(*conn.HTTPConn); ok {
			probeStream = hc.Last
			out.recycle = hc.Gets >= conn.MaxGetStreams || len(hc.Stray) >= conn.MaxStray
		}
	}
	register()
	// The first exchange of an instance that has said nothing yet (a bare
	// one, or a stateless one) is a start-up wait (within), until its
	// first frame: from then on the liveness deadline holds.
	waited := s.wait
	deadline := time.Now().Add(s.within(s.wait))
	for i := 0; ; i++ {
		if i == conn.MaxFramesPerExec {
			s.note("the target wrote more than " + strconv.Itoa(conn.MaxFramesPerExec) + " lines after one input; restarting it")
			out.dead = true
			return out
		}
		starting := !s.heard
		if starting {
			waited = s.within(s.wait)
		}
		f, err := s.recv(deadline)
		if err == nil && starting {
			deadline, waited = earliest(deadline, time.Now().Add(s.wait)), s.wait
		}
		switch {
		case errors.Is(err, errStopped):
			// Nothing is known of an instance the campaign stopped
			// waiting for before it said anything: no finding.
			s.note("stopped waiting for the fresh instance's first answer: " + err.Error())
			out.dead = true
			return out
		case errors.Is(err, conn.ErrClosed):
			if in.CloseAfter {
				s.note("the target closed its output after its stdin was closed")
				return out
			}
			return s.crashed(out)
		case errors.Is(err, conn.ErrDeadline):
			if in.CloseAfter {
				return out
			}
			if misnumbered > 0 {
				// The target answers, under ids that match nothing:
				// alive, and the response/id-unknown finding says what is
				// wrong. Its session is of no more use.
				s.note("no answer to the liveness probe under its id within " + waited.String() + ", but the target answered under an id no request awaits: alive, not hung; starting a fresh session")
				out.recycle = true
				return out
			}
			if s.heard && suspected.IsZero() {
				// A healthy target on a busy machine can miss the wait:
				// the probe gets the confirmation window before the
				// exec is called a hang.
				suspected = time.Now()
				deadline = suspected.Add(conn.HangConfirm(s.wait))
				sampler = conn.SampleBusy(s.conn)
				s.note(fmt.Sprintf("no answer to the liveness probe within %v; waiting %v more before calling it a hang", s.wait, conn.HangConfirm(s.wait)))
				continue
			}
			if busy, k, n := sampler.Computing(); busy && time.Since(suspected) < conn.MaxBusyConfirm(s.wait) {
				// Not blocked: computing, or starved by a busy machine.
				if !busyNoted {
					busyNoted = true
					s.note(fmt.Sprintf("no answer to the liveness probe within %v and %v more, but %s; waiting up to %v in all before calling it a hang", s.wait, conn.HangConfirm(s.wait), conn.BusyWhy(k, n), conn.MaxBusyConfirm(s.wait)))
				}
				deadline = time.Now().Add(conn.HangConfirm(s.wait))
				continue
			}
			what := waited.String()
			if !s.heard {
				what += " (a fresh instance's start-up allowance: it said nothing at all)"
			} else if !suspected.IsZero() {
				what += " and " + conn.HangConfirm(s.wait).String() + " more to confirm it"
				if _, k, n := sampler.Computing(); n > 0 && !busyNoted {
					what += fmt.Sprintf(" (the target ran or waited for a CPU in %d of %d samples: blocked)", k, n)
				}
				if busyNoted {
					what = s.wait.String() + " and " + time.Since(suspected).Round(time.Millisecond).String() + " more, running or waiting for a CPU all along (a loop that does not end, or a machine too busy to tell)"
				}
			}
			if s.heard && endsIncomplete(in) {
				what += "; the input's last line is an incomplete JSON value: a target that reads JSON values across line breaks, instead of one message per line, waits for its end and takes the probe for part of it"
			}
			s.note("no answer to the liveness probe within " + what)
			out.obs = append(out.obs, oracle.HangObservation(s.v, what))
			out.dead = true
			return out
		case err != nil:
			return s.crashed(out)
		}
		s.recordFrame(f)
		if probeKey != "" && s.judge.ProbeAnswered(f, probeKey) {
			out.recycle = out.recycle || s.judge.Full()
			return out
		}
		res := s.judgeFrame(f, &out)
		if probeKey != "" {
			misnumbered += misnumberedAnswers(res)
		}
		if misnumbered > 0 {
			// Checked after every frame: an answer under its right id
			// can bring the requests awaiting one down to the count.
			if s.judge.SettleMisnumberedProbe(probeKey, misnumbered) {
				// As many answers under unknown ids as requests awaiting
				// one, the probe among them: the probe's answer came,
				// misnumbered. Nothing more will come under its id.
				s.note(fmt.Sprintf("the target answered %d time(s) under ids no request awaits, as many as the requests awaiting an answer, the liveness probe among them: the probe's answer came, misnumbered; starting a fresh session", misnumbered))
				out.recycle = true
				return out
			}
		}
		if probeStream != "" && f.Stream == probeStream && f.HTTPStatus != 0 {
			// Any HTTP answer to the probe shows the target is alive; an
			// error status (404: the session is gone) says the session
			// is of no more use.
			out.recycle = out.recycle || f.HTTPStatus >= 400 || s.judge.Full()
			return out
		}
		for i, k := range res.Answered {
			if k == probeKey {
				if len(res.Obs) == 0 && len(res.Answered) == 1 {
					s.judge.RememberProbe(f, probeKey)
				}
				out.recycle = out.recycle || f.HTTPStatus >= 400 || s.judge.Full()
				return out
			}
			if m := res.Methods[i]; m != "" {
				out.answered = append(out.answered, m)
			}
		}
	}
}

// misnumberedAnswers counts the responses res found whose id answers no
// request awaiting an answer (response/id-unknown).
func misnumberedAnswers(res oracle.FrameResult) int {
	n := 0
	for _, o := range res.Obs {
		if o.Check == "response/id-unknown" {
			n++
		}
	}
	return n
}

// drain is the grace read of an instance about to be closed: answers the
// target wrote after the last probe's answer (to slower requests of the
// last inputs) are judged too. It sends one more probe and judges
// everything up to its answer, which an in-order target writes after
// anything the earlier inputs caused; a target that does not answer it
// within the liveness deadline is only noted (its last exec showed it
// alive).
func (s *session) drain() execOutcome {
	var out execOutcome
	s.probes++
	id := "mcpcheck-probe-" + strconv.Itoa(s.probes)
	key := `"` + id + `"`
	probe := s.probeLine(id)
	s.judge.Expect(key, gen.ProbeMethod(s.v))
	s.note("grace read before closing: one more probe, to judge what came after the last one")
	s.record(reports.Sent, probe)
	if s.conn.Send(probe) != nil {
		return out
	}
	stream := ""
	if hc, ok := s.conn.(*conn.HTTPConn); ok {
		stream = hc.Last
	}
	deadline := time.Now().Add(s.wait)
	misnumbered := 0
	for i := 0; i < conn.MaxFramesPerExec; i++ {
		f, err := s.conn.Recv(deadline)
		if err != nil {
			s.note("the grace read ended: " + err.Error())
			return out
		}
		s.recordFrame(f)
		res := s.judgeFrame(f, &out)
		misnumbered += misnumberedAnswers(res)
		if misnumbered > 0 && s.judge.SettleMisnumberedProbe(key, misnumbered) {
			// The grace probe's answer, misnumbered (see exec).
			return out
		}
		for i, k := range res.Answered {
			if k == key {
				return out
			}
			if m := res.Methods[i]; m != "" {
				out.answered = append(out.answered, m)
			}
		}
		if stream != "" && f.Stream == stream && f.HTTPStatus != 0 {
			return out
		}
	}
	return out
}

// lateAnswers reads and judges what the target writes for at most grace,
// ending early once no request the session sent awaits an answer: the
// last read of a reproduction, for answers that come after the probes'.
func (s *session) lateAnswers(grace time.Duration) execOutcome {
	var out execOutcome
	if s.judge.Pending.Len() == 0 {
		return out
	}
	s.note("waiting up to " + grace.String() + " for the answers still owed")
	deadline := time.Now().Add(grace)
	for i := 0; i < conn.MaxFramesPerExec && s.judge.Pending.Len() > 0; i++ {
		f, err := s.conn.Recv(deadline)
		if err != nil {
			return out
		}
		s.recordFrame(f)
		s.judgeFrame(f, &out)
	}
	return out
}

// judgeFrame judges a frame the target wrote, adds what it showed to out and
// answers the requests it carried.
func (s *session) judgeFrame(f conn.Frame, out *execOutcome) oracle.FrameResult {
	res := s.judge.Received(f)
	out.obs = append(out.obs, res.Obs...)
	s.answerRequests(res.Requests)
	return res
}

var newline = []byte{'\n'}

// maxKeptWrite bounds the write buffer a session keeps between execs.
const maxKeptWrite = 64 << 10

// probeLine is the liveness probe with the given id, as one line.
func (s *session) probeLine(id string) []byte {
	if s.probe[0] == nil {
		return mutate.Line(gen.PingFor(s.v, id))
	}
	b := make([]byte, 0, len(s.probe[0])+len(id)+len(s.probe[1]))
	return append(append(append(b, s.probe[0]...), id...), s.probe[1]...)
}

// sendFailed turns a failed write into an outcome: a target that stopped
// reading is a hang, one that went away a crash.
func (s *session) sendFailed(out execOutcome, err error) execOutcome {
	if errors.Is(err, conn.ErrStalled) {
		s.note(err.Error())
		out.obs = append(out.obs, oracle.Observation{Kind: reports.FindingHang, Check: "hang/stdin",
			Message: "the target stopped reading its input: " + err.Error()})
		out.dead = true
		return out
	}
	return s.crashed(out)
}

func (s *session) crashed(out execOutcome) execOutcome {
	exit := s.conn.Exit(time.Now().Add(2 * time.Second))
	s.note("the target went away: " + exit.String())
	out.obs = append(out.obs, oracle.CrashObservation(exit, s.conn.StderrTail()))
	out.dead = true
	return out
}

// listTools asks the target for its tools (first page), for the tool-call
// mutator. Failures leave the list empty.
func (s *session) listTools() []mutate.Tool {
	req := gen.Request(s.v, "mcpcheck-tools", spec.MethodToolsList, nil)
	if err := s.send(mutate.Line(gen.Marshal(req))); err != nil {
		return nil
	}
	res, err := s.await(`"mcpcheck-tools"`)
	if err != nil || res == nil {
		return nil
	}
	var list struct {
		Tools []mutate.Tool `json:"tools"`
	}
	if json.Unmarshal(res, &list) != nil {
		return nil
	}
	return list.Tools
}

// recordFrame records a received frame, with its HTTP status when it came
// over HTTP: the instance has said something (heard).
func (s *session) recordFrame(f conn.Frame) {
	s.heard = true
	s.events = append(s.events, event{at: time.Since(s.start), dir: reports.Received, data: f.Data, status: f.HTTPStatus, note: f.Problem})
}

// earliest is the earlier of two times.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
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

func httpNote(q *conn.HTTPRequest) string {
	note := "hostile HTTP request"
	if len(q.Omit) > 0 {
		note += fmt.Sprintf("; default headers left out: %v", q.Omit)
	}
	if q.Session != "" {
		note += "; session: " + q.Session
	}
	if q.BodyChunk > 0 {
		note += fmt.Sprintf("; body trickled %d bytes at a time, %v apart", q.BodyChunk, q.BodyDelay)
	}
	if q.DeclaredLength != 0 {
		note += fmt.Sprintf("; Content-Length %d declared for a body of %d bytes", q.DeclaredLength, len(q.Body))
	}
	return note
}
