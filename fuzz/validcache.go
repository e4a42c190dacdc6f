package fuzz

import (
	"bytes"
	"hash/maphash"
	"sync"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// Schema validation is a pure function of the version, the method and the
// message, and a target answers most inputs with the same bytes but for
// the id (the liveness probe's answer above all). validCache remembers the
// verdicts of messages whose id is an ordinary string or integer, keyed by
// the message with its id token cut out, so that such an answer is
// validated once per campaign. The cache is bounded in entries and bytes
// and emptied when full.
type validCache struct {
	mu      sync.Mutex
	seed    maphash.Seed
	entries map[validKey][]validEntry
	n       int // entries
	size    int // bytes held
}

type validKey struct {
	v      spec.Version
	method string
	hash   uint64
}

type validEntry struct {
	pre, post []byte // the message before and after its id token
	obs       Observation
	bad       bool
}

const (
	validCacheEntries = 4096
	validCacheBytes   = 8 << 20
	validCacheMaxMsg  = 64 << 10 // larger messages are validated every time
)

var verdicts = &validCache{seed: maphash.MakeSeed(), entries: map[validKey][]validEntry{}}

// idSplit cuts raw around its top-level id token when the message is
// valid JSON-RPC with an ordinary id (a string, or an integer written with
// digits only), whose value cannot change the verdict: the schemas allow
// any string or integer there.
func idSplit(msg jsonrpc.Message, raw []byte) (pre, post []byte, ok bool) {
	if len(raw) > validCacheMaxMsg || !msg.Valid() || msg.ID.IsZero() {
		return nil, nil, false
	}
	tok := topLevelMember(raw, "id")
	if len(tok) == 0 || cap(tok) > cap(raw) {
		return nil, nil, false
	}
	switch {
	case tok[0] == '"':
	case isDigits(bytes.TrimPrefix(tok, []byte{'-'})):
	default:
		return nil, nil, false
	}
	start := cap(raw) - cap(tok)
	if start < 0 || start+len(tok) > len(raw) || !bytes.Equal(raw[start:start+len(tok)], tok) {
		return nil, nil, false
	}
	return raw[:start], raw[start+len(tok):], true
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (c *validCache) key(v spec.Version, method string, pre, post []byte) validKey {
	var h maphash.Hash
	h.SetSeed(c.seed)
	_, _ = h.Write(pre)
	_ = h.WriteByte(0)
	_, _ = h.Write(post)
	return validKey{v: v, method: method, hash: h.Sum64()}
}

func (c *validCache) get(k validKey, pre, post []byte) (Observation, bool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries[k] {
		if bytes.Equal(e.pre, pre) && bytes.Equal(e.post, post) {
			return e.obs, e.bad, true
		}
	}
	return Observation{}, false, false
}

func (c *validCache) put(k validKey, pre, post []byte, obs Observation, bad bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(pre) + len(post) + len(obs.Message) + len(obs.Check)
	if c.n >= validCacheEntries || c.size+n > validCacheBytes {
		clear(c.entries)
		c.n, c.size = 0, 0
	}
	e := validEntry{pre: bytes.Clone(pre), post: bytes.Clone(post), obs: obs, bad: bad}
	c.entries[k] = append(c.entries[k], e)
	c.n++
	c.size += n
}
