package fuzz

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// lateConn holds back the answers to liveness probes: released after the
// session has seen one ErrDeadline while a probe answer was held (a target
// whose answer is late, as on a starved machine), or never (a hung one).
type lateConn struct {
	conn.Conn
	never    bool
	held     []conn.Frame
	released bool
	// deadlines counts the ErrDeadlines handed to the session while an
	// answer was held.
	deadlines int
}

func (c *lateConn) Recv(deadline time.Time) (conn.Frame, error) {
	if c.released && len(c.held) > 0 {
		f := c.held[0]
		c.held = c.held[1:]
		return f, nil
	}
	for {
		f, err := c.Conn.Recv(deadline)
		if errors.Is(err, conn.ErrDeadline) && len(c.held) > 0 {
			c.deadlines++
			if !c.never {
				c.released = true
			}
			return f, err
		}
		if err != nil {
			return f, err
		}
		if bytes.Contains(f.Data, []byte(`"mcpcheck-probe-`)) {
			c.released = false
			c.held = append(c.held, f)
			continue
		}
		return f, nil
	}
}

type lateTarget struct {
	*inprocTarget
	never bool
	conn  *lateConn
}

func (t *lateTarget) Start(ctx context.Context) (conn.Conn, error) {
	c, err := t.inprocTarget.Start(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &lateConn{Conn: c, never: t.never}
	return t.conn, nil
}

// TestLateProbeAnswerIsNotAHang: a target whose answer to the liveness
// probe arrives only after the liveness wait ran out (a healthy target
// starved by a busy machine) gets the confirmation window and is not
// called hung; the exec says it was slow, and the transcript says why
// the wait went on. A target that never answers is still a hang, and the
// finding says the confirmation window was waited out too.
func TestLateProbeAnswerIsNotAHang(t *testing.T) {
	v := spec.V20250618
	const wait = 200 * time.Millisecond
	in, err := mutate.MakeInput(v, "framing/empty-lines", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		never bool
	}{{"late", false}, {"never", true}} {
		t.Run(tc.name, func(t *testing.T) {
			tg := &lateTarget{inprocTarget: inprocHelper(v, ""), never: tc.never}
			s, err := openSession(context.Background(), tg, v, wait, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			s.reset()
			out := s.exec(in)
			if tg.conn.deadlines == 0 {
				t.Fatalf("the probe's answer was never held past a deadline: the test did not make the answer late")
			}
			var hangs []oracle.Observation
			for _, o := range out.obs {
				if o.Kind == reports.FindingHang {
					hangs = append(hangs, o)
				}
			}
			notes := transcriptNotes(s)
			if !tc.never {
				if len(hangs) > 0 || out.dead {
					t.Fatalf("a probe answered within the confirmation window was called a hang: %+v (dead %v)", hangs, out.dead)
				}
				if !out.slow {
					t.Errorf("the exec did not say the probe was answered late")
				}
				if !strings.Contains(notes, "waiting") || !strings.Contains(notes, "not hung") {
					t.Errorf("the transcript does not say the wait went on and why; notes:\n%s", notes)
				}
				return
			}
			if len(hangs) != 1 || !out.dead {
				t.Fatalf("a probe never answered: want one hang and a dead instance, got %+v (dead %v)", out.obs, out.dead)
			}
			if !strings.Contains(hangs[0].Message, "more to confirm") {
				t.Errorf("the hang does not say the confirmation window was waited out: %q", hangs[0].Message)
			}
			if tg.conn.deadlines != 2 {
				t.Errorf("the session saw %d deadlines with the answer held, want 2 (the wait, then the confirmation window)", tg.conn.deadlines)
			}
		})
	}
}

func transcriptNotes(s *session) string {
	var b strings.Builder
	for _, e := range s.events {
		if e.dir == reports.Note {
			b.WriteString(e.note + "\n")
		}
	}
	return b.String()
}

// TestPingOverdueGivesTheConfirmationWindow walks a client's liveness
// ping through its wait: nothing is decided within the wait, the first
// look past it only suspects (once), a hang is called only past the wait
// and the confirmation window, and an answer at any point ends it.
func TestPingOverdueGivesTheConfirmationWindow(t *testing.T) {
	const wait = time.Second
	confirm := conn.HangConfirm(wait)
	if confirm <= 0 {
		t.Fatalf("hangConfirm(%v) = %v: no confirmation window", wait, confirm)
	}
	for _, tc := range []struct {
		since          time.Duration
		late, answered bool
		want           pingState
	}{
		{wait / 2, false, false, pingWaiting},
		{wait + 1, false, false, pingSuspect},
		{wait + 1, true, false, pingWaiting},
		{wait + confirm/2, true, false, pingWaiting},
		{wait + confirm + 1, true, false, pingHung},
		{wait + confirm + 1, false, false, pingHung},
		{wait + confirm/2, true, true, pingAnswered},
		{wait + confirm + 1, true, true, pingAnswered},
	} {
		if got := pingOverdue(tc.since, wait, tc.late, tc.answered); got != tc.want {
			t.Errorf("pingOverdue(%v after sending, late %v, answered %v) = %v, want %v", tc.since, tc.late, tc.answered, got, tc.want)
		}
	}
}

// TestComputingTargetIsNotAHang: a stdio target that computes past the
// liveness wait and its confirmation window (spin-unknown spins a CPU for
// spinFor before it answers) is running all along, so it is waited for
// (up to conn.MaxBusyConfirm) and not called hung; one that blocks on the same
// request (hang-unknown) is still a hang. The waits are short against
// spinFor so that the spin outlasts the confirmation window.
func TestComputingTargetIsNotAHang(t *testing.T) {
	t.Parallel()
	v := spec.V20250618
	const wait = 300 * time.Millisecond
	if spinFor <= wait+conn.HangConfirm(wait) || spinFor >= wait+conn.MaxBusyConfirm(wait) {
		t.Fatalf("spinFor %v must outlast the confirmation window (%v) and end within the busy bound (%v)", spinFor, wait+conn.HangConfirm(wait), wait+conn.MaxBusyConfirm(wait))
	}
	in := mutate.Input{Mutator: "protocol/unknown-method", Chunks: [][]byte{[]byte(`{"jsonrpc":"2.0","id":"spin-1","method":"mcpcheck/no-such-method"}` + "\n")}}
	for _, tc := range []struct {
		fault string
		hang  bool
	}{{"spin-unknown", false}, {"hang-unknown", true}} {
		t.Run(tc.fault, func(t *testing.T) {
			s, err := openSession(context.Background(), helperTarget(t, v, tc.fault), v, wait, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			out := s.exec(in)
			var hangs []oracle.Observation
			for _, o := range out.obs {
				if o.Kind == reports.FindingHang {
					hangs = append(hangs, o)
				}
			}
			notes := transcriptNotes(s)
			if tc.hang {
				if len(hangs) != 1 || !out.dead {
					t.Fatalf("a target blocked on the request: want one hang, got %+v (dead %v); notes:\n%s", out.obs, out.dead, notes)
				}
				return
			}
			if len(hangs) > 0 || out.dead {
				t.Fatalf("a target computing past the wait was called hung: %+v (dead %v); notes:\n%s", hangs, out.dead, notes)
			}
			if !out.slow || !strings.Contains(notes, "waiting up to") {
				t.Errorf("the exec did not say the target was late but computing (slow %v); notes:\n%s", out.slow, notes)
			}
		})
	}
}

// TestMisnumberedAnswersToEveryRequestSettleTheProbe: a target that answers
// every request under its id cut short (ids-truncated) answers the
// input's request and the liveness probe, both under ids nobody awaits:
// two answers for the two requests awaiting one, so the probe's answer
// came, misnumbered. The exec ends on that answer with a fresh session to
// come and no hang; it does not wait out the liveness deadline (which is
// long here, so that a failing run shows in the notes, not in a flake).
// Before, only a probe awaited alone was settled so, and such an exec
// waited the whole deadline: about one exec a second against the
// reference server's result-id-truncated.
func TestMisnumberedAnswersToEveryRequestSettleTheProbe(t *testing.T) {
	v := spec.V20250618
	s, err := openSession(context.Background(), inprocHelper(v, "ids-truncated"), v, 30*time.Second, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.reset()
	out := s.exec(mutate.Single([]byte(`{"jsonrpc":"2.0","id":"req-1","method":"ping"}`)))
	notes := transcriptNotes(s)
	unknown := 0
	for _, o := range out.obs {
		switch {
		case o.Kind == reports.FindingHang:
			t.Errorf("a target that answered every request, under truncated ids, was called hung: %s", o.Message)
		case o.Check == "response/id-unknown":
			unknown++
		}
	}
	if unknown != 2 {
		t.Errorf("want the input's answer and the probe's both judged response/id-unknown, got %d such observations: %+v", unknown, out.obs)
	}
	if out.dead || !out.recycle {
		t.Errorf("the exec ended dead %v, recycle %v; want an instance alive whose session is recycled", out.dead, out.recycle)
	}
	if !strings.Contains(notes, "the probe's answer came, misnumbered") || strings.Contains(notes, "no answer to the liveness probe") {
		t.Errorf("the exec did not end on the probe's misnumbered answer (or waited out the liveness deadline); notes:\n%s", notes)
	}
}
