package server

import "sync"

// Sink carries messages from the server to the client: one stream of a
// transport (stdout, one SSE stream, one HTTP response). Send must not block
// for long: transports queue and drop rather than stall the server. A Sink
// may be used from several goroutines at once.
type Sink interface {
	Send(msg []byte) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(msg []byte) error

// Send calls f(msg).
func (f SinkFunc) Send(msg []byte) error { return f(msg) }

// discardSink drops everything (used when a transport has no stream open).
type discardSink struct{}

func (discardSink) Send([]byte) error { return nil }

// switchSink forwards to a Sink that can be replaced while in use: the
// session's general stream, which the transport attaches and detaches.
type switchSink struct {
	mu sync.Mutex
	to Sink
}

func (s *switchSink) Send(msg []byte) error {
	s.mu.Lock()
	to := s.to
	s.mu.Unlock()
	if to == nil {
		return nil
	}
	return to.Send(msg)
}

func (s *switchSink) set(to Sink) {
	s.mu.Lock()
	s.to = to
	s.mu.Unlock()
}
