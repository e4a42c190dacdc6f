package conn

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// Target is the system under test as the campaign runner sees it: something
// that can be started afresh, any number of times. A stdio Target launches a
// process per Start; an adapter onto the harness's transports can implement
// it too. Implementations must be safe for concurrent Starts (one per
// worker).
type Target interface {
	// Start launches or connects to a fresh instance. The instance lives
	// until Conn.Close; ctx bounds only the start itself.
	Start(ctx context.Context) (Conn, error)
	// Describe names the target for reports and reproducers, such as the
	// command line of a stdio target.
	Describe() string
}

// Conn is one running instance of a Target, spoken to as a byte stream in
// which the target answers with newline-delimited frames (stdio framing).
//
// Send, CloseSend and Close are called by one goroutine; Recv may be called
// from the same goroutine only. Conn implementations bound everything they
// buffer.
type Conn interface {
	// Send writes b to the target in one write call, as is. It gives up
	// with an error wrapping ErrStalled when the target stops reading for
	// longer than the implementation's write timeout.
	Send(b []byte) error
	// CloseSend closes the target's input (stdin), as a client ending the
	// session would.
	CloseSend() error
	// Recv returns the next frame the target wrote, waiting until deadline.
	// It returns ErrDeadline when nothing arrived in time and ErrClosed once
	// the target closed its output (exited, crashed or reset).
	Recv(deadline time.Time) (Frame, error)
	// Exit reports how the instance ended, waiting at most until deadline
	// for it to end; nil while it is still running.
	Exit(deadline time.Time) *ExitStatus
	// StderrTail returns the last bytes the target wrote to stderr (bounded).
	StderrTail() []byte
	// Close ends the instance (killing a process and its whole group) and
	// releases everything. It is safe to call more than once.
	Close() error
}

// Frame is one line the target wrote, without its newline.
type Frame struct {
	Data []byte
	// At is when the frame was read.
	At time.Time
	// Problem is set when the line broke the framing: it was longer than
	// the reader's limit (Data then holds its start) or the stream ended
	// without a final newline.
	Problem string
	// HTTPStatus is the status of the HTTP response the frame came in (0 on
	// stdio); a frame with a status and no Data is a response with an empty
	// body.
	HTTPStatus int
	// Stream names the HTTP exchange the frame belongs to ("" on stdio).
	Stream string

	// wire is the harness frame an HTTP frame came from, while it waits
	// in HTTPConn's queue.
	wire *wire.Frame
}

// ExitStatus says how a target instance ended.
type ExitStatus struct {
	// Code is the exit code, -1 when the process was killed by a signal.
	Code int
	// Signal names the signal that killed the process, if any.
	Signal string
	// Killed is true when mcpcheck ended the instance itself (Close).
	Killed bool
}

// String renders the status for a finding's message.
func (e *ExitStatus) String() string {
	switch {
	case e == nil:
		return "still running"
	case e.Killed:
		return "killed by mcpcheck"
	case e.Signal != "":
		return "killed by signal " + e.Signal
	}
	return "exited with status " + strconv.Itoa(e.Code)
}

// Errors a Conn returns.
var (
	// ErrDeadline: nothing arrived before the deadline.
	ErrDeadline = errors.New("fuzz: the target sent nothing before the deadline")
	// ErrClosed: the target closed its output, exited or reset the
	// connection.
	ErrClosed = errors.New("fuzz: the target closed its output (exited or dropped the connection)")
	// ErrStalled: the target stopped reading its input, so a write could
	// not complete in time.
	ErrStalled = errors.New("fuzz: the target stopped reading its input")
)

// DefaultWriteTimeout bounds one write to a target that stops reading.
const DefaultWriteTimeout = 10 * time.Second

// HangConfirm is how much longer than the liveness wait a probe is waited
// for before its silence is called a hang: a target that answers within
// it is slow (or starved by a busy machine), not hung. A hung target
// costs four waits; a healthy one on a loaded machine, whose answer was
// merely late, is not blamed for our impatience.
func HangConfirm(wait time.Duration) time.Duration { return 3 * wait }

// MaxFramesPerExec bounds the frames read after one input; a target that
// writes more is treated as flooding and restarted.
const MaxFramesPerExec = 10000
