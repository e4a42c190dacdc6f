package stage

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
)

// Launch says how a client under test is started for a case.
type Launch struct {
	// Command is the client's command line, run through sh -c. For an
	// HTTP client "{url}" in it is replaced by the case's URL, or the URL
	// is appended as the last argument (as the official conformance suite
	// does). For a stdio client "{server}" is replaced by the words of the
	// server command line the client must run (the relay), each a shell
	// word, "{server-line}" by that command line as one shell word (for
	// clients that take it as one string, like --stdio "CMD ARGS"), or the
	// words are appended.
	Command string
	// Stdio says the client speaks stdio: it is given a server command
	// line instead of a URL.
	Stdio bool
	// Relay is the path of the mcpcheck binary whose "relay" subcommand
	// the stdio client runs as its server.
	Relay string
	// URL overrides the URL given to an HTTP client (for example the
	// case's SSEURL); empty means Case.URL.
	URL string
	// Env is added to the environment (KEY=VALUE).
	Env []string
	// Dir is the working directory ("" for the current one).
	Dir string
	// Grace is how long the client gets at each step of Stop (default 1 s).
	Grace time.Duration
}

// Process is a launched client.
type Process struct {
	p       *target.Process
	stdout  *target.Ring
	drained chan struct{}
	argv    string
}

// Launch starts the client for case c. The client runs in its own process
// group with its stdin at end of file; its stdout and stderr are kept
// (their tails) for the report.
func (c *Case) Launch(l Launch) (*Process, error) {
	line := l.Command
	if l.Stdio {
		if l.Relay == "" {
			return nil, fmt.Errorf("stage: a stdio client needs the path of the mcpcheck binary to run as its server (Launch.Relay)")
		}
		words := append([]string{l.Relay}, c.RelayArgs()...)
		if strings.Contains(line, "{server-line}") {
			line = strings.ReplaceAll(line, "{server-line}", shellQuote([]string{shellQuote(words)}))
		} else {
			line = substitute(line, "{server}", shellQuote(words))
		}
	} else {
		u := l.URL
		if u == "" {
			u = c.URL()
		}
		line = substitute(line, "{url}", shellQuote([]string{u}))
	}
	grace := l.Grace
	if grace <= 0 {
		grace = time.Second
	}
	t := target.Target{Command: "sh", Args: []string{"-c", line}, Env: l.Env, Dir: l.Dir, Timeouts: target.Timeouts{Grace: grace}}
	p, err := target.StartProcess(t)
	if err != nil {
		return nil, fmt.Errorf("stage: starting the client %q: %w", l.Command, err)
	}
	// The client's stdin is never its MCP channel (it speaks to the relay
	// it starts, or over HTTP): it reads end of file at once, as from
	// /dev/null, so a host that reads its stdin until it closes goes on.
	_ = p.Stdin().Close()
	cp := &Process{p: p, stdout: target.NewRing(16 << 10), drained: make(chan struct{}), argv: line}
	p.StdoutReadUntil(cp.drained) // Stop must not close stdout under the copy
	go func() {
		defer close(cp.drained)
		_, _ = io.Copy(cp.stdout, p.Stdout())
	}()
	c.Note(NoteClientStarted, line)
	go func() {
		<-p.Exited()
		c.Note(NoteClientExit, "the client "+p.ExitDescription())
	}()
	return cp, nil
}

// substitute replaces the placeholder in line, or appends value.
func substitute(line, placeholder, value string) string {
	if strings.Contains(line, placeholder) {
		return strings.ReplaceAll(line, placeholder, value)
	}
	return line + " " + value
}

// shellQuote quotes words for sh.
func shellQuote(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// CommandLine is the shell command line that was run.
func (p *Process) CommandLine() string { return p.argv }

// Exited is closed when the client has exited.
func (p *Process) Exited() <-chan struct{} { return p.p.Exited() }

// ExitDescription says how the client ended, or "still running".
func (p *Process) ExitDescription() string { return p.p.ExitDescription() }

// Pid is the process ID of the client's shell, which is also the ID of
// its process group (every process the client starts belongs to it
// unless it makes a group of its own).
func (p *Process) Pid() int { return p.p.Pid() }

// ExitState is the client's exit state once it has exited, else nil.
func (p *Process) ExitState() *os.ProcessState { return p.p.ExitState() }

// ExitCode is the client's exit status (-1 when it has not exited or was
// killed by a signal).
func (p *Process) ExitCode() int {
	if st := p.p.ExitState(); st != nil {
		return st.ExitCode()
	}
	return -1
}

// Output is the tail of what the client wrote to stdout and stderr.
func (p *Process) Output() (stdout, stderr []byte) {
	return p.stdout.Tail(), p.p.Stderr().Tail()
}

// Stop ends the client: after the grace period (its stdin is at end of
// file from the start) SIGTERM, then SIGKILL to its process group; the group is always killed
// last, so nothing the client started outlives the case.
func (p *Process) Stop(ctx context.Context) error {
	err := p.p.Stop(ctx)
	select {
	case <-p.drained:
	case <-time.After(time.Second):
	}
	return err
}
