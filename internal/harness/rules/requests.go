package rules

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// Methods remembers the method of every request one peer sent, by the
// request's id, so that the other peer's answers can be judged by the
// method they answer. Method does not forget an id once answered. Answer
// also counts the answers: an answer to an id whose requests were all
// answered already (a duplicate, or an id a peer mangled into one used
// before, such as 1.5 rounded to 1) answers nothing it could be judged
// as. When it holds max ids it starts over, so a peer that is never
// answered cannot grow it without bound.
//
// Concurrency: safe for concurrent use (taps call it from the sending and
// receiving goroutines).
type Methods struct {
	max int
	mu  sync.Mutex
	m   map[jsonrpc.ID]*sentRequests
}

// sentRequests is what Methods knows of one id: the method of the last
// request sent with it, how many were sent and how many answers came.
type sentRequests struct {
	method         string
	sent, answered int
}

// DefaultMaxMethods bounds a Methods made with a max of zero or less.
const DefaultMaxMethods = 100000

// NewMethods returns an empty Methods that keeps at most max ids
// (DefaultMaxMethods when max <= 0).
func NewMethods(max int) *Methods {
	if max <= 0 {
		max = DefaultMaxMethods
	}
	return &Methods{max: max, m: map[jsonrpc.ID]*sentRequests{}}
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
	defer t.mu.Unlock()
	e := t.m[m.ID]
	if e == nil {
		if len(t.m) >= t.max {
			t.m = map[jsonrpc.ID]*sentRequests{}
		}
		e = &sentRequests{}
		t.m[m.ID] = e
	}
	e.method = m.Method
	e.sent++
}

// Method is the method of the request with id, "" when none was seen.
func (t *Methods) Method(id jsonrpc.ID) string {
	if id.IsZero() {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.m[id]; e != nil {
		return e.method
	}
	return ""
}

// Sends is how many requests with id were sent.
func (t *Methods) Sends(id jsonrpc.ID) int {
	if id.IsZero() {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.m[id]; e != nil {
		return e.sent
	}
	return 0
}

// Answer counts an answer carrying id and says what it answers: the
// method of the request sent with id ("" when none was), and whether a
// request with id still awaited an answer. An answer for which awaited is
// false answers no request it can be attributed to: its id is unknown,
// or every request with it was answered already.
func (t *Methods) Answer(id jsonrpc.ID) (method string, awaited bool) {
	if id.IsZero() {
		return "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.m[id]
	if e == nil {
		return "", false
	}
	if e.answered >= e.sent {
		return e.method, false
	}
	e.answered++
	return e.method, true
}

// RawID is the compact JSON text of the id member of the message raw: ""
// when raw is not one JSON object (a batch, garbage) or its id is absent
// or null. Unlike jsonrpc.Message.ID it keeps ids MCP forbids (1.5, true),
// so that an answer can be told from another message's.
func RawID(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, m.ID) != nil {
		return string(m.ID)
	}
	return b.String()
}

// SameID reports whether two id texts (RawID, or jsonrpc.ID.String) name
// the same id: strings equal once unescaped, numbers of equal value (1.5
// and 1.50, 7 and 7.0), anything else byte for byte. A string never
// equals a number ("1" is not 1).
func SameID(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	if (a[0] == '"') != (b[0] == '"') {
		return false
	}
	if a[0] == '"' {
		var sa, sb string
		return json.Unmarshal([]byte(a), &sa) == nil && json.Unmarshal([]byte(b), &sb) == nil && sa == sb
	}
	ra, oka := new(big.Rat).SetString(a)
	rb, okb := new(big.Rat).SetString(b)
	return oka && okb && ra.Cmp(rb) == 0
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
