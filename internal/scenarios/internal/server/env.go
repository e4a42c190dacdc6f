package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/record"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Sess is what checks use of a session, whichever era it belongs to
// (*session.Stateful and *session.Stateless both implement it).
type Sess interface {
	Call(ctx context.Context, method string, params any) session.Reply
	Request(ctx context.Context, method string, params any) (jsonrpc.ID, string, error)
	Wait(ctx context.Context, alts ...expect.Alt) expect.Observed
	WaitFor(ctx context.Context, o expect.Options, alts ...expect.Alt) expect.Observed
	SendRaw(ctx context.Context, b []byte) (string, error)
	Recv(ctx context.Context) (wire.Frame, error)
	NextID() jsonrpc.ID
	Findings() []session.Finding
	Irregular() []wire.Frame
	Notifications() []wire.Frame
	Conn() wire.Conn
	ServerCapabilities() mcp.ServerCapabilities
	Version() spec.Version
}

// Conn is one connection a check holds: the target connection and the
// session on it (Stateful for 2024-11-05..2025-11-25, Stateless for
// 2026-07-28). A shared Conn is initialized (or discovered); a fresh one
// (T.Fresh) has sent nothing yet.
type Conn struct {
	*harness.Shared
}

// S is the era-neutral session of the connection.
func (c *Conn) S() Sess {
	if c.Stateless != nil {
		return c.Stateless
	}
	return c.Stateful
}

// Observation is one frame the target sent during a version's run, as the
// passive checks see it.
type Observation struct {
	wire.Frame
	// Conn numbers the connection (1, 2, ...) within the version's run.
	Conn int
	// Answers is the method of the request a response answers ("" when not
	// known or not a response).
	Answers string
	// Session is what the connection's client had declared and done when
	// the frame arrived (passive_session.go); Place is where the frame
	// arrived relative to what that session sent.
	Session *SessionFacts
	Place   Placement
	// provoker is what mcpcheck sent that the frame answers or follows
	// (sessionLedger.provoker), nil when nothing was.
	provoker *sentFrame
}

// versionRun is the state of one protocol version in one run: the pool of
// shared sessions, what the target declared, and everything it sent.
type versionRun struct {
	r    *runner
	v    spec.Version
	once sync.Once
	// settleOnce settles the idle sessions before the passive checks.
	settleOnce sync.Once
	pool       *harness.Pool[*conn]
	err        error // the target could not be reached
	// silent says why the version's handshake got no answer at all, on a
	// second, patient try too: its checks are harness errors (nothing
	// is known of whether the target speaks the version), never n/a.
	silent string
	// heard is set when the target said anything on the session setup
	// probed the version with: only an answer tells that it does not
	// speak the version.
	heard   bool
	support bool
	nego    spec.Version
	openErr error
	caps    mcp.ServerCapabilities
	discov  *mcp.DiscoverResult
	initRes *mcp.InitializeResult

	mu       sync.Mutex
	conns    int
	sessions []Sess
	// ledgers follow what each connection's client declared and did.
	ledgers  []*sessionLedger
	obs      []Observation
	obsBytes int // wire.Frame.Cost of obs
	dropped  int
	// budget bounds what the version's sessions keep of what the target
	// sends, together (session.Config.Budget).
	budget *session.Budget
	// pending counts the version's specs not yet run: at 0 what the
	// version kept is let go (release).
	pending  int
	tools    []mcp.Tool
	toolsErr error
	toolsOK  bool
	// toolsListing is closed when the listing under way ends (nil when
	// none is).
	toolsListing chan struct{}
	// handshake is the traffic of the session setup probed the version
	// with, and toolsEvents that of the tools listing: checks that judge
	// them without sending anything show them as their evidence (cite).
	handshake   []reports.WireEvent
	toolsEvents []reports.WireEvent
}

// citedEvents bounds what a check cites of the handshake or a listing.
const citedEvents = 12

// The bounds of what a version run keeps for passive checks: a target
// that floods is judged on the first of its frames.
const (
	maxObservations     = 50000
	maxObservationBytes = 16 << 20
)

// tap records what the target sends on one connection for passive checks.
type tap struct {
	vr      *versionRun
	conn    int
	methods *rules.Methods
	ledger  *sessionLedger
	// lastProvoker is the provoker of the connection's last kept
	// observation (under vr.mu): each one kept is counted once in
	// obsBytes.
	lastProvoker *sentFrame
}

func (t *tap) Sent(o wire.Outgoing) {
	t.methods.Sent(o.Raw)
	t.ledger.sent(o)
}

func (t *tap) Received(f wire.Frame) {
	o := Observation{Frame: f, Conn: t.conn}
	o.Session, o.Place = t.ledger.received(f)
	o.provoker = t.ledger.provoker(f)
	if f.Kind == wire.KindMessage && f.Msg.Method == "" && !o.Place.WrongID {
		o.Answers = t.methods.Method(f.Msg.ID)
	}
	t.vr.mu.Lock()
	cost := f.Cost()
	if o.provoker != nil && o.provoker != t.lastProvoker {
		cost += len(o.provoker.out.Raw)
	}
	if len(t.vr.obs) < maxObservations && t.vr.obsBytes+cost <= maxObservationBytes {
		t.vr.obs = append(t.vr.obs, o)
		t.vr.obsBytes += cost
		t.lastProvoker = o.provoker
	} else {
		t.vr.dropped++
	}
	t.vr.mu.Unlock()
}

func (t *tap) Noted(string, time.Time) {}

// route hands what is sent and received on one connection to the
// recorder of the check that holds the connection, so a check's transcript
// holds its own connections' traffic only, whatever other checks do at
// the same time. What comes while no check holds the connection (an idle
// pooled session) is in no transcript; the passive checks still see it.
type route struct {
	rec atomic.Pointer[record.Recorder]
	// conn numbers the connection within the version's run (as
	// Observation.Conn does): each transcript event says which connection
	// carried it (reports.WireEvent.Conn).
	conn int
}

// hold routes the connection's events to rec.
func (r *route) hold(rec *record.Recorder) { r.rec.Store(rec) }

// drop stops routing to rec (unless another holder took over).
func (r *route) drop(rec *record.Recorder) { r.rec.CompareAndSwap(rec, nil) }

func (r *route) Sent(o wire.Outgoing) {
	if rec := r.rec.Load(); rec != nil {
		rec.SentOn(r.conn, o)
	}
}

func (r *route) Received(f wire.Frame) {
	if rec := r.rec.Load(); rec != nil {
		rec.ReceivedOn(r.conn, f)
	}
}

func (r *route) Noted(text string, at time.Time) {
	if rec := r.rec.Load(); rec != nil {
		rec.NotedOn(r.conn, text, at)
	}
}

// conn is a connection of a version run with the route of its events.
type conn struct {
	*harness.Shared
	route *route
	// solo releases the run's soloGate (Config.OneInstance), else nil.
	solo func()
}

// Close ends the session (its process stops) and, under
// Config.OneInstance, lets the next process start.
func (c *conn) Close() error {
	err := c.Shared.Close()
	if c.solo != nil {
		c.solo()
	}
	return err
}

type recorderKey struct{}

// withRecorder returns ctx carrying the recorder of the check it belongs
// to: connections opened under ctx route their events to it.
func withRecorder(ctx context.Context, rec *record.Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, rec)
}

func recorderOf(ctx context.Context) *record.Recorder {
	rec, _ := ctx.Value(recorderKey{}).(*record.Recorder)
	return rec
}

// open connects to the target and, unless fresh, runs the handshake of the
// version. The tap and the recorder of the check opening it (ctx's, see
// withRecorder) see every byte from the start.
//
// The suites report 2024-11-05 only over HTTP+SSE; later initialize-based
// versions are still probed there (allStateful) to learn what the server
// implements on these endpoints, as harness.Open allows.
func (vr *versionRun) open(ctx context.Context, fresh bool) (*conn, error) {
	vr.mu.Lock()
	vr.conns++
	n := vr.conns
	ledger := newSessionLedger(n)
	vr.ledgers = append(vr.ledgers, ledger)
	vr.mu.Unlock()
	rt := &route{conn: n}
	if rec := recorderOf(ctx); rec != nil {
		rt.hold(rec)
	}
	taps := []wire.Tap{rt, &tap{vr: vr, conn: n, methods: rules.NewMethods(0), ledger: ledger}}
	var solo func()
	if vr.r.solo != nil {
		var err error
		if solo, err = vr.r.solo.acquire(vr.r.closeIdle); err != nil {
			return nil, err
		}
	}
	release, err := vr.r.starts.acquire(ctx)
	if err != nil {
		if solo != nil {
			solo()
		}
		return nil, err
	}
	s, err := harness.Open(ctx, vr.r.target, vr.v, harness.OpenOptions{Session: vr.sessionConfig(), Taps: taps, Fresh: fresh})
	release()
	if err != nil {
		if solo != nil {
			solo()
		}
		return nil, err
	}
	if p := s.Conn.Process; p != nil {
		vr.r.live.Add(1)
		go func() {
			<-p.Exited()
			// A start that failed while another instance ran: the mark
			// of a server of which one instance can run at a time.
			if others := vr.r.live.Add(-1); others > 0 && p.EndedSilent() {
				vr.r.failedBeside.Add(1)
			}
			if solo != nil {
				// A session closed some other way than conn.Close
				// still frees the gate once its process is gone.
				solo()
			}
		}()
	}
	if p := s.Conn.Process; p != nil && !fresh && s.Heard() {
		if cpu, ok := p.CPUTime(); ok {
			vr.r.starts.learn(time.Since(p.Started()), cpu)
		}
	}
	if !fresh && s.OpenErr == nil && s.Stateful != nil {
		// Settle the handshake before a check gets the session: what
		// the target sends in reply to notifications/initialized (an
		// answer to the notification, a list_changed) arrives before the
		// sentinel's answer, so it is the handshake's, not the first
		// check's. Which check that is depends on how many run at the
		// same time. A wait skipped for a gone target is no verdict of
		// the check opening the session.
		Sentinel(expect.OnSkip(ctx, func(string) {}), s.Stateful)
	}
	vr.mu.Lock()
	vr.sessions = append(vr.sessions, (&Conn{s}).S())
	vr.mu.Unlock()
	return &conn{Shared: s, route: rt, solo: solo}, nil
}

// sessionBudget is what the sessions of one version run keep together of
// what the target sends (notifications, its requests, irregular frames).
const sessionBudget = 16 << 20

// sessionConfig is the run's session configuration with the version's
// shared budget.
func (vr *versionRun) sessionConfig() session.Config {
	sc := vr.r.cfg.Session
	vr.mu.Lock()
	if vr.budget == nil {
		vr.budget = session.NewBudget(sessionBudget)
	}
	sc.Budget = vr.budget
	vr.mu.Unlock()
	sc.Guard = vr.toolGuard
	return sc
}

// heavy reports whether the target has sent a large frame
// (session.LargeFrame), or more than a version's sessions keep together
// (sessionBudget: it floods), in any version so far: the run's checks then
// run one at a time, so that no two of them hold such a message, or are
// flooded, at once.
func (r *runner) heavy() bool {
	if r.heavyTarget.Load() {
		return true
	}
	for _, vr := range r.versions {
		vr.mu.Lock()
		heavy := vr.budget.Heavy()
		vr.mu.Unlock()
		if heavy {
			r.heavyTarget.Store(true)
			return true
		}
	}
	return false
}

// done notes that one of the version's specs has run; after the last one
// what the version kept for passive checks is let go (and its sessions'
// budget renewed for the checks of other versions that still use it) and
// its idle connections are closed, so a run of five versions holds about
// one version's worth.
func (vr *versionRun) done() {
	vr.mu.Lock()
	vr.pending--
	last := vr.pending == 0
	if last {
		if vr.budget.Heavy() {
			vr.r.heavyTarget.Store(true)
		}
		vr.obs, vr.sessions, vr.obsBytes, vr.budget, vr.ledgers = nil, nil, 0, nil, nil
		vr.tools, vr.toolsOK, vr.toolsErr = nil, false, nil // listed again if asked
	}
	pool := vr.pool
	vr.mu.Unlock()
	if last && pool != nil {
		_ = pool.CloseIdle() // a target that already died is no problem of the run
	}
}

// settle makes sure, once the version's active checks have ended, that
// what the target sent on its idle sessions has arrived before the
// passive checks judge it: each idle session gets the era's sentinel
// request and its answer is waited for (a target answers in order, so
// what it sent before is in). Without it, what a target sends after a
// response (late progress, say) could reach the observations only after
// the passive checks had run, depending on which check held which session
// last, and so on how many ran at the same time. Its traffic is in no
// check's transcript.
func (vr *versionRun) settle(ctx context.Context) {
	vr.settleOnce.Do(func() {
		vr.mu.Lock()
		pool := vr.pool
		vr.mu.Unlock()
		if pool == nil {
			return
		}
		pool.Idle(string(vr.v), func(idle []*conn) {
			var wg sync.WaitGroup
			for _, c := range idle {
				if c.OpenErr != nil {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					Sentinel(ctx, (&Conn{c.Shared}).S())
				}()
			}
			wg.Wait()
		})
	})
}

// setup probes the version once: can the target be reached, does it speak
// the version, what does it declare.
func (vr *versionRun) setup(ctx context.Context) {
	vr.once.Do(func() {
		pool := &harness.Pool[*conn]{
			New:   func(ctx context.Context, _ string) (*conn, error) { return vr.open(ctx, false) },
			Close: func(c *conn) error { return c.Close() },
			// Each check running at the same time holds its own session;
			// all of them go back to the pool for the next checks.
			MaxIdle: vr.r.parallel,
		}
		// Under the lock: a check that ends without a session (n/a by
		// its version window) reads the pool in done meanwhile.
		vr.mu.Lock()
		vr.pool = pool
		vr.mu.Unlock()
		// The setup's traffic is the run's, in no check's transcript;
		// it is kept for the checks that judge the handshake (cite).
		setupRec := record.New(vr.r.run.Recorder().Start(), record.Options{MaxEvents: 4 * citedEvents})
		ctx = withRecorder(ctx, setupRec)
		sh, release, err := pool.Get(ctx, string(vr.v))
		if err != nil {
			vr.err = err
			return
		}
		defer func() {
			if sh != nil {
				sh.route.drop(setupRec)
			}
			evs := setupRec.Events()
			vr.mu.Lock()
			vr.handshake = evs[:min(len(evs), citedEvents)]
			vr.mu.Unlock()
		}()
		if mute, _ := expect.HealthOf(ctx).Mute(); sh.OpenErr != nil && !sh.Heard() && ctx.Err() == nil && !mute {
			// Not a word on that connection: no answer says nothing of
			// the version. Ask once more, alone on a connection of its
			// own, with the whole start-up allowance again.
			release(false)
			setupRec = record.New(vr.r.run.Recorder().Start(), record.Options{MaxEvents: 4 * citedEvents})
			ctx = withRecorder(ctx, setupRec)
			if sh, err = vr.open(ctx, false); err != nil {
				vr.err = err
				return
			}
			release = func(bool) { sh.Close() } // not the pool's
			if sh.OpenErr != nil && !sh.Heard() {
				vr.silent = fmt.Sprintf("the target answered the %s handshake on none of two connections (%v); whether it speaks %s is unknown", vr.v, sh.OpenErr, vr.v)
			}
		}
		defer func() {
			// A session whose handshake failed is never lent to a check.
			release(sh.OpenErr == nil)
		}()
		vr.support, vr.heard = sh.Supported(), sh.Heard()
		vr.nego = sh.Negotiated()
		vr.openErr = sh.OpenErr
		if sh.Stateful != nil {
			vr.caps = sh.Stateful.ServerCapabilities()
			vr.initRes = sh.Stateful.InitializeResult()
		} else {
			vr.caps = sh.Stateless.ServerCapabilities()
			vr.discov = sh.Stateless.DiscoverResult()
		}
	})
}

// setupDone reports whether setup ran (the version was probed).
func (vr *versionRun) setupDone() bool {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	return vr.pool != nil
}

func (vr *versionRun) unsupportedReason() string {
	if vr.silent != "" {
		return vr.silent
	}
	switch {
	case vr.openErr != nil:
		return fmt.Sprintf("the server does not speak %s: %v", vr.v, vr.openErr)
	case vr.nego != "" && vr.nego != vr.v:
		return fmt.Sprintf("the server does not speak %s: it negotiated %s instead", vr.v, vr.nego)
	}
	return fmt.Sprintf("the server does not speak %s", vr.v)
}

func (vr *versionRun) shutdown() error {
	vr.mu.Lock()
	pool := vr.pool
	vr.mu.Unlock()
	if pool == nil {
		return nil
	}
	return pool.Shutdown()
}

// abort stops a check's body with a harness error (see T.Must), or with
// untestable when the check could not get the sessions it needs under
// Config.OneInstance.
type abort struct{ err error }

// untestable reports whether the abort makes the check untestable.
func (a abort) untestable() bool { return errors.Is(a.err, errSecondInstance) }

// T is what a check body gets: the harness.Check to record the outcome on
// (its methods are promoted: Pass, Fail, Violation, NotApplicable,
// Untestable, Judge, Saw, Expect ...) plus the target.
type T struct {
	*harness.Check
	// Ctx bounds the check; it ends when the run is cancelled.
	Ctx context.Context

	vr      *versionRun
	def     Def
	rec     *record.Recorder // the check's own transcript
	leases  []*lease
	closers []func()
	// listedBefore is set when the check took the tools another check
	// listed: broken, it cites that listing (cite).
	listedBefore bool
}

// Target is the target of the check's run.
func (t *T) Target() target.Target { return t.vr.r.target }

// Recorder is the check's own transcript, for exchanges a check makes
// outside the harness's connections (nil when there is none).
func (t *T) Recorder() *record.Recorder { return t.rec }

type lease struct {
	c       *conn
	release func(bool)
	reuse   bool
}

// Must ends the check with a harness error when err is not nil.
func (t *T) Must(err error) {
	if err != nil {
		panic(abort{err})
	}
}

// Session borrows an initialized (stateful) or discovered (stateless)
// session of the check's version from the pool; it goes back at the end
// of the check unless Taint was called. Checks that leave the session in
// a state others must not see (changed log level, broken bytes sent,
// subscriptions) call Taint.
func (t *T) Session() *Conn {
	c, release, err := t.vr.pool.Get(t.Ctx, string(t.vr.v))
	t.Must(err)
	if c.OpenErr != nil {
		// A session whose handshake failed is no session: the check's
		// precondition failed, which is no verdict on what it is about.
		release(false)
		t.Must(fmt.Errorf("precondition: a %s session could not start (its handshake failed: %v); the check did not run", t.vr.v, c.OpenErr))
	}
	c.route.hold(t.rec)
	t.leases = append(t.leases, &lease{c: c, release: release, reuse: true})
	return &Conn{c.Shared}
}

// Taint marks the sessions this check borrowed as not reusable: they are
// closed at the end of the check and the next check gets a fresh one.
func (t *T) Taint() {
	for _, l := range t.leases {
		l.reuse = false
	}
}

// Fresh opens a new connection with a session that has sent nothing yet
// (no initialize, no discover): for handshake and negotiation checks. It
// is closed at the end of the check.
func (t *T) Fresh() *Conn {
	c, err := t.vr.open(t.Ctx, true)
	t.Must(err)
	t.closers = append(t.closers, func() {
		c.Close()
		c.route.drop(t.rec)
	})
	return &Conn{c.Shared}
}

// finish releases what the check used. A session going back to the pool
// leaves the check's transcript first (another check may take it at
// once); one that is closed leaves it after, so the transcript shows its
// end.
func (t *T) finish() {
	for _, l := range t.leases {
		if l.reuse {
			l.c.route.drop(t.rec)
			l.release(true)
			continue
		}
		l.release(false)
		l.c.route.drop(t.rec)
	}
	for _, c := range t.closers {
		c()
	}
}

// Transport is the transport of the run: stdio, streamable or sse.
func (t *T) Transport() wire.Transport { return t.vr.r.transport }

// Stdio reports whether the target is a stdio command.
func (t *T) Stdio() bool { return t.vr.r.transport == "stdio" }

// DiscoverResult is the server/discover result of the version's probe (nil
// in the stateful era or when it failed).
func (t *T) DiscoverResult() *mcp.DiscoverResult { return t.vr.discov }

// RequireCapability makes the check n/a unless the server declared the
// dotted capability path in this version ("logging", "tools.listChanged").
func (t *T) RequireCapability(path string) bool {
	return t.Check.RequireCapability(t.vr.caps, path)
}

// HasCapability reports whether the server declared the dotted path.
func (t *T) HasCapability(path string) bool { return harness.HasCapability(t.vr.caps, path) }

// StepTimeout bounds one wait for an answer.
func (t *T) StepTimeout() time.Duration { return t.vr.r.cfg.Session.Timeout }

// Quiet is the window a check watches for something that must not arrive
// after the exchange it is about has settled: short, because the target
// has already answered a later request by then. It is Config.Quiet, or
// QuietFactor times the target's typical answer time when that is longer
// (a slow target's stray message comes late too), at most the step
// timeout. The run's report states the window and the longest used.
// Stretching stops at MaxQuietStretch: a target that takes seconds to
// answer would otherwise cost seconds per window.
func (t *T) Quiet() time.Duration {
	q := t.vr.r.cfg.Quiet
	typical := expect.HealthOf(t.Ctx).Typical()
	if QuietFactor*typical > q {
		q = max(q, min(QuietFactor*typical, MaxQuietStretch))
	}
	if st := t.StepTimeout(); q > st {
		q = st
	}
	if q <= t.vr.r.cfg.Quiet {
		typical = 0 // not what set this window
	}
	t.vr.r.noteQuiet(q, typical)
	return q
}

// QuietFactor is how many of the target's typical answer times a silence
// window lasts at least; MaxQuietStretch is as far as that stretches a
// window (a longer Config.Quiet is kept).
const (
	QuietFactor     = 3
	MaxQuietStretch = 2 * time.Second
)

// noteQuiet counts a silence window of length q, stretched to the
// target's typical answer time typical (0: not stretched).
func (r *runner) noteQuiet(q, typical time.Duration) {
	r.quietWindows.Add(1)
	raise(&r.quietLongest, int64(q))
	raise(&r.quietTypical, int64(typical))
}

// raise sets a to v when v is larger.
func raise(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// Observed returns everything the target sent on every connection of the
// version so far, in arrival order per connection (for passive checks), and
// how many frames were dropped over the bound.
func (t *T) Observed() ([]Observation, int) {
	t.vr.mu.Lock()
	defer t.vr.mu.Unlock()
	// Only appended to: the kept ones never change, so callers share them
	// (a copy per passive check would cost as much as a flood kept).
	return t.vr.obs[:len(t.vr.obs):len(t.vr.obs)], t.vr.dropped
}

// SessionFindings returns the findings of every session of the version so
// far (schema violations, undeclared capabilities used, ...).
func (t *T) SessionFindings() []session.Finding {
	t.vr.mu.Lock()
	ss := append([]Sess(nil), t.vr.sessions...)
	t.vr.mu.Unlock()
	var out []session.Finding
	for _, s := range ss {
		out = append(out, s.Findings()...)
	}
	return out
}

// Sentinel sends the cheapest request every server of the era must answer
// (ping in the stateful era, server/discover in the stateless one) and
// returns its reply: checks use it to know the target has processed what
// was sent before.
func Sentinel(ctx context.Context, s Sess) session.Reply {
	if s.Version().Era() == spec.Stateless {
		return s.Call(ctx, spec.MethodServerDiscover, nil)
	}
	return s.Call(ctx, spec.MethodPing, nil)
}

// Tools lists the target's tools in this version (every page, at most
// maxPages), once per version. ok is false when the server declared no
// tools or listing failed.
//
// Checks running at the same time list once: while one lists, the others
// wait for its list (a server with a huge list is held in memory once).
func (t *T) Tools() ([]mcp.Tool, bool) {
	if !t.HasCapability("tools") {
		return nil, false
	}
	vr := t.vr
	vr.mu.Lock()
	for {
		if vr.toolsOK || vr.toolsErr != nil {
			defer vr.mu.Unlock()
			t.listedBefore = true
			return vr.tools, vr.toolsOK
		}
		listing := vr.toolsListing
		if listing == nil {
			break
		}
		vr.mu.Unlock()
		select {
		case <-listing:
		case <-t.Ctx.Done():
			return nil, false
		}
		vr.mu.Lock()
	}
	listing := make(chan struct{})
	vr.toolsListing = listing
	vr.mu.Unlock()
	defer func() {
		// Also when the listing was cut short (the check aborted): a
		// waiting check then lists itself.
		vr.mu.Lock()
		vr.toolsListing = nil
		vr.mu.Unlock()
		close(listing)
	}()
	c := t.Session()
	mark := t.rec.Mark()
	var all []mcp.Tool
	var err error
	cursor := ""
	for page := 0; page < maxPages; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		r := c.S().Call(t.Ctx, "tools/list", params)
		if !r.OK() {
			err = &listFailure{method: "tools/list", r: r}
			break
		}
		var tools []mcp.Tool
		var next string
		if tools, next, err = decodeToolPage(r); err != nil {
			break
		}
		if all == nil {
			all = tools
		} else {
			all = append(all, tools...)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if err == nil {
		vr.r.uses.note(vr.v, all)
	}
	listed := t.rec.Since(mark)
	t.vr.mu.Lock()
	defer t.vr.mu.Unlock()
	t.vr.tools, t.vr.toolsErr, t.vr.toolsOK = all, err, err == nil
	t.vr.toolsEvents = listed[:min(len(listed), citedEvents)]
	return all, err == nil
}

// cite gives a broken check whose transcript is empty the traffic it
// judged: a check that reads what the version's handshake declared
// (capabilities, the session id, a server/discover result) or the tools
// another check listed sends nothing itself, and its report would show
// no exchange at all. It adds that traffic to the check's transcript,
// after a note saying whose it is. Passive checks get theirs from
// passiveEvidence.
func (t *T) cite() {
	if t.def.Passive || len(t.ViolationActuals()) == 0 || len(t.rec.Events()) > 0 {
		return
	}
	t.vr.mu.Lock()
	evs, what := t.vr.handshake, "the "+string(t.vr.v)+" handshake of the session the version was probed with"
	if t.listedBefore {
		evs, what = t.vr.toolsEvents, "the tools/list exchange of the check that listed the tools this check judged"
	}
	t.vr.mu.Unlock()
	if len(evs) == 0 {
		return
	}
	note := reports.WireEvent{Offset: evs[0].Offset, Direction: reports.Note, Conn: evs[0].Conn,
		Note: "cited: " + what + " (this check sent nothing of its own)"}
	t.rec.Cite(append([]reports.WireEvent{note}, evs...))
}

// decodeToolPage decodes one tools/list result into a slice of exactly the
// page's length: a page of 200,000 tools decoded the plain way grows its
// slice step by step, holding about twice the final size meanwhile.
func decodeToolPage(r session.Reply) ([]mcp.Tool, string, error) {
	var page struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if r.Result == nil {
		return nil, "", r.Decode(&page) // says there is no result
	}
	if err := json.Unmarshal(r.Result, &page); err != nil {
		return nil, "", fmt.Errorf("session: the tools/list result does not decode as a list of tools: %v", err)
	}
	tools := make([]mcp.Tool, len(page.Tools))
	for i, raw := range page.Tools {
		if err := json.Unmarshal(raw, &tools[i]); err != nil {
			return nil, "", fmt.Errorf("session: tool %d of the tools/list result does not decode as a tool: %v", i, err)
		}
		page.Tools[i] = nil // let the copy go as soon as it is decoded
	}
	return tools, page.NextCursor, nil
}

// RequireTool makes the check untestable unless the target lists a tool of
// that name (a fixture) that the tool policy lets mcpcheck call; it
// returns the tool. A fixture the policy leaves out makes the check
// untestable with the policy's reason and the flag that calls it.
func (t *T) RequireTool(name string) (mcp.Tool, bool) {
	tools, _ := t.Tools()
	for _, tl := range tools {
		if tl.Name == name {
			if d := t.toolPolicy().Decide(tl); !d.Call {
				t.Untestable(fmt.Sprintf("the fixture %s is not called by the tool policy %s: %s; --call-tools %s calls it (on a disposable instance)", name, t.toolPolicy().Tier(), d.Why, d.Include))
				return mcp.Tool{}, false
			}
			return tl, t.Open()
		}
	}
	if _, listed := t.Tools(); !listed && t.HasCapability("tools") {
		t.RequireTools() // the listing failed: say so, not that the tool is missing
		return mcp.Tool{}, false
	}
	t.Untestable(fmt.Sprintf("the target offers no tool %q (a fixture this check needs)", name))
	return mcp.Tool{}, false
}

// maxPages bounds every pagination walk.
const maxPages = 200

// resultObject decodes a result into a generic object.
func resultObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}
