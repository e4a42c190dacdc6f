package wire

import (
	"io"
	"net"
)

// Pipe returns a stdio Conn connected in memory to the other end, which a
// test plays the target on: it reads what the Conn sends and writes what
// the Conn receives. Closing the Conn closes the pipe; closing the other
// end makes the Conn see the end of the stream.
func Pipe(l Limits) (*Stdio, net.Conn) {
	a, b := net.Pipe()
	return NewStdio(readSide{a}, a, l), b
}

// readSide lets the same net.Conn be both halves without closing twice.
type readSide struct{ c net.Conn }

func (r readSide) Read(p []byte) (int, error) { return r.c.Read(p) }
func (r readSide) Close() error {
	err := r.c.Close()
	if err != nil && isClosedErr(err) {
		return nil
	}
	return err
}

func isClosedErr(err error) bool { return err == io.ErrClosedPipe || err == net.ErrClosed }
