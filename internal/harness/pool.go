package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Pool keeps started targets (or sessions on them) for reuse by later
// checks, keyed by what makes them interchangeable (for example the
// protocol version). A check that leaves the target in a state others
// must not see (it sent broken bytes, closed stdin, changed the log
// level) releases it with reuse false, and the next check gets a fresh
// one. Against a slow-starting server this saves a process start per
// check.
//
// Concurrency: all methods are safe for concurrent use; each value is
// lent to one holder at a time.
type Pool[T any] struct {
	// New makes a value for key.
	New func(ctx context.Context, key string) (T, error)
	// Close disposes of a value that is not reused.
	Close func(T) error
	// MaxIdle bounds the idle values kept per key (default 1).
	MaxIdle int

	mu      sync.Mutex
	idle    map[string][]T
	created int
	closed  bool
}

// Get lends a value for key: an idle one, or a new one. The release func
// must be called exactly once: with reuse true to return the value to the
// pool, false to close it.
func (p *Pool[T]) Get(ctx context.Context, key string) (T, func(reuse bool), error) {
	var zero T
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return zero, nil, errors.New("harness: the pool is closed")
	}
	if vs := p.idle[key]; len(vs) > 0 {
		v := vs[len(vs)-1]
		p.idle[key] = vs[:len(vs)-1]
		p.mu.Unlock()
		return v, p.releaser(key, v), nil
	}
	p.mu.Unlock()
	v, err := p.New(ctx, key)
	if err != nil {
		return zero, nil, fmt.Errorf("harness: starting a target for %q: %w", key, err)
	}
	p.mu.Lock()
	p.created++
	p.mu.Unlock()
	return v, p.releaser(key, v), nil
}

func (p *Pool[T]) releaser(key string, v T) func(bool) {
	var once sync.Once
	return func(reuse bool) {
		once.Do(func() {
			max := p.MaxIdle
			if max <= 0 {
				max = 1
			}
			p.mu.Lock()
			if reuse && !p.closed && len(p.idle[key]) < max {
				if p.idle == nil {
					p.idle = map[string][]T{}
				}
				p.idle[key] = append(p.idle[key], v)
				p.mu.Unlock()
				return
			}
			p.mu.Unlock()
			if p.Close != nil {
				_ = p.Close(v)
			}
		})
	}
}

// Idle lends the values waiting for reuse under key to fn, all at once,
// and takes them back when it returns: work on each idle value (settling
// what its target sent) while no one else can get it. A value taken back
// after Shutdown is closed.
func (p *Pool[T]) Idle(key string, fn func([]T)) {
	p.mu.Lock()
	vs := p.idle[key]
	delete(p.idle, key)
	p.mu.Unlock()
	if len(vs) > 0 {
		fn(vs)
	}
	p.mu.Lock()
	if !p.closed {
		if p.idle == nil {
			p.idle = map[string][]T{}
		}
		p.idle[key] = append(p.idle[key], vs...)
		vs = nil
	}
	p.mu.Unlock()
	for _, v := range vs {
		if p.Close != nil {
			_ = p.Close(v)
		}
	}
}

// Created is how many values New made: the number of target starts paid.
func (p *Pool[T]) Created() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.created
}

// CloseIdle closes the values waiting for reuse; the pool stays open and
// makes new ones when asked.
func (p *Pool[T]) CloseIdle() error {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	var errs []error
	for _, vs := range idle {
		for _, v := range vs {
			if p.Close != nil {
				errs = append(errs, p.Close(v))
			}
		}
	}
	return errors.Join(errs...)
}

// Shutdown closes every idle value and refuses later Gets; values still
// lent are closed when released.
func (p *Pool[T]) Shutdown() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	return p.CloseIdle()
}
