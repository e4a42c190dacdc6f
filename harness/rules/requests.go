package rules

import (
	"sync"

	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// Methods remembers the method of every request one peer sent, by the
// request's id, so that the other peer's answers can be judged by the
// method they answer. It does not forget an id once answered: a second
// answer to the same id is still attributed to its method (and judged as
// a duplicate elsewhere). When it holds max ids it starts over, so a peer
// that is never answered cannot grow it without bound.
//
// Concurrency: safe for concurrent use (taps call it from the sending and
// receiving goroutines).
type Methods struct {
	max int
	mu  sync.Mutex
	m   map[jsonrpc.ID]string
}

// DefaultMaxMethods bounds a Methods made with a max of zero or less.
const DefaultMaxMethods = 100000

// NewMethods returns an empty Methods that keeps at most max ids
// (DefaultMaxMethods when max <= 0).
func NewMethods(max int) *Methods {
	if max <= 0 {
		max = DefaultMaxMethods
	}
	return &Methods{max: max, m: map[jsonrpc.ID]string{}}
}

// Sent learns the method of raw when it is a request (raw may end in a
// line feed, as stdio writes it). Anything else is ignored.
func (t *Methods) Sent(raw []byte) {
	for len(raw) > 0 && (raw[len(raw)-1] == '\n' || raw[len(raw)-1] == '\r') {
		raw = raw[:len(raw)-1]
	}
	t.Learn(jsonrpc.Decode(raw))
}

// Learn learns the method of m when it is a request with a usable id.
func (t *Methods) Learn(m jsonrpc.Message) {
	if m.Method == "" || m.ID.IsZero() || m.Shape != jsonrpc.KindRequest {
		return
	}
	t.mu.Lock()
	if len(t.m) >= t.max {
		t.m = map[jsonrpc.ID]string{}
	}
	t.m[m.ID] = m.Method
	t.mu.Unlock()
}

// Method is the method of the request with id, "" when none was seen.
func (t *Methods) Method(id jsonrpc.ID) string {
	if id.IsZero() {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[id]
}

// Pending follows the requests one peer sent that still await an answer,
// by the wire form of their id (jsonrpc.ID.String(), or any key the caller
// derives), each with the method and a value E of the caller's. The same
// id may be outstanding several times (a peer that reuses ids); answers
// settle them one by one. Unlike Methods it forgets a request once it is
// answered, so an answer that matches nothing outstanding can be told.
//
// Concurrency: not safe for concurrent use; its owner serialises calls.
type Pending[E any] struct {
	m map[string]*pendingEntry[E]
}

type pendingEntry[E any] struct {
	n      int
	method string
	extra  E
}

// Add records one more outstanding request under key. When key already
// awaits an answer to another method, answers cannot be told apart, so the
// method is forgotten ("") until none is outstanding.
func (p *Pending[E]) Add(key, method string, extra E) {
	if p.m == nil {
		p.m = map[string]*pendingEntry[E]{}
	}
	e := p.m[key]
	if e == nil {
		e = &pendingEntry[E]{}
		p.m[key] = e
	} else if e.n > 0 && e.method != method {
		method = ""
	}
	e.n++
	e.method = method
	e.extra = extra
}

// Outstanding is how many requests under key await an answer.
func (p *Pending[E]) Outstanding(key string) int {
	if e := p.m[key]; e != nil {
		return e.n
	}
	return 0
}

// Get returns the method and value recorded under key, and whether any
// request under key awaits an answer.
func (p *Pending[E]) Get(key string) (method string, extra E, ok bool) {
	e := p.m[key]
	if e == nil || e.n <= 0 {
		return "", extra, false
	}
	return e.method, e.extra, true
}

// Settle settles one request under key and reports whether key is now
// forgotten (none left outstanding).
func (p *Pending[E]) Settle(key string) (gone bool) {
	e := p.m[key]
	if e == nil {
		return true
	}
	e.n--
	if e.n <= 0 {
		delete(p.m, key)
		return true
	}
	return false
}

// Len is how many keys have requests awaiting an answer.
func (p *Pending[E]) Len() int { return len(p.m) }
