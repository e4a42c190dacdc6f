package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// Process is a running stdio target. Its stdin and stdout are pipes the
// caller wraps in a wire.Stdio; its stderr is drained into a Ring.
//
// Concurrency: every method is safe for concurrent use.
type Process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	ring   *Ring
	grace  time.Duration
	key    string // stopKey of the target

	errDone chan struct{} // stderr drained
	exited  chan struct{}
	state   *os.ProcessState
	waitErr error
	started time.Time

	stopOnce sync.Once
	stopMu   sync.Mutex
	stopLog  []string

	// sandbox is the process's place in its target's Sandbox, else nil;
	// stopping is set once Stop began (an exit before it was the
	// process's own).
	sandbox  *SandboxProcess
	stopping atomic.Bool
	// endedByUs is set before exited is closed when Stop or Kill had
	// begun by then (the exit was theirs, not the process's own).
	endedByUs atomic.Bool
	said      atomic.Bool // something was read from stdout (see SaidReader)
	ownFail   bool        // set before exited is closed
	// outDone, when set (StdoutReadUntil), is closed when the caller's
	// reader of stdout has reached its end.
	outDone atomic.Pointer[<-chan struct{}]
}

// StdoutReadUntil tells Stop that the caller reads Stdout to its end and
// closes done then: Stop waits for it (up to the grace period) before it
// closes the pipe, as it waits for stderr, so that the last bytes a
// process wrote before it exited are not lost under a reader that had
// not got to them yet.
func (p *Process) StdoutReadUntil(done <-chan struct{}) { p.outDone.Store(&done) }

// StartProcess starts t's command in a new process group with fresh pipes.
// It returns once the process has started; it does not wait for anything
// the process writes.
func StartProcess(t Target) (*Process, error) {
	if !t.IsStdio() {
		return nil, errors.New("target: StartProcess needs a command target")
	}
	path, err := exec.LookPath(t.Command)
	if err != nil {
		return nil, fmt.Errorf("target: cannot run %q: %w; check the command and PATH", t.Command, err)
	}
	cmd := exec.Command(path, t.Args...)
	cmd.Dir = t.Dir
	var sp *SandboxProcess
	switch {
	case t.Sandbox != nil:
		if t.CleanEnv {
			cmd.Env = []string{}
		}
		if sp, err = t.Sandbox.Apply(cmd, t.Env); err != nil {
			return nil, err
		}
	case t.CleanEnv:
		cmd.Env = append([]string{}, t.Env...)
	default:
		cmd.Env = append(os.Environ(), t.Env...)
	}
	setGroup(cmd)
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("target: creating the stdin pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("target: creating the stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("target: creating the stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		if sp != nil {
			sp.Abandon()
			return nil, fmt.Errorf("target: starting %q: %w (%s)", t.Command, err, t.Sandbox.Hint())
		}
		return nil, fmt.Errorf("target: starting %q: %w", t.Command, err)
	}
	if sp != nil {
		sp.Started(cmd.Process.Pid)
	}
	// The child holds its own copies; ours would keep the pipes open.
	inR.Close()
	outW.Close()
	errW.Close()
	p := &Process{
		cmd: cmd, stdin: inW, stdout: outR, stderr: errR,
		ring: NewRing(t.StderrTail), grace: t.Timeouts.WithDefaults().Grace, key: stopKey(t),
		errDone: make(chan struct{}), exited: make(chan struct{}), started: time.Now(), sandbox: sp,
	}
	go func() {
		defer close(p.errDone)
		io.Copy(p.ring, errR)
	}()
	go func() {
		err := cmd.Wait()
		p.endedByUs.Store(p.stopping.Load())
		p.state, p.waitErr = cmd.ProcessState, err
		if sp != nil {
			st := cmd.ProcessState
			// Ended on its own, with a failure, before it said anything:
			// it did not start (in the sandbox).
			p.ownFail = !p.stopping.Load() && (st == nil || !st.Success()) && !p.said.Load()
			sp.Exited(p.ownFail, p.ownFail, describeState(st))
		}
		close(p.exited)
	}()
	return p, nil
}

// Stdin is the write end of the process's stdin.
func (p *Process) Stdin() *os.File { return p.stdin }

// Stdout is the read end of the process's stdout.
func (p *Process) Stdout() *os.File { return p.stdout }

// Stderr holds the tail of what the process wrote to stderr.
func (p *Process) Stderr() *Ring { return p.ring }

// StderrClosed is closed once the process's stderr has ended (all it wrote
// is in Stderr): after the process exited, unless a child of it still
// holds the stream.
func (p *Process) StderrClosed() <-chan struct{} { return p.errDone }

// Pid is the process ID, which is also its process group ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitState returns the exit state once the process has exited, else nil.
func (p *Process) ExitState() *os.ProcessState {
	select {
	case <-p.exited:
		return p.state
	default:
		return nil
	}
}

// ExitDescription says how the process ended ("exited with status 0",
// "killed by signal terminated"), or "still running".
func (p *Process) ExitDescription() string {
	st := p.ExitState()
	if st == nil {
		return "still running"
	}
	return describeState(st)
}

// SaidReader is the process's stdout, noting that the process wrote
// something: a sandboxed process that ends with a failure before it said
// anything did not start, and ExitNote then gives the sandbox's hint.
func (p *Process) SaidReader() io.ReadCloser { return saidReader{p.stdout, &p.said} }

type saidReader struct {
	f    *os.File
	said *atomic.Bool
}

func (r saidReader) Read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	if n > 0 && !r.said.Load() {
		r.said.Store(true)
	}
	return n, err
}

func (r saidReader) Close() error { return r.f.Close() }

// EndedSilent reports whether the process has exited on its own (not
// stopped or killed by Stop or Kill) with a failure status before it
// wrote anything on stdout: a start that failed (a port or a lock file
// taken, a missing dependency).
func (p *Process) EndedSilent() bool {
	st := p.ExitState()
	return st != nil && !st.Success() && !p.said.Load() && !p.endedByUs.Load()
}

// NoteSaid notes that the process wrote something on stdout, for a caller
// that reads Stdout itself rather than through SaidReader.
func (p *Process) NoteSaid() {
	if !p.said.Load() {
		p.said.Store(true)
	}
}

// ExitNote says how the process ended, as ExitDescription, and for a
// sandboxed process that ended on its own with a failure before it wrote
// anything on stdout adds what the sandbox changed for it and how to opt
// out (see Sandbox.Hint).
func (p *Process) ExitNote() string {
	d := p.ExitDescription()
	if p.ExitState() == nil || !p.ownFail || p.sandbox == nil {
		return d
	}
	return d + "; " + p.sandbox.s.Hint()
}

// ShutdownLog lists what Stop did and saw, in order, for the stdio
// shutdown checks and for reports.
func (p *Process) ShutdownLog() []string {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	return append([]string(nil), p.stopLog...)
}

func (p *Process) log(format string, args ...any) {
	p.stopMu.Lock()
	p.stopLog = append(p.stopLog, fmt.Sprintf(format, args...))
	p.stopMu.Unlock()
}

// Stop shuts the process down the way the stdio transport asks: it closes
// stdin and waits up to the grace period; then sends SIGTERM to the whole
// process group and waits again; then sends SIGKILL to the group, which it
// always does last so that grandchildren left behind are killed too. It
// then closes the pipes and waits for the stderr reader. It returns when
// the process has exited, or with an error if even SIGKILL did not end it
// within the grace period (or ctx ended). It is idempotent.
func (p *Process) Stop(ctx context.Context) error {
	var err error
	p.stopOnce.Do(func() { err = p.stop(ctx) })
	return err
}

// Kill ends the process at once, for callers that start and end many
// processes (the fuzzer, which restarts a target after every input that
// needs an instance of its own): it closes stdin, sends SIGKILL to the
// process group unless the process had exited already (then only to what
// is left in its group), waits for the exit up to the grace period, ends
// within strays what a sandboxed process spawned outside its group, and
// closes the pipes once stderr is drained (up to the grace period). It is
// Stop without the polite steps; whichever of the two runs first is the
// one that runs. killed says whether the process was still running when
// Kill came: its end is then Kill's doing, not its own.
func (p *Process) Kill(strays time.Duration) (killed bool, err error) {
	p.stopOnce.Do(func() { killed, err = p.kill(strays) })
	return killed, err
}

func (p *Process) kill(strays time.Duration) (killed bool, err error) {
	p.stopping.Store(true)
	p.stdin.Close()
	select {
	case <-p.exited:
	default:
		killed = true
	}
	signalGroup(p.cmd, sigKill)
	t := time.NewTimer(p.grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		err = fmt.Errorf("target: process %d did not exit after SIGKILL within %v", p.Pid(), p.grace)
	}
	if p.sandbox != nil && strays > 0 {
		p.sandbox.EndStrays(strays)
	}
	drained := time.NewTimer(p.grace)
	defer drained.Stop()
	select {
	case <-p.errDone:
	case <-drained.C:
	}
	p.stdout.Close()
	p.stderr.Close()
	<-p.errDone
	return killed, err
}

func (p *Process) stop(ctx context.Context) error {
	p.stopping.Store(true)
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-p.exited:
			return true
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	begin := time.Now()
	// A command whose last process ignored a step gets a short wait at
	// that step (stopMemory); the first process of a command, and any
	// after one that behaved, get the full grace periods.
	eofWait, termWait := p.grace, p.grace
	switch lastStop(p.key) {
	case stoppedByTerm:
		eofWait = shortGrace(p.grace)
	case stoppedByKill:
		eofWait, termWait = shortGrace(p.grace), shortGrace(p.grace)
	}
	p.stdin.Close()
	step := stoppedByEOF
	if wait(eofWait) {
		p.log("closed stdin; the process %s after %v", describeState(p.state), time.Since(begin).Round(time.Millisecond))
	} else {
		step = stoppedByTerm
		p.log("closed stdin; the process was still running after %v; sent SIGTERM to its process group", eofWait)
		signalGroup(p.cmd, sigTerm)
		if wait(termWait) {
			p.log("after SIGTERM the process %s", describeState(p.state))
		} else {
			step = stoppedByKill
			p.log("the process ignored SIGTERM for %v; sent SIGKILL to its process group", termWait)
		}
	}
	if ctx.Err() == nil {
		rememberStop(p.key, step)
	}
	// Always: stragglers in the group (grandchildren) must not outlive us.
	signalGroup(p.cmd, sigKill)
	var err error
	if !wait(p.grace) {
		err = fmt.Errorf("target: process %d did not exit after SIGKILL within %v", p.Pid(), p.grace)
	}
	if p.sandbox != nil {
		if n := p.sandbox.EndStrays(shortGrace(p.grace)); n > 0 {
			p.log("ended %d %s it spawned outside its process group", n, pluralWord(n, "process", "processes"))
		}
	}
	// Let the stderr reader drain what the group wrote before the pipe is
	// closed under it (every writer is dead by now, unless one survived
	// SIGKILL; then give up after the grace period).
	t := time.NewTimer(p.grace)
	expired := false
	select {
	case <-p.errDone:
	case <-t.C:
		expired = true
	}
	if d := p.outDone.Load(); d != nil && !expired {
		select {
		case <-*d:
		case <-t.C:
		}
	}
	t.Stop()
	p.stdout.Close()
	p.stderr.Close()
	<-p.errDone
	return err
}

func describeState(st *os.ProcessState) string {
	if st == nil {
		return "still running"
	}
	if st.Exited() {
		return fmt.Sprintf("exited with status %d", st.ExitCode())
	}
	return "ended: " + st.String()
}

// InOwnGroup makes cmd start in a process group of its own (where the
// platform has them), so that KillGroup and TermGroup reach everything
// it spawns. StartProcess does it for the targets; this is for commands
// that run other programs (the interop runner's servers and hosts).
func InOwnGroup(cmd *exec.Cmd) { setGroup(cmd) }

// KillGroup sends SIGKILL to every process in the group of cmd, started
// with InOwnGroup (without process groups: the process itself). A group
// that is gone already is not an error.
func KillGroup(cmd *exec.Cmd) { signalGroup(cmd, sigKill) }

// TermGroup sends SIGTERM to every process in the group of cmd, started
// with InOwnGroup (without process groups it kills the process itself).
func TermGroup(cmd *exec.Cmd) { signalGroup(cmd, sigTerm) }
