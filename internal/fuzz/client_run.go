package fuzz

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// DefaultClientScenario is the task a fuzzed client is given
// (MCP_CONFORMANCE_SCENARIO): the official conformance suite's tools_call,
// list the tools and call add_numbers, which the stage serves.
const DefaultClientScenario = "tools_call"

// Environment variables a scripted client reads, as the official
// conformance suite (and mcpcheck client) sets them.
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envVersion  = "MCP_CONFORMANCE_PROTOCOL_VERSION"
)

// ClientTarget is an MCP client under test in a client campaign: a command
// line mcpcheck launches once per execution against a case of its stage,
// which plays the server (see internal/harness/stage). The client must perform a
// task (its scenario) and exit: how long its clean run takes is what a
// run under a hostile server is held to.
type ClientTarget struct {
	// Command is the client's command line, run through sh -c. For an
	// HTTP client "{url}" is replaced by the case's streamable HTTP URL,
	// or the URL is appended; for a stdio client "{server}" is replaced by
	// the server command line it must start (mcpcheck's relay), as shell
	// words, "{server-line}" by that line as one word, or the words are
	// appended (as mcpcheck client --command and --stdio do).
	Command string
	// Stdio says the client speaks stdio (it starts the server).
	Stdio bool
	// Relay is the mcpcheck binary a stdio client runs as its server
	// ("relay" subcommand); empty means this executable.
	Relay string
	// Env is added to the client's environment (KEY=VALUE); Dir is its
	// working directory.
	Env []string
	Dir string
	// Scenario is the MCP_CONFORMANCE_SCENARIO the client gets (default
	// DefaultClientScenario).
	Scenario string
}

// Describe names the client for reports: its command line and transport.
func (t ClientTarget) Describe() string {
	if t.Stdio {
		return t.Command + " (stdio client)"
	}
	return t.Command + " (HTTP client)"
}

// Transport is "stdio" or "streamable", as Result.Transport names it.
func (t ClientTarget) Transport() string {
	if t.Stdio {
		return string(wire.TransportStdio)
	}
	return string(wire.TransportStreamable)
}

func (t ClientTarget) relay() (string, error) {
	if t.Relay != "" || !t.Stdio {
		return t.Relay, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("fuzz: cannot find the mcpcheck binary a stdio client must start as its server: %w; set ClientTarget.Relay", err)
	}
	return exe, nil
}

// addNumbers is the tool of the stage's tools_call task.
var addNumbers = stage.Tool{
	Def: mcp.Tool{Name: "add_numbers", Description: "Adds two numbers",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
	Run: func(c *stage.Call) (any, error) {
		var a, b float64
		_ = json.Unmarshal(c.Arguments()["a"], &a)
		_ = json.Unmarshal(c.Arguments()["b"], &b)
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(fmt.Sprintf("The sum of %v and %v is %v.", a, b, a+b))}}, nil
	},
}

// clientLimits bound one client run.
type clientLimits struct {
	// wait bounds the answer to the liveness ping.
	wait time.Duration
	// deadline bounds the whole run, dropDeadline a run whose input
	// leaves a request unanswered (the client's own timeout must fire).
	deadline, dropDeadline time.Duration
	// maxRSS bounds the client's process group's resident memory.
	maxRSS uint64
	// cleanOK says the client's clean run exited with status 0: then a
	// run that only reframes the answer's SSE stream validly must too.
	cleanOK bool
}

// validSSEMutator reports whether the inputs of the client mutator called
// name keep the SSE stream valid (Mutator.ValidSSE: the SSE format allows
// CR and CR LF line ends, data spread over lines, a leading BOM, any
// write boundaries, comments, retry fields): a client that completes its
// task in its clean run must complete it under them too.
func validSSEMutator(name string) bool {
	m, ok := mutate.LookupClientMutator(name)
	return ok && m.ValidSSE
}

// clientRun is what one client run showed.
type clientRun struct {
	obs      []oracle.Observation
	events   []reports.WireEvent
	stderr   []byte
	requests []string // methods of the client's requests, in order
	answered []string // methods of the stage's requests the client answered
	played   bool
	took     time.Duration
	peakRSS  uint64
	// slow says the client answered the ping only within the
	// confirmation window (see conn.HangConfirm).
	slow bool
	exit string
	// code is the exit status (-1 when killed or stopped).
	code int
}

// Bounds of one client run.
const (
	maxClientEvents = 20000
	clientGrace     = 300 * time.Millisecond
	memoryEvery     = 200 * time.Millisecond
	watchEvery      = 20 * time.Millisecond
)

func runToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// runClientOnce launches the client once against a case of st that plays
// in, watches it (exit, liveness ping, deadline, memory) and judges what it
// did. The error is set only when the run could not take place.
func runClientOnce(ctx context.Context, st *stage.Stage, t ClientTarget, v spec.Version, in mutate.Input, lim clientLimits) (clientRun, error) {
	var run clientRun
	relay, err := t.relay()
	if err != nil {
		return run, err
	}
	pl := newPlayer(v, in, runToken())
	sc, err := pl.open(st, t.Stdio)
	if err != nil {
		return run, err
	}
	defer sc.Close()
	defer close(pl.done)
	scenario := t.Scenario
	if scenario == "" {
		scenario = DefaultClientScenario
	}
	env := append(append([]string(nil), t.Env...), envScenario+"="+scenario, envVersion+"="+string(v))
	began := time.Now()
	proc, err := sc.Launch(stage.Launch{Command: t.Command, Stdio: t.Stdio, Relay: relay, Env: env, Dir: t.Dir, Grace: clientGrace})
	if err != nil {
		return run, fmt.Errorf("fuzz: %w; check --client/--client-stdio", err)
	}
	deadline := began.Add(lim.deadline)
	if pl.plan.MayLoseAnswer() {
		deadline = began.Add(lim.dropDeadline)
	}
	rec := sc.Recording()
	watch := time.NewTicker(watchEvery)
	defer watch.Stop()
	lastMem := time.Time{}
	probeAnswered := false
	// pingLate and overtime say the ping's wait and the run's deadline
	// have each been given their confirmation window (conn.HangConfirm).
	pingLate, overtime := false, false
	// samples and busy count the memory samples of the ping's
	// confirmation window and those that found the client running or
	// waiting for a CPU (computing); pingBusy says the run's deadline,
	// not the ping, judges a client that was (see computing).
	samples, busy, pingBusy := 0, 0, false
	var verdict *oracle.Observation
	exited := false
loop:
	for {
		select {
		case <-proc.Exited():
			exited = true
			break loop
		case <-ctx.Done():
			_ = proc.Stop(context.Background())
			return run, ctx.Err()
		case now := <-watch.C:
			if now.Sub(lastMem) >= memoryEvery {
				lastMem = now
				rss, running := conn.GroupStat(proc.Pid())
				run.peakRSS = max(run.peakRSS, rss)
				if pingLate {
					samples++
					if running {
						busy++
					}
				}
				if lim.maxRSS > 0 && rss > lim.maxRSS {
					verdict = &oracle.Observation{Kind: reports.FindingCrash, Check: "resource/memory",
						Message: fmt.Sprintf("the client's processes grew to %.0f MiB of resident memory, over the bound of %.0f MiB; mcpcheck killed them", mib(rss), mib(lim.maxRSS))}
					break loop
				}
			}
			if _, at := pl.state(); !at.IsZero() && !probeAnswered && !pingBusy {
				answered, misnumbered := answeredProbe(rec.Events())
				switch pingOverdue(now.Sub(at), lim.wait, pingLate, answered) {
				case pingAnswered:
					probeAnswered = true
					if misnumbered {
						sc.Note("mcpcheck-fuzz", "the client answered under ids no request of the stage awaits, as many as the requests awaiting an answer, the ping among them: the ping's answer came, misnumbered; alive, not hung")
					}
					if pingLate {
						run.slow = true
						sc.Note("mcpcheck-fuzz", fmt.Sprintf("the client answered the ping %v after it was sent, later than the wait of %v: slow, or starved by a busy machine, but not hung", now.Sub(at).Round(time.Millisecond), lim.wait))
					}
				case pingHung:
					if conn.Computing(samples, busy) && now.Before(deadline) {
						// Not blocked: computing, or starved by a busy
						// machine. A client that never answers is still
						// judged, by the run's deadline.
						pingBusy = true
						sc.Note("mcpcheck-fuzz", fmt.Sprintf("no answer to the ping within %v, but %s; its deadline judges it", lim.wait+conn.HangConfirm(lim.wait), conn.BusyWhy(busy, samples)))
						break
					}
					verdict = pingVerdict(v, fmt.Sprintf("the client did not answer the ping the stage sent right after the input within %v (and %v more to confirm it), and is still running", lim.wait, conn.HangConfirm(lim.wait)))
					break loop
				case pingSuspect:
					// A healthy client on a busy machine can miss the
					// wait: the ping gets the confirmation window.
					pingLate = true
					sc.Note("mcpcheck-fuzz", fmt.Sprintf("no answer to the ping within %v; waiting %v more before calling it a hang", lim.wait, conn.HangConfirm(lim.wait)))
				}
			}
			if now.After(deadline) {
				if !overtime {
					// The same for the run's own deadline: a busy machine
					// slows the whole task, not only the ping.
					overtime = true
					deadline = deadline.Add(conn.HangConfirm(lim.wait))
					sc.Note("mcpcheck-fuzz", fmt.Sprintf("the client is still running at its deadline (%v after it started); waiting %v more before judging it", now.Sub(began).Round(time.Millisecond), conn.HangConfirm(lim.wait)))
					continue
				}
				verdict = hangVerdict(v, pl, probeAnswered, now.Sub(began), lim)
				break loop
			}
		}
	}
	run.took = time.Since(began)
	if !exited {
		sc.Note("mcpcheck-fuzz", "mcpcheck stops the client: "+verdict.Message)
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = proc.Stop(stopCtx)
	cancel()
	// Let the last exchanges in (a DELETE on close, the relay's end).
	if t.Stdio {
		sc.WaitStdio(time.Second)
	} else {
		sc.WaitIdle(time.Second)
	}
	run.exit, run.code = proc.ExitDescription(), proc.ExitCode()
	_, run.stderr = proc.Output()
	run.played, _ = pl.state()
	if verdict != nil {
		run.obs = append(run.obs, *verdict)
	} else if o, ok := oracle.ClientCrash(proc.ExitState(), run.stderr); ok {
		run.obs = append(run.obs, o)
	} else if st := proc.ExitState(); lim.cleanOK && validSSEMutator(in.Mutator) && st != nil && st.ExitCode() != 0 {
		if req := rules.FirstInForce(v, "transport-http.post.client-handles-json-and-sse"); req != "" {
			run.obs = append(run.obs, oracle.Observation{Kind: reports.FindingViolation, Check: "sse/valid-stream-refused/" + sseFeature(pl.plan.Reply), Requirement: req, Level: rules.Level(req),
				Message: fmt.Sprintf("the client failed its task (%s) when the answer to its %s request came in a valid SSE stream framed differently (%s); its clean run succeeded", run.exit, pl.plan.Trigger, describeSSE(pl.plan.Reply))})
		}
	}
	evs := rec.Events()
	obs, requests, answered := oracle.JudgeClient(v, !t.Stdio, evs)
	run.obs = append(run.obs, obs...)
	run.requests, run.answered = requests, answered
	run.events = rebase(rec.Recorder().Events())
	if !run.played && pl.plan.Trigger != "" {
		run.events = append(run.events, reports.WireEvent{Direction: reports.Note, Note: fmt.Sprintf("the input was not played: the client made no %s request #%d", pl.plan.Trigger, pl.plan.Nth)})
	}
	return run, nil
}

// open creates the stage case that plays pl: the reference engine serving
// version v with the add_numbers tool, pl's hooks in the path of its
// answers on the client's transport.
func (p *player) open(st *stage.Stage, stdio bool) (*stage.Case, error) {
	cfg := stage.Config{Server: stage.ServerOptions{Versions: []spec.Version{p.v}, NoFixtures: true, Tools: []stage.Tool{addNumbers}, StepDelay: -1}, MaxEvents: maxClientEvents}
	if stdio {
		cfg.Server.Rewrite = p.rewrite
		cfg.Stdio.Write = p.write
	} else {
		cfg.Middleware = p.middleware
	}
	sc, err := st.NewCase(cfg)
	if err != nil {
		return nil, fmt.Errorf("fuzz: the stage cannot open a case for the client: %w", err)
	}
	p.mu.Lock()
	p.base, p.notes = sc.Base(), sc.Note
	p.mu.Unlock()
	return sc, nil
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// sseFeatures lists what an SSE reply's stream does that the plain one
// does not: a short name for check names and a phrase for messages.
func sseFeatures(q *mutate.HTTPReply) (names, words []string) {
	if q == nil || q.SSE == nil {
		return nil, nil
	}
	d := q.SSE
	add := func(name, word string) { names, words = append(names, name), append(words, word) }
	switch d.LineEnd {
	case "\r":
		add("cr-line-ends", "lines ended with CR")
	case "\r\n":
		add("crlf-line-ends", "lines ended with CR LF")
	}
	if d.MultiLine {
		add("multi-line-data", "each message over several data lines")
	}
	if d.BOM {
		add("bom", "a byte order mark first")
	}
	if d.Split > 0 {
		add("split-writes", "written "+strconv.Itoa(d.Split)+" bytes at a time")
	}
	if d.Retry != "" {
		add("retry-field", "retry: "+d.Retry)
	}
	if d.KeepAlive {
		add("keep-alive-comments", "kept open with comments after the answer")
	}
	if d.ID != "" {
		add("event-ids", "event ids of "+strconv.Itoa(len(d.ID))+" bytes")
	}
	return names, words
}

// sseFeature names what a valid SSE stream did that the plain one does
// not, for the check of a client that refused it ("bom", "cr-line-ends",
// features joined with "+"): a client that refuses a byte order mark and
// one that refuses CR line ends have two bugs.
func sseFeature(q *mutate.HTTPReply) string {
	if names, _ := sseFeatures(q); len(names) > 0 {
		return strings.Join(names, "+")
	}
	return "plain"
}

// describeSSE names the SSE damage of a reply in words.
func describeSSE(q *mutate.HTTPReply) string {
	if _, words := sseFeatures(q); len(words) > 0 {
		return strings.Join(words, ", ")
	}
	return "no damage"
}

// hangVerdict describes a client still running at its deadline.
func hangVerdict(v spec.Version, pl *player, probeAnswered bool, ran time.Duration, lim clientLimits) *oracle.Observation {
	_, probed := pl.state()
	switch {
	case pl.plan.MayLoseAnswer() && !probeAnswered && !probed.IsZero():
		// The ping went out and was never answered: not a waiting client.
	case pl.plan.MayLoseAnswer():
		req := rules.FirstInForce(v, "lifecycle.timeouts.per-request-timeout", "cancellation.timeout.set-for-requests")
		lvl := catalog.Should
		if req != "" {
			lvl = rules.Level(req)
		}
		how := "never answered"
		if !pl.plan.Drop {
			how = "bent its HTTP answer to"
		}
		return &oracle.Observation{Kind: reports.FindingViolation, Check: "timeout/unanswered-request", Requirement: req, Level: lvl,
			Message: fmt.Sprintf("the server %s the client's %s request, and the client was still waiting %v later: it puts no timeout on its requests", how, pl.plan.Trigger, ran.Round(time.Millisecond))}
	case probeAnswered:
		return &oracle.Observation{Kind: reports.FindingHang, Check: "hang/no-progress",
			Message: fmt.Sprintf("the client answers ping but had not finished its task %v after it started (the bound is its clean run plus %v)", ran.Round(time.Millisecond), lim.wait)}
	case probed.IsZero():
		return &oracle.Observation{Kind: reports.FindingHang, Check: "hang/no-progress",
			Message: fmt.Sprintf("the client had not finished its task %v after it started (the bound is its clean run plus %v)", ran.Round(time.Millisecond), lim.wait)}
	}
	return pingVerdict(v, fmt.Sprintf("the client did not answer the ping the stage sent after the input and had not finished its task %v after it started", ran.Round(time.Millisecond)))
}

// pingState is what the liveness ping's wait has come to.
type pingState int

const (
	pingWaiting  pingState = iota // within the wait, or already suspected and within the confirmation window
	pingAnswered                  // the client answered it
	pingSuspect                   // the wait ran out just now: the confirmation window starts
	pingHung                      // the confirmation window ran out too: a hang
)

// pingOverdue decides, sinceSent after the ping went out, what its wait
// has come to: answered, still waiting, suspected (the wait ran out and
// late is not yet set) or hung (the wait and the confirmation window,
// conn.HangConfirm, both ran out).
func pingOverdue(sinceSent, wait time.Duration, late, answered bool) pingState {
	switch {
	case answered:
		return pingAnswered
	case sinceSent > wait+conn.HangConfirm(wait):
		return pingHung
	case sinceSent > wait && !late:
		return pingSuspect
	}
	return pingWaiting
}

// pingVerdict is the hang of a client that leaves the liveness ping
// unanswered (one signature however it was noticed).
func pingVerdict(v spec.Version, msg string) *oracle.Observation {
	o := &oracle.Observation{Kind: reports.FindingHang, Check: "hang/ping", Requirement: rules.FirstInForce(v, "ping.response.prompt-empty-result"), Message: msg}
	if o.Requirement != "" {
		o.Level = rules.Level(o.Requirement)
	}
	return o
}

// answeredProbe reports whether the client answered the liveness ping:
// under its id, or misnumbered. A response under an id that answers no
// request of the stage is an answer all the same (the client is alive;
// the judge reports the unknown id), and once such answers, written after
// the ping went out, number the stage's requests still awaiting one, the
// ping among them, the ping's answer has come, misnumbered.
func answeredProbe(evs []stage.Event) (answered, misnumbered bool) {
	probe := jsonrpc.StringID(ProbeID)
	sent := map[string]bool{}     // ids of the stage's requests
	awaiting := map[string]bool{} // those not answered yet
	probed := false
	unknown := 0
	for _, e := range evs {
		if !e.IsMessage() {
			continue
		}
		switch {
		case e.From == stage.FromStage && e.Msg.Shape == jsonrpc.KindRequest:
			k := e.Msg.ID.String()
			sent[k], awaiting[k] = true, true
			probed = probed || e.Msg.ID == probe
		case e.From == stage.FromClient && e.Msg.Shape.IsResponse():
			if e.Msg.ID == probe {
				return true, false
			}
			if k := e.Msg.ID.String(); awaiting[k] {
				delete(awaiting, k)
			} else if probed && !sent[k] {
				unknown++
			}
		}
	}
	if probed && awaiting[probe.String()] && unknown > 0 && unknown >= len(awaiting) {
		return true, true
	}
	return false, false
}

// rebase makes a case's transcript start at offset zero (a stage's
// recorders count from the stage's start).
func rebase(evs []reports.WireEvent) []reports.WireEvent {
	if len(evs) == 0 {
		return evs
	}
	base := evs[0].Offset
	for i := range evs {
		evs[i].Offset -= base
	}
	return evs
}

// errNoRequests is the calibration's complaint about a client that never
// reached the stage.
var errNoRequests = errors.New("the client made no request")
