package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ReplayResult is what replaying a finding showed.
type ReplayResult struct {
	// Reproduced is true when the expected observation (same signature)
	// was seen again.
	Reproduced bool
	// Expect is the observation the finding recorded.
	Expect oracle.Observation
	// Observations are everything the oracles saw in the replay.
	Observations []oracle.Observation
	Transcript   []reports.WireEvent
	StderrTail   []byte
}

// ReplayOptions tune Replay; the zero value uses the finding's own settings.
type ReplayOptions struct {
	// Original replays the input as found instead of the minimized one.
	Original bool
	// Version overrides the protocol version recorded in the finding.
	Version spec.Version
	// Wait overrides the liveness deadline.
	Wait time.Duration
	// StartupTimeout is the fresh instance's start-up allowance (see
	// Config.StartupTimeout; default DefaultStartupTimeout).
	StartupTimeout time.Duration
	// ClientTimeout bounds a client run whose input leaves a request
	// unanswered (ReplayClient; default DefaultClientTimeout).
	ClientTimeout time.Duration
}

// LoadReplay reads a finding's replay file; path is the finding directory
// or the replay.json inside it.
func LoadReplay(path string) (ReplayFile, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, FileReplay)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ReplayFile{}, fmt.Errorf("fuzz: cannot read the finding %s: %w; pass a finding directory written by a campaign or its %s", path, err, FileReplay)
	}
	var rf ReplayFile
	if err := json.Unmarshal(b, &rf); err != nil {
		return ReplayFile{}, fmt.Errorf("fuzz: %s is not a replay file: %v", path, err)
	}
	if rf.Format != 1 || !rf.Version.Known() || (len(rf.Input.Chunks) == 0 && rf.Input.HTTP == nil && rf.Input.Client == nil) {
		return ReplayFile{}, fmt.Errorf("fuzz: %s has format %d, version %q, %d chunks and no HTTP request; it was not written by this mcpcheck", path, rf.Format, rf.Version, len(rf.Input.Chunks))
	}
	if now := oracle.CanonicalCheck(rf.Expect.Check); now != rf.Expect.Check {
		// Written before the finding names were unified: expect the
		// same observation under its current name.
		rf.Expect.Check = now
		rf.Signature = rf.Expect.Signature()
	}
	return rf, nil
}

// Replay runs a finding's input against a fresh instance of target (the
// handshake first, unless the input asks for a fresh, bare instance) and
// reports whether the same problem shows again. The run is deterministic
// for a deterministic target.
func Replay(ctx context.Context, findingPath string, target conn.Target, opts ReplayOptions) (*ReplayResult, error) {
	rf, err := LoadReplay(findingPath)
	if err != nil {
		return nil, err
	}
	if rf.Input.Client != nil {
		return nil, fmt.Errorf("fuzz: %s comes from a client campaign; replay it with --client or --client-stdio", findingPath)
	}
	v, wait, in := opts.replayed(rf)
	run, err := runOnce(ctx, target, v, in, wait, opts.StartupTimeout)
	if err != nil {
		return nil, err
	}
	return replayResult(rf, run.obs, run.events, run.stderr), nil
}

// replayed is what a replay of rf runs with: the version, the wait and
// the input (minimized, or the original) of the finding, where opts does
// not say otherwise.
func (opts ReplayOptions) replayed(rf ReplayFile) (spec.Version, time.Duration, mutate.Input) {
	v, wait, in := rf.Version, rf.Wait, rf.Input
	if opts.Version != "" {
		v = opts.Version
	}
	if opts.Wait > 0 {
		wait = opts.Wait
	}
	if wait <= 0 {
		wait = DefaultWait
	}
	if opts.Original {
		in = rf.Original
	}
	return v, wait, in
}

// replayResult is what a replay of rf showed: the oracles' observations
// (reproduced when one is rf's bug), the transcript and the stderr.
func replayResult(rf ReplayFile, obs []oracle.Observation, events []reports.WireEvent, stderr []byte) *ReplayResult {
	return &ReplayResult{Reproduced: sameBug(obs, rf.Expect), Expect: rf.Expect, Observations: obs, Transcript: events, StderrTail: stderr}
}

// oneRun is the outcome of running one input on a fresh instance.
type oneRun struct {
	obs    []oracle.Observation
	events []reports.WireEvent
	stderr []byte
}

// runOnce starts a fresh instance, runs in on it and closes it. The
// instance's first wait has the start-up allowance startup (see
// openSession).
func runOnce(ctx context.Context, target conn.Target, v spec.Version, in mutate.Input, wait, startup time.Duration) (oneRun, error) {
	s, err := openSession(ctx, target, v, wait, startup, in.Fresh)
	if err != nil {
		return oneRun{}, err
	}
	defer s.close()
	began := time.Now()
	out := s.exec(in)
	if !out.dead {
		// What came after the probe's answer is judged too.
		out.obs = append(out.obs, s.drain().obs...)
		// A server that answers each request on a goroutine of its own may
		// answer the input's after the probes (one did, on a loaded
		// machine, and a finding did not replay): the answers still owed
		// are waited for a while longer, in proportion to how long the
		// exchange took.
		grace := min(max(lateFactor*time.Since(began), minLateGrace), maxLateGrace, s.wait)
		out.obs = append(out.obs, s.lateAnswers(grace).obs...)
		s.note("closing the target")
	}
	return oneRun{obs: out.obs, events: s.transcript(), stderr: s.conn.StderrTail()}, nil
}

// How long a reproduction waits for the answers a target still owes after
// its probes were answered: lateFactor times the exchange's time so far,
// within minLateGrace and maxLateGrace (and the liveness wait).
const (
	lateFactor   = 4
	minLateGrace = 200 * time.Millisecond
	maxLateGrace = time.Second
)
