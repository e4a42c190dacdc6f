package client

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/stage"
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

// runCase runs scenario s in version v: a case on the stage, the client
// launched against it, and everything recorded until the client exits,
// the scenario is done or the case times out.
func (r *runner) runCase(ctx context.Context, s *Scenario, v spec.Version) *Case {
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
		Env: append(append([]string(nil), r.cfg.Launch.Env...), EnvScenario+"="+s.Name, EnvVersion+"="+string(v))}
	if s.Context != nil {
		if ctxJSON := s.Context(env, sc); ctxJSON != "" {
			l.Env = append(l.Env, EnvContext+"="+ctxJSON)
		}
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
	timer := time.NewTimer(r.cfg.CaseTimeout)
	defer timer.Stop()
	exited := false
wait:
	for {
		changed := rec.Changed()
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
			why = fmt.Sprintf("the client was still running after %v", r.cfg.CaseTimeout)
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
	res.Events, res.Dropped = rec.Events(), rec.Dropped()
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
