package server

import (
	"bytes"
	"context"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// JSON-RPC batches exist only in 2025-03-26, where receiving them is
// required. The responses to a batch's requests go back as one array;
// other messages related to its requests go to reply as they happen.

// isBatchFor reports whether raw is a batch the session must serve.
func (ss *Session) isBatchFor(msg *jsonrpc.Message) bool {
	return msg.Has(jsonrpc.ReasonBatch) && ss.srv.servesBatch(ss.Version())
}

// handleBatch serves a batch and sends the array of responses (nothing
// when the batch held no requests).
func (ss *Session) handleBatch(ctx context.Context, raw []byte, reply Sink) {
	msgs, _ := jsonrpc.DecodeBatch(raw)
	var (
		mu        sync.Mutex
		responses [][]byte
		wg        sync.WaitGroup
	)
	// The messages of each of the batch's messages pass the fault
	// rewriters on their own (the batch as a whole passes only
	// Options.Rewrite: Session.Dispatch).
	faulty := func(to Sink, m *jsonrpc.Message) Sink {
		return ss.srv.rewritingLayers(to, m, ss.Version, faultLayer)
	}
	collect := func(m *jsonrpc.Message) Sink {
		return faulty(SinkFunc(func(b []byte) error {
			if isResponseTo(b, m.ID) {
				mu.Lock()
				responses = append(responses, b)
				mu.Unlock()
				return nil
			}
			return reply.Send(b)
		}), m)
	}
	for _, m := range msgs {
		switch {
		case m.Kind == jsonrpc.KindRequest && m.Method == spec.MethodInitialize:
			mu.Lock()
			responses = append(responses, errorMessage(m.ID, jsonrpc.InvalidRequest, "initialize must not be part of a JSON-RPC batch", nil))
			mu.Unlock()
		case m.Kind == jsonrpc.KindRequest:
			wg.Add(1)
			go func(m jsonrpc.Message) {
				defer wg.Done()
				ss.serveRequest(ctx, m, collect(&m))
			}(m)
		case m.Kind == jsonrpc.KindInvalid:
			s := collect(&m)
			if m.ID.IsZero() {
				s = faulty(SinkFunc(func(b []byte) error {
					mu.Lock()
					responses = append(responses, b)
					mu.Unlock()
					return nil
				}), &m)
			}
			ss.srv.replyInvalid(m, s, spec.V20250326)
		default:
			ss.handleDecoded(ctx, m, faulty(reply, &m))
		}
	}
	wg.Wait()
	if len(responses) == 0 {
		return
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, r := range responses {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(r)
	}
	b.WriteByte(']')
	_ = reply.Send(b.Bytes())
}
