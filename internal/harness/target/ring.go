package target

import "sync"

// Ring keeps the last bytes written to it, for a target's stderr: reports
// show its tail without letting a chatty target use unbounded memory.
// It is safe for concurrent use.
type Ring struct {
	mu    sync.Mutex
	buf   []byte
	size  int
	next  int
	full  bool
	total int64
}

// NewRing returns a ring keeping the last size bytes (64 KiB when size <= 0).
func NewRing(size int) *Ring {
	if size <= 0 {
		size = 64 << 10
	}
	return &Ring{buf: make([]byte, size), size: size}
}

// Write keeps the tail of p; it never fails.
func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	r.total += int64(n)
	if len(p) >= r.size {
		copy(r.buf, p[len(p)-r.size:])
		r.next, r.full = 0, true
		return n, nil
	}
	c := copy(r.buf[r.next:], p)
	if c < len(p) {
		copy(r.buf, p[c:])
		r.full = true
	}
	r.next = (r.next + len(p)) % r.size
	if r.next == 0 && len(p) > 0 {
		r.full = true
	}
	return n, nil
}

// Tail returns a copy of the bytes kept, oldest first.
func (r *Ring) Tail() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]byte(nil), r.buf[:r.next]...)
	}
	out := make([]byte, 0, r.size)
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}

// Total is how many bytes were ever written, kept or not.
func (r *Ring) Total() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}
