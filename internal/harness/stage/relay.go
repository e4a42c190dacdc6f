package stage

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The relay protocol, over one TCP connection from the relay (the process a
// stdio client starts as its server) to the stage. The relay first sends
// the line "mcpcheck-relay/1 TOKEN\n" and the stage answers with a
// frameHoldTerm frame (the relay reads it before anything else, so its
// signal handling is settled from the start); then both sides send frames
// of one type byte, a big-endian uint32 length and that many bytes.
// The relay's frames begin with its clock (stamp), so that the times of
// what the client did (a line, closing stdin, a signal) and the waits
// between them are the ones the server saw, not ones measured at second
// hand by a stage that may read them late on a busy machine.
const (
	relayHello = "mcpcheck-relay/2 "

	// relay -> stage
	frameStdin    = 'i' // bytes the client wrote to the server's stdin (payload: stamp, then the bytes)
	frameStdinEOF = 'e' // the client closed the server's stdin (payload: stamp)
	frameSignal   = 's' // the relay got a signal (payload: stamp, then its name)

	// stage -> relay
	frameStdout    = 'o' // bytes for the server's stdout
	frameStderr    = 'r' // bytes for the server's stderr
	frameExit      = 'q' // exit with the status in the payload (decimal)
	frameHoldTerm  = 't' // payload "1": keep running after SIGTERM (report it only)
	maxRelayFrame  = 1 << 20
	relayChunk     = 32 << 10
	relayHelloWait = 5 * time.Second
)

func writeFrame(w io.Writer, mu *sync.Mutex, typ byte, payload []byte) error {
	if len(payload) > maxRelayFrame {
		return fmt.Errorf("stage: relay frame of %d bytes over the limit of %d", len(payload), maxRelayFrame)
	}
	var head [5]byte
	head[0] = typ
	binary.BigEndian.PutUint32(head[1:], uint32(len(payload)))
	mu.Lock()
	defer mu.Unlock()
	if _, err := w.Write(head[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// stamp is the relay's clock now, as a frame payload's first 8 bytes
// (Unix nanoseconds, big-endian).
func stamp() []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(time.Now().UnixNano()))
	return b[:]
}

// unstamp splits a stamped payload into the relay's time and the rest;
// a payload too short for a stamp gives now.
func unstamp(b []byte) (time.Time, []byte) {
	if len(b) < 8 {
		return time.Now(), b
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(b[:8]))), b[8:]
}

func readFrame(r io.Reader) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n > maxRelayFrame {
		return 0, nil, fmt.Errorf("stage: relay frame of %d bytes over the limit of %d", n, maxRelayFrame)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return 0, nil, err
	}
	return head[0], b, nil
}

// RelayOptions are what the relay command needs.
type RelayOptions struct {
	// Stage is the stage's relay address (host:port on loopback).
	Stage string
	// Case is the token of the case the relay belongs to.
	Case string
	// Stdin, Stdout and Stderr are the relay process's own.
	Stdin  io.Reader
	Stdout io.WriteCloser
	Stderr io.Writer
	// Signals delivers the signals the relay process gets (SIGTERM,
	// SIGINT, SIGHUP); nil means none are watched.
	Signals <-chan os.Signal
}

// RunRelay is the relay: the process a stdio client under test starts as
// its MCP server. It connects to the stage, forwards stdin (and its end)
// and the signals it gets, writes what the stage sends to stdout and
// stderr, and returns the exit status the stage asks for. When the stage
// cannot be reached, or the connection ends without an exit status, it
// says so on stderr and returns 1. After SIGTERM it returns 143 at once,
// unless the stage asked it to hold out (a server that ignores SIGTERM),
// and after SIGINT or SIGHUP 130 and 129.
func RunRelay(ctx context.Context, o RelayOptions) int {
	d := net.Dialer{Timeout: relayHelloWait}
	conn, err := d.DialContext(ctx, "tcp", o.Stage)
	if err != nil {
		fmt.Fprintf(o.Stderr, "mcpcheck relay: cannot reach the mcpcheck stage at %s: %v (the stage lives as long as its mcpcheck client run)\n", o.Stage, err)
		return 1
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, relayHello+o.Case+"\n"); err != nil {
		fmt.Fprintf(o.Stderr, "mcpcheck relay: %v\n", err)
		return 1
	}
	br := bufio.NewReader(conn)
	_ = conn.SetReadDeadline(time.Now().Add(relayHelloWait))
	typ, b, err := readFrame(br)
	if err != nil || typ != frameHoldTerm {
		fmt.Fprintf(o.Stderr, "mcpcheck relay: the mcpcheck stage at %s did not accept case %s (it has ended, or this is not a stage)\n", o.Stage, o.Case)
		return 1
	}
	_ = conn.SetReadDeadline(time.Time{})
	holdTerm := string(b) == "1"
	var wmu sync.Mutex
	exit := make(chan int, 1)
	go func() {
		buf := make([]byte, relayChunk)
		for {
			n, err := o.Stdin.Read(buf)
			if n > 0 {
				if writeFrame(conn, &wmu, frameStdin, append(stamp(), buf[:n]...)) != nil {
					return
				}
			}
			if err != nil {
				_ = writeFrame(conn, &wmu, frameStdinEOF, stamp())
				return
			}
		}
	}()
	go func() {
		for {
			typ, b, err := readFrame(br)
			if err != nil {
				exit <- -1
				return
			}
			switch typ {
			case frameStdout:
				_, _ = o.Stdout.Write(b)
			case frameStderr:
				_, _ = o.Stderr.Write(b)
			case frameExit:
				code, _ := strconv.Atoi(string(b))
				exit <- code
				return
			}
		}
	}()
	for {
		select {
		case code := <-exit:
			_ = o.Stdout.Close()
			if code < 0 {
				fmt.Fprintln(o.Stderr, "mcpcheck relay: the connection to the mcpcheck stage ended")
				return 1
			}
			return code
		case sig := <-o.Signals:
			name := sig.String()
			_ = writeFrame(conn, &wmu, frameSignal, append(stamp(), name...))
			switch {
			case strings.Contains(name, "terminated") && holdTerm:
				// A server that ignores SIGTERM: wait for SIGKILL.
			case strings.Contains(name, "terminated"):
				return 143
			case strings.Contains(name, "hangup"):
				return 129
			default:
				return 130
			}
		case <-ctx.Done():
			return 1
		}
	}
}

// relayConn is the stage's side of one relay connection.
type relayConn struct {
	conn net.Conn
	wmu  sync.Mutex
}

func (rc *relayConn) send(typ byte, b []byte) error { return writeFrame(rc.conn, &rc.wmu, typ, b) }

// acceptRelays serves the relay listener until it is closed.
func (s *Stage) acceptRelays() {
	for {
		conn, err := s.relayLn.Accept()
		if err != nil {
			return
		}
		go s.serveRelay(conn)
	}
}

func (s *Stage) serveRelay(conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(relayHelloWait))
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, relayHello) {
		conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	c := s.lookup(strings.TrimSpace(strings.TrimPrefix(line, relayHello)))
	if c == nil {
		conn.Close()
		return
	}
	c.serveStdio(&relayConn{conn: conn}, br)
}

// errRelayClosed is the read error of the engine's stdin after the client
// closed it.
var errRelayClosed = errors.New("stage: the client closed stdin")
