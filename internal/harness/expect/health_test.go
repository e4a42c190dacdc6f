package expect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// TestHealthMuteTargetIsNotWaitedFor: a target that answered none of
// MissesBeforeMute waits is mute: the next wait ends at once, Aborted,
// saying why, and later waits too.
func TestHealthMuteTargetIsNotWaitedFor(t *testing.T) {
	ctx := WithHealth(context.Background(), NewHealth())
	for i := 0; i < MissesBeforeMute; i++ {
		if obs := Wait(ctx, src(), Options{Timeout: 20 * time.Millisecond}, AnyResponse(id3)); obs.Status != TimedOut {
			t.Fatalf("wait %d: status %v, want timed out", i, obs.Status)
		}
	}
	var told string
	obs := Wait(OnSkip(ctx, func(why string) { told = why }), src(), Options{Timeout: time.Minute}, AnyResponse(id3))
	if told == "" || told != obs.Actual {
		t.Errorf("the skipped wait told its check %q, want the verdict %q", told, obs.Actual)
	}
	if obs.Status != Aborted || !errors.Is(obs.Err, errMute) {
		t.Fatalf("after %d unanswered waits: status %v (err %v), want aborted as mute", MissesBeforeMute, obs.Status, obs.Err)
	}
	// Aborted as mute is the proof it was not waited for: waiting would
	// have ended TimedOut after the minute asked.
	if !strings.Contains(obs.Actual, "treated as mute") {
		t.Fatalf("the mute verdict says %q, want it to say the target is treated as mute", obs.Actual)
	}
}

// TestHealthSilenceIsNoMiss: an accepted silence is no unanswered request,
// so waits for silence never make a target mute.
func TestHealthSilenceIsNoMiss(t *testing.T) {
	h := NewHealth()
	ctx := WithHealth(context.Background(), h)
	for i := 0; i < MissesBeforeMute+1; i++ {
		if obs := Wait(ctx, src(), Options{Timeout: 10 * time.Millisecond}, Silence("nothing")); !obs.OK() {
			t.Fatalf("silence wait %d: %v", i, obs.Status)
		}
	}
	if mute, _ := h.Mute(); mute {
		t.Fatal("accepted silences made the target mute")
	}
}

// TestHealthAdaptsDeadlines: a target that answers in milliseconds and
// then leaves requests unanswered gets MinAdapted, not the minute asked;
// a slow one keeps what was asked.
func TestHealthAdaptsDeadlines(t *testing.T) {
	ctx := WithHealth(context.Background(), NewHealth())
	answer := msg(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	if obs := Wait(ctx, src(answer), Options{}, AnyResponse(id3)); !obs.OK() {
		t.Fatalf("answer: %v", obs.Status)
	}
	for i := 0; i < MissesBeforeAdapting; i++ {
		Wait(ctx, src(), Options{Timeout: 20 * time.Millisecond}, AnyResponse(jsonrpc.IntID(4)))
	}
	obs := Wait(ctx, src(), Options{Timeout: time.Minute}, AnyResponse(jsonrpc.IntID(5)))
	if obs.Status != TimedOut {
		t.Fatalf("status %v, want a timeout at the adapted deadline %v", obs.Status, MinAdapted)
	}
	// The verdict names the deadline the wait used: the adapted one, not
	// the minute asked (which only bounds this test when adapting breaks).
	if want := fmt.Sprintf("no answer within %v", MinAdapted); !strings.Contains(obs.Actual, want) || !strings.Contains(obs.Actual, "the deadline was 1s, not 1m0s") {
		t.Fatalf("the verdict %q does not say it waited %v, shortened from 1m0s", obs.Actual, MinAdapted)
	}

	slow := NewHealth()
	slow.record(Observed{Status: Matched, Elapsed: 400 * time.Millisecond}, true, false, false)
	slow.record(Observed{Status: TimedOut}, false, false, false)
	slow.record(Observed{Status: TimedOut}, false, false, false)
	if d, why := slow.deadline(1500 * time.Millisecond); d != 1500*time.Millisecond || why != "" {
		t.Fatalf("a target whose slowest answer took 400ms got %v (%s) instead of the 1.5s asked", d, why)
	}
}

// TestHealthProbesATargetThatStopsAnswering: after ProbeAfter unanswered
// waits in a row from a target that had answered, the probe runs once;
// when it finds no sign of life the target is dead (waits do not wait,
// and the cause names the last answer and the probe's error); when it
// finds one the streak is forgiven and no second probe runs until the
// target answers again.
func TestHealthProbesATargetThatStopsAnswering(t *testing.T) {
	for _, alive := range []bool{false, true} {
		h := NewHealth()
		probes := 0
		h.Probe = func(ctx context.Context) error {
			probes++
			if alive {
				return nil
			}
			return errors.New("ping after the handshake: no answer")
		}
		h.record(Observed{Status: Matched, Elapsed: time.Millisecond, Expected: "a response to id 1"}, true, false, false)
		for i := 0; i < ProbeAfter+2; i++ {
			h.record(Observed{Status: TimedOut, Expected: "a response to id 2"}, false, false, false)
		}
		mute, why := h.Mute()
		if probes != 1 {
			t.Errorf("alive=%v: %d probes, want 1", alive, probes)
		}
		if mute == alive {
			t.Errorf("alive=%v: mute %v (%s)", alive, mute, why)
		}
		if !alive && (!strings.Contains(why, "a response to id 1") || !strings.Contains(why, "no answer") || !strings.Contains(why, "dead")) {
			t.Errorf("the cause does not name the last answer and the probe's error: %s", why)
		}
		if alive {
			continue
		}
		// Dead: a fresh session's handshake is still waited for (a target
		// that answers only initialize gets that judged) ...
		if skip, why := h.skip(true); skip {
			t.Errorf("a dead target's handshake is not waited for: %s", why)
		}
		h.record(Observed{Status: Matched, Elapsed: time.Millisecond}, true, true, false)
		if skip, _ := h.skip(false); !skip {
			t.Errorf("an answered handshake brought a dead target back for every wait")
		}
		// ... until a handshake goes unanswered too.
		h.record(Observed{Status: TimedOut}, false, true, false)
		if skip, _ := h.skip(true); !skip {
			t.Errorf("a dead target that left a handshake unanswered is still waited for")
		}
	}
}

// gated is a Source that holds a wait until its gate closes: then it
// delivers its frame, or, without one, ends the wait as a timeout would.
// It orders concurrent waits without timing.
type gated struct {
	gate  chan struct{}
	frame *wire.Frame
}

func (g *gated) Recv(ctx context.Context) (wire.Frame, error) {
	select {
	case <-g.gate:
		if f := g.frame; f != nil {
			g.frame = nil
			return *f, nil
		}
		return wire.Frame{}, context.DeadlineExceeded
	case <-ctx.Done():
		return wire.Frame{}, ctx.Err()
	}
}

// TestHealthConcurrentWaits: checks running at the same time share one
// Health. Many waits that time out together after the target's last
// answer make one probe, not one each; an answer to any of the concurrent
// requests ends the streak, so the timeouts around it do not add up to a
// probe; ProbeAfter timeouts in a row after it do.
func TestHealthConcurrentWaits(t *testing.T) {
	answer := msg(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	t.Run("together", func(t *testing.T) {
		h := NewHealth()
		var probes atomic.Int32
		h.Probe = func(context.Context) error { probes.Add(1); return nil }
		ctx := WithHealth(context.Background(), h)
		if obs := Wait(ctx, src(answer), Options{}, AnyResponse(id3)); !obs.OK() {
			t.Fatalf("answer: %v", obs.Status)
		}
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if obs := Wait(ctx, &gated{gate: gate}, Options{Timeout: time.Minute}, AnyResponse(id3)); obs.Status != TimedOut {
					t.Errorf("status %v, want timed out", obs.Status)
				}
			}()
		}
		close(gate)
		wg.Wait()
		if n := probes.Load(); n != 1 {
			t.Errorf("8 waits timing out together made %d probes, want 1", n)
		}
		if mute, why := h.Mute(); mute {
			t.Errorf("a target the probe found alive is treated as gone: %s", why)
		}
	})
	t.Run("an answer ends the streak", func(t *testing.T) {
		h := NewHealth()
		var probes atomic.Int32
		h.Probe = func(context.Context) error { probes.Add(1); return errors.New("no answer") }
		ctx := WithHealth(context.Background(), h)
		if obs := Wait(ctx, src(answer), Options{}, AnyResponse(id3)); !obs.OK() {
			t.Fatalf("answer: %v", obs.Status)
		}
		// Six requests in flight at once, settled one by one in this
		// order: two timeouts, the answer, three timeouts.
		order := []*wire.Frame{nil, nil, &answer, nil, nil, nil}
		srcs := make([]*gated, len(order))
		done := make([]chan Observed, len(order))
		for i, f := range order {
			srcs[i], done[i] = &gated{gate: make(chan struct{}), frame: f}, make(chan Observed, 1)
			go func(i int) { done[i] <- Wait(ctx, srcs[i], Options{Timeout: time.Minute}, AnyResponse(id3)) }(i)
		}
		for i := range order {
			close(srcs[i].gate)
			obs := <-done[i]
			if want := order[i] != nil; obs.OK() != want {
				t.Fatalf("wait %d: status %v, want answered %v", i, obs.Status, want)
			}
			if i == len(order)-2 && probes.Load() != 0 {
				t.Fatalf("%d probes after two timeouts since the answer, want none (ProbeAfter is %d)", probes.Load(), ProbeAfter)
			}
		}
		if n := probes.Load(); n != 1 {
			t.Fatalf("%d probes after %d timeouts in a row, want 1", n, ProbeAfter)
		}
		if mute, why := h.Mute(); !mute || !strings.Contains(why, "dead") {
			t.Fatalf("a target the probe found dead is still waited for (%v: %s)", mute, why)
		}
	})
}

// TestHealthTypicalAnswerTime: Typical is the 90th percentile of the last
// answered waits: one answer that took long on purpose does not move it,
// a target that has become slow does.
func TestHealthTypicalAnswerTime(t *testing.T) {
	h := NewHealth()
	if got := h.Typical(); got != 0 {
		t.Fatalf("Typical before any answer = %v, want 0", got)
	}
	for i := 0; i < 20; i++ {
		h.record(Observed{Elapsed: 10 * time.Millisecond}, true, false, false)
	}
	h.record(Observed{Elapsed: 5 * time.Second}, true, false, false)
	if got := h.Typical(); got != 10*time.Millisecond {
		t.Errorf("Typical after 20 answers in 10ms and one in 5s = %v, want 10ms", got)
	}
	for i := 0; i < 64; i++ {
		h.record(Observed{Elapsed: 400 * time.Millisecond}, true, false, false)
	}
	if got := h.Typical(); got != 400*time.Millisecond {
		t.Errorf("Typical after 64 answers in 400ms = %v, want 400ms", got)
	}
	h.record(Observed{Status: TimedOut, Elapsed: time.Hour}, false, false, false)
	if got := h.Typical(); got != 400*time.Millisecond {
		t.Errorf("an unanswered wait moved Typical to %v", got)
	}
	// A target that starts slowly and answers quickly: its handshakes
	// (process start included) do not count.
	fresh := NewHealth()
	for i := 0; i < 20; i++ {
		fresh.record(Observed{Elapsed: 600 * time.Millisecond}, true, true, false)
		fresh.record(Observed{Elapsed: time.Millisecond}, true, false, false)
	}
	if got := fresh.Typical(); got != time.Millisecond {
		t.Errorf("Typical after 20 handshakes in 600ms and 20 answers in 1ms = %v, want 1ms", got)
	}
	if fresh.slowest != 600*time.Millisecond {
		t.Errorf("the slowest answer (for adapted deadlines) = %v, want the handshakes' 600ms", fresh.slowest)
	}
}

// TestHealthFloodingTarget: a target that floods FloodsBeforeGivingUp
// waits is not waited for again, except for handshakes, and the reason
// names the flood; one flood alone changes nothing.
func TestHealthFloodingTarget(t *testing.T) {
	h := NewHealth()
	ctx := WithHealth(context.Background(), h)
	var flood []wire.Frame
	for i := 0; i < 30; i++ {
		flood = append(flood, msg(`{"jsonrpc":"2.0","id":"storm","method":"ping"}`))
	}
	answer := msg(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	if got := Wait(ctx, src(answer), Options{Timeout: time.Second}, AnyResponse(id3)); got.Status != Matched {
		t.Fatalf("the first answer: %+v", got)
	}
	for i := 1; i <= FloodsBeforeGivingUp; i++ {
		if skip, why := h.skip(false); skip {
			t.Fatalf("after %d flooded waits the target is already given up: %s", i-1, why)
		}
		got := Wait(ctx, src(flood...), Options{Timeout: time.Second, MaxFrames: 20}, AnyResponse(id3))
		if got.Status != Flooded {
			t.Fatalf("flooded wait %d: %+v", i, got)
		}
	}
	got := Wait(ctx, src(answer), Options{Timeout: time.Second}, AnyResponse(id3))
	if got.Status != Aborted || !strings.Contains(got.Actual, "floods") || !strings.Contains(got.Actual, "20 frames") {
		t.Errorf("a wait after %d floods: %+v, want Aborted naming the flood", FloodsBeforeGivingUp, got)
	}
	if got := Wait(Handshake(ctx), src(answer), Options{Timeout: time.Second}, AnyResponse(id3)); got.Status != Matched {
		t.Errorf("a flooding target's handshake is not waited for: %+v", got)
	}
}

// TestStartupWaitsKeepTheirAllowance: a wait on a connection the target
// has not spoken on yet (Startup) keeps its whole timeout even when the
// run's Health would cut waits short (a target that has answered nothing
// and missed a wait gets 2 s), its answer time counts as a start-up time
// and not as an answer time, and a start-up timeout says what it was.
func TestStartupWaitsKeepTheirAllowance(t *testing.T) {
	h := NewHealth()
	h.record(Observed{Status: TimedOut, Expected: "a response to id 1"}, false, false, false)
	if d, why := h.deadline(10 * time.Second); d != 2*MinAdapted || why == "" {
		t.Fatalf("the fail-fast deadline is %v (%q); the test needs it at 2s", d, why)
	}
	ctx := WithHealth(context.Background(), h)
	src := &slowSource{after: 2500 * time.Millisecond}
	obs := Wait(Startup(ctx), src, Options{Timeout: 5 * time.Second}, anyFrame)
	if !obs.OK() {
		t.Fatalf("a start-up wait answered after 2.5 s ended %s (%s); it must keep its 5 s", obs.Status, obs.Actual)
	}
	if _, _, slowest, n := h.StartupTimes(); n != 1 || slowest < 2*time.Second {
		t.Errorf("start-up times: %d measured, slowest %v; want the one of 2.5 s", n, slowest)
	}
	if h.Typical() != 0 {
		t.Errorf("the start-up answer counted as an answer time (typical %v)", h.Typical())
	}
	// Without Startup the same target gets the fail-fast deadline.
	h2 := NewHealth()
	h2.record(Observed{Status: TimedOut}, false, false, false)
	obs = Wait(WithHealth(context.Background(), h2), &slowSource{after: 2500 * time.Millisecond}, Options{Timeout: 5 * time.Second}, anyFrame)
	if obs.Status != TimedOut {
		t.Errorf("an ordinary wait of a target that answered nothing ended %s; the control wants the 2 s deadline", obs.Status)
	}
	obs = Wait(Startup(context.Background()), &slowSource{after: time.Hour}, Options{Timeout: 50 * time.Millisecond}, anyFrame)
	if obs.Status != TimedOut || !strings.Contains(obs.Actual, "start-up allowance") {
		t.Errorf("a start-up timeout ends %s saying %q; want it to say it was the start-up allowance", obs.Status, obs.Actual)
	}
}

// slowSource yields one message after a delay, then nothing.
type slowSource struct {
	after time.Duration
	sent  bool
}

func (s *slowSource) Recv(ctx context.Context) (wire.Frame, error) {
	if s.sent {
		<-ctx.Done()
		return wire.Frame{}, ctx.Err()
	}
	t := time.NewTimer(s.after)
	defer t.Stop()
	select {
	case <-t.C:
		s.sent = true
		return wire.Frame{Kind: wire.KindMessage, Raw: []byte(`{"jsonrpc":"2.0","method":"x"}`)}, nil
	case <-ctx.Done():
		return wire.Frame{}, ctx.Err()
	}
}

var anyFrame = Alt{Desc: "any frame", On: func(wire.Frame) (Verdict, string) { return Accepted, "" }}

// TestStartupAllowanceGrowsWithSlowStarts: a target whose starts took
// close to the allowance gets three times its slowest start, bounded; a
// quick starter keeps what was asked.
func TestStartupAllowanceGrowsWithSlowStarts(t *testing.T) {
	h := NewHealth()
	if got := h.startupAllowance(time.Minute); got != time.Minute {
		t.Errorf("with no start measured the allowance is %v, want the minute asked", got)
	}
	h.record(Observed{Status: Matched, Elapsed: 2 * time.Second}, true, true, true)
	if got := h.startupAllowance(time.Minute); got != time.Minute {
		t.Errorf("after a 2 s start the allowance is %v, want the minute asked", got)
	}
	h.record(Observed{Status: Matched, Elapsed: 50 * time.Second}, true, true, true)
	if got := h.startupAllowance(time.Minute); got != 150*time.Second {
		t.Errorf("after a 50 s start the allowance is %v, want 2m30s", got)
	}
	h.record(Observed{Status: Matched, Elapsed: 4 * time.Minute}, true, true, true)
	if got := h.startupAllowance(time.Minute); got != maxStartupAllowance {
		t.Errorf("after a 4 min start the allowance is %v, want the bound %v", got, maxStartupAllowance)
	}
}

// adaptedHealth returns a Health that cuts waits short: the target
// answered once, quickly, and then left MissesBeforeAdapting waits
// unanswered, so a wait asking for 10 s gets MinAdapted.
func adaptedHealth(t *testing.T) *Health {
	t.Helper()
	h := NewHealth()
	h.record(Observed{Status: Matched, Elapsed: time.Millisecond}, true, false, false)
	for i := 0; i < MissesBeforeAdapting; i++ {
		h.record(Observed{Status: TimedOut}, false, false, false)
	}
	if d, why := h.deadline(10 * time.Second); d != MinAdapted || why == "" {
		t.Fatalf("the adapted deadline is %v (%q); the test needs it at %v", d, why, MinAdapted)
	}
	return h
}

// TestBusyTargetKeepsTheDeadlineAsked: the Health shortens waits on a
// target that has gone silent, never on one that is at work. A target
// that reports progress (a notification) while its answer takes longer
// than the adapted deadline gets the deadline the wait asked for; so does
// a wait marked Working (tasks/result, tools/call), even with no frame
// before the answer. The controls: the same silent wait, unmarked, ends
// at the adapted deadline and says so.
func TestBusyTargetKeepsTheDeadlineAsked(t *testing.T) {
	after := MinAdapted + MinAdapted/2
	progress := msg(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"working"}}`)

	// Progress first, then the answer after the adapted deadline.
	s := &progressThenSlow{first: progress, slow: slowSource{after: after}}
	obs := Wait(WithHealth(context.Background(), adaptedHealth(t)), s, Options{Timeout: 10 * time.Second}, anyResponse)
	if !obs.OK() {
		t.Errorf("a target that reported progress and answered after %v: the wait ended %s (%s); want the answer, the 10 s asked being restored by the progress", after, obs.Status, obs.Actual)
	}

	// A Working wait: no frame at all before the answer.
	obs = Wait(WithHealth(context.Background(), adaptedHealth(t)), &slowSource{after: after}, Options{Timeout: 10 * time.Second, Working: true}, anyFrame)
	if !obs.OK() {
		t.Errorf("a Working wait answered after %v ended %s (%s); want the answer within the 10 s asked", after, obs.Status, obs.Actual)
	}

	// Control: silent, not Working, the adapted deadline holds.
	obs = Wait(WithHealth(context.Background(), adaptedHealth(t)), &slowSource{after: time.Hour}, Options{Timeout: 10 * time.Second}, anyFrame)
	if obs.Status != TimedOut || !strings.Contains(obs.Actual, "the deadline was 1s, not 10s") {
		t.Errorf("a silent target's wait ended %s saying %q; want a timeout at the adapted 1s that says so", obs.Status, obs.Actual)
	}
}

// progressThenSlow yields first at once, then what slow yields.
type progressThenSlow struct {
	first wire.Frame
	done  bool
	slow  slowSource
}

func (p *progressThenSlow) Recv(ctx context.Context) (wire.Frame, error) {
	if !p.done {
		p.done = true
		return p.first, nil
	}
	return p.slow.Recv(ctx)
}

// anyResponse accepts the one message slowSource yields and leaves
// notifications to wait on.
var anyResponse = Alt{Desc: "the answer", On: func(f wire.Frame) (Verdict, string) {
	if strings.Contains(string(f.Raw), `"method":"x"`) {
		return Accepted, ""
	}
	return Unrelated, ""
}}
