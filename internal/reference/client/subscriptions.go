package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Subscription is an open subscriptions/listen request (2026-07-28).
type Subscription struct {
	// Acknowledged is the filter the server agreed to.
	Acknowledged mcp.SubscriptionFilter
	ch           chan Notification
	done         chan struct{}
	cancel       context.CancelFunc
	stop         func()
	err          error
}

// Notifications delivers the notifications of the subscription. It is not
// closed; select on Done too.
func (s *Subscription) Notifications() <-chan Notification { return s.ch }

// Done is closed when the server ended the subscription or Close was called.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err says why the subscription ended, after Done.
func (s *Subscription) Err() error { return s.err }

// Close ends the subscription.
func (s *Subscription) Close() { s.stop() }

// Listen opens a subscriptions/listen stream with filter f and waits
// (bounded by the timeout) for the server's acknowledgement.
func (c *Client) Listen(ctx context.Context, f mcp.SubscriptionFilter) (*Subscription, error) {
	if !c.Stateless() {
		return nil, errors.New("client: subscriptions/listen exists from 2026-07-28; use Subscribe and the list_changed notifications")
	}
	id := jsonrpc.IntID(c.nextID.Add(1))
	p := object{}
	p.set("notifications", f)
	c.stamp(p)
	msg, err := jsonrpc.NewRequest(id, spec.MethodSubscriptionsListen, p)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(c.ctx)
	s := &Subscription{ch: make(chan Notification, 64), done: make(chan struct{}), cancel: cancel}
	resp := make(chan response, 1)
	c.mu.Lock()
	c.listening[id.String()] = s.ch
	c.pending[id] = resp
	c.mu.Unlock()
	cleanup := func() {
		c.mu.Lock()
		delete(c.listening, id.String())
		delete(c.pending, id)
		c.mu.Unlock()
	}
	stopped := make(chan struct{})
	var once bool
	s.stop = func() {
		c.mu.Lock()
		first := !once
		once = true
		c.mu.Unlock()
		if first {
			close(stopped)
		}
	}
	if err := c.conn.Send(lctx, msg); err != nil {
		cancel()
		cleanup()
		return nil, fmt.Errorf("client: sending subscriptions/listen: %w", err)
	}
	tctx, tcancel := context.WithTimeout(ctx, c.timeout())
	defer tcancel()
	for {
		select {
		case n := <-s.ch:
			if n.Method != spec.MethodSubscriptionsAcknowledge {
				continue
			}
			var ack mcp.SubscriptionsAcknowledgedParams
			_ = decodeParams(n.Params, &ack)
			s.Acknowledged = ack.Notifications
			go func() {
				defer close(s.done)
				defer cleanup()
				defer cancel()
				select {
				case r := <-resp:
					s.err = r.err
					if s.err == nil {
						s.err = errors.New("the server ended the subscription")
					}
				case <-stopped:
					s.err = context.Canceled
					if !c.isHTTP() {
						c.sendCancelled(id, "the client closed the subscription")
					}
				case <-c.ctx.Done():
					s.err = c.closeReason()
				}
			}()
			return s, nil
		case r := <-resp:
			cancel()
			cleanup()
			if r.err != nil {
				var eo *jsonrpc.ErrorObject
				if errors.As(r.err, &eo) {
					return nil, rpcErr(spec.MethodSubscriptionsListen, eo)
				}
				return nil, r.err
			}
			return nil, errors.New("client: the server answered subscriptions/listen before acknowledging it")
		case <-tctx.Done():
			cancel()
			cleanup()
			c.sendCancelled(id, "no acknowledgement in time")
			return nil, &TimeoutError{Method: spec.MethodSubscriptionsListen, ID: id, After: c.timeout().String(), Garbage: c.lastGarbage()}
		}
	}
}
