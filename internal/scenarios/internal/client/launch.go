package client

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Environment variables a scripted client reads, as the official
// conformance suite sets them.
const (
	EnvScenario = "MCP_CONFORMANCE_SCENARIO"
	EnvVersion  = "MCP_CONFORMANCE_PROTOCOL_VERSION"
	EnvContext  = "MCP_CONFORMANCE_CONTEXT"
)

// NoteHarnessStop marks the moment the harness began stopping a client
// that was still running: what follows is the harness's doing, not the
// client's.
const NoteHarnessStop = "harness-stop"

// NoteHarnessCleanup marks the moment the harness ends the stdio servers
// a client that already exited left running: their end is the harness's
// doing too.
const NoteHarnessCleanup = "harness-cleanup"

// runCase runs scenario s in version v (see launchCase). A scripted
// client that refuses an mcpcheck scenario (it exits by itself with an
// error status, having sent nothing: go-sdk's conformance client says
// "Unknown scenario") is launched again on a fresh case, told one official
// scenario after another (Scenario.rides) until it plays one, the stage
// still playing s: so it is still asked everything the stage asks. The
// case remembers the refusal, in the client's own first error line.
func (r *runner) runCase(ctx context.Context, s *Scenario, v spec.Version) *Case {
	res := r.launchCase(ctx, s, v, s.Name)
	if !res.refused() {
		return res
	}
	refusal := refusalOf(res)
	for _, ride := range s.rides(Env{Version: v, Transport: r.transport}) {
		if ctx.Err() != nil {
			break
		}
		again := r.launchCase(ctx, s, v, ride)
		if again.refused() {
			continue
		}
		again.RodeOn, again.Refusal = ride, refusal
		return again
	}
	return res
}

// refusalOf says how the client turned a case down: its exit and its own
// first error line.
func refusalOf(c *Case) string {
	why := fmt.Sprintf("it %s, having sent nothing", c.Exit)
	if line := firstErrorLine(c.Stderr, c.Stdout); line != "" {
		why += ": " + line
	}
	return why
}

// outputLines are the non-empty lines of a client's output, trimmed and
// without Go's log time stamp.
func outputLines(b []byte) []string {
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(logStamp.ReplaceAllString(strings.TrimSpace(line), "")); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// outputGist says in a line what a client printed, per stream (stderr
// first): the line that tells most (its first error, else its first line),
// then its last line and the number of lines when there are more. A
// client that sent nothing says why in its first complaint (an unknown
// scenario, a usage error), not in the end of a stack trace.
func outputGist(stderr, stdout []byte) string {
	var parts []string
	for _, o := range []struct {
		name string
		b    []byte
	}{{"stderr", stderr}, {"stdout", stdout}} {
		lines := outputLines(o.b)
		if len(lines) == 0 {
			continue
		}
		gist := firstErrorLine(o.b)
		part := fmt.Sprintf("%s %q", o.name, gist)
		if last := clip(lines[len(lines)-1], 200); len(lines) > 1 && last != gist {
			part += fmt.Sprintf(" … %q (%d lines)", last, len(lines))
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "no output"
	}
	return strings.Join(parts, "; ")
}

// rideContext is MCP_CONFORMANCE_CONTEXT for a case of s played as the
// official scenario ride: s's own context, and for http-custom-headers the
// tool calls to make (toolCalls).
func rideContext(s *Scenario, env Env, own, ride string, tools []server.Tool) string {
	if ride != rideToolCalls {
		return own
	}
	var calls []RideCall
	if s.RideCalls != nil {
		calls = s.RideCalls(env)
	} else {
		for _, tl := range tools {
			calls = append(calls, RideCall{Name: tl.Def.Name, Arguments: minimalArguments(tl.Def.InputSchema)})
		}
	}
	m := map[string]any{}
	if own != "" {
		_ = json.Unmarshal([]byte(own), &m)
	}
	m["toolCalls"] = calls
	b, err := json.Marshal(m)
	if err != nil {
		return own
	}
	return string(b)
}

// minimalArguments fills the required properties of an inputSchema as
// Flow says: a property's default, its first enum value, or its type's
// simplest value.
func minimalArguments(schema json.RawMessage) map[string]any {
	var sc struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &sc)
	out := map[string]any{}
	for _, name := range sc.Required {
		var p struct {
			Default any   `json:"default"`
			Enum    []any `json:"enum"`
			Type    any   `json:"type"`
		}
		_ = json.Unmarshal(sc.Properties[name], &p)
		switch typ, _ := p.Type.(string); {
		case p.Default != nil:
			out[name] = p.Default
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		case typ == "number" || typ == "integer":
			out[name] = 1
		case typ == "boolean":
			out[name] = true
		case typ == "array":
			out[name] = []any{}
		case typ == "object":
			out[name] = map[string]any{}
		default:
			out[name] = "mcpcheck"
		}
	}
	return out
}

// refused reports whether the client turned the case's scenario down: it
// exited by itself with an error status before sending anything.
func (c *Case) refused() bool {
	return c.Launched && !c.TimedOut && !c.Interrupted && !c.Stopped && c.ExitCode > 0 && !c.Traffic()
}

// logStamp is the date and time Go's log package puts before a line.
var logStamp = regexp.MustCompile(`^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(\.\d+)? `)

// firstErrorLine is the first line of the client's output that reads as
// an error (or else its first line), stderr first, without a log time
// stamp, at most 200 bytes.
func firstErrorLine(outs ...[]byte) string {
	var first string
	for _, b := range outs {
		for _, line := range outputLines(b) {
			if first == "" {
				first = line
			}
			l := strings.ToLower(line)
			if strings.Contains(l, "error") || strings.Contains(l, "unknown") || strings.Contains(l, "unsupported") || strings.Contains(l, "fail") {
				return clip(line, 200)
			}
		}
	}
	return clip(first, 200)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// DefaultStartupTimeout is Config.StartupTimeout's default: a minute, the
// start-up allowance the server suite gives a server process.
const DefaultStartupTimeout = time.Minute

// launchCase runs scenario s in version v with the client told the
// scenario name: a case on the stage, the client launched against it, and
// everything recorded until the client exits, the scenario is done or the
// case times out.
func (r *runner) launchCase(ctx context.Context, s *Scenario, v spec.Version, name string) *Case {
	res := &Case{Scenario: s, Version: v, Transport: r.transport, ExitCode: -1}
	env := Env{Version: v, Transport: r.transport}
	var cfg stage.Config
	if s.Stage != nil {
		cfg = s.Stage(env)
	}
	if len(cfg.Server.Versions) == 0 {
		cfg.Server.Versions = []spec.Version{v}
	}
	sc, err := r.stage.NewCase(cfg)
	if err != nil {
		res.LaunchErr = err
		return res
	}
	defer sc.Close()
	l := stage.Launch{Command: r.cfg.Launch.Command, Stdio: r.cfg.Launch.Stdio, Relay: r.cfg.Launch.Relay, Dir: r.cfg.Launch.Dir,
		Env: append(append([]string(nil), r.cfg.Launch.Env...), EnvScenario+"="+name, EnvVersion+"="+string(v))}
	var own string
	if s.Context != nil {
		own = s.Context(env, sc)
	}
	if name != s.Name {
		own = rideContext(s, env, own, name, cfg.Server.Tools)
	}
	if own != "" {
		l.Env = append(l.Env, EnvContext+"="+own)
	}
	if s.URL != nil && !r.cfg.Launch.Stdio {
		l.URL = s.URL(sc)
	}
	p, err := sc.Launch(l)
	if err != nil {
		res.LaunchErr = err
		return res
	}
	res.Launched = true
	rec := sc.Recording()
	// The case timeout runs from the client's first message; until then
	// the client has its start-up allowance (Config.StartupTimeout).
	allowance := r.starts.allowance(r.cfg)
	timer := time.NewTimer(allowance)
	defer timer.Stop()
	spoke, seen := false, 0
	exited := false
wait:
	for {
		changed := rec.Changed()
		if !spoke {
			evs := rec.Events()
			for _, e := range evs[seen:] {
				if e.From == stage.FromClient {
					spoke = true
					r.starts.spokeOnce()
					timer.Reset(r.cfg.CaseTimeout)
					break
				}
			}
			seen = len(evs)
		}
		if s.Done != nil && s.Done(&Case{Scenario: s, Version: v, Transport: r.transport, Events: rec.Events(), Launched: true}) {
			res.Stopped = true
			break
		}
		select {
		case <-p.Exited():
			exited = true
			break wait
		case <-changed:
		case <-timer.C:
			res.TimedOut = true
			break wait
		case <-ctx.Done():
			res.Interrupted = true
			break wait
		}
	}
	// Let trailing messages in: a client that exited by itself is done once
	// its last exchanges are recorded (a DELETE on close, the relay's end);
	// one still running gets Settle of quiet, at most a few seconds.
	if exited {
		sc.WaitIdle(3 * time.Second)
	} else {
		r.settle(rec, exited, p)
	}
	if !isClosed(p.Exited()) {
		why := "the scenario had seen what it is about"
		if res.TimedOut {
			why = fmt.Sprintf("the client was still running %v after its first message", r.cfg.CaseTimeout)
			if !spoke {
				why = fmt.Sprintf("the client sent nothing within its start-up allowance of %v", allowance)
				r.starts.silentThrough(allowance, r.cfg)
			}
		}
		sc.Note(NoteHarnessStop, "the harness stops the client: "+why)
	} else if n := sc.StdioOpen(); n > 0 {
		sc.Note(NoteHarnessCleanup, fmt.Sprintf("the client exited and left %d stdio server(s) running: the harness ends them", n))
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = p.Stop(stopCtx)
	cancel()
	if r.cfg.Launch.Stdio {
		sc.WaitStdio(3 * time.Second)
	}
	res.Events, res.Dropped = SentOrder(rec.Events()), rec.Dropped()
	res.Transcript = rec.Recorder().Events()
	res.Exit, res.ExitCode = p.ExitDescription(), p.ExitCode()
	res.Stdout, res.Stderr = p.Output()
	return res
}

// settle waits until the recording has been quiet for Settle (bounded).
func (r *runner) settle(rec *stage.Recording, exited bool, p *stage.Process) {
	limit := time.NewTimer(3 * time.Second)
	defer limit.Stop()
	exit := p.Exited()
	if exited {
		exit = nil
	}
	for {
		quiet := time.NewTimer(r.cfg.Settle)
		select {
		case <-rec.Changed():
		case <-quiet.C:
			return
		case <-limit.C:
			quiet.Stop()
			return
		case <-exit:
			exit = nil // the client's end may bring its last words: wait on
		}
		quiet.Stop()
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
