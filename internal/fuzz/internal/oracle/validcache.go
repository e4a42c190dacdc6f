package oracle

import (
	"bytes"
	"hash/maphash"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// validCache remembers schema verdicts. Schema validation is a pure
// function of the version, the method, the direction and the message, and a
// target answers most inputs with the same bytes but for the id (the
// liveness probe's answer above all), or writes the same bytes again (a
// parse error, a log notification). The cache remembers verdicts, keyed by
// the message with its id token cut out when the id is an ordinary string
// or integer (whose value cannot change the verdict), and by the whole
// message otherwise, so that such a message is validated once per campaign.
// The cache is bounded in entries and bytes. It has two parts, messages cut
// around their id and whole ones, each emptied when full: a stream of
// distinct messages without an id (a server's numbered log notifications)
// does not push out the answers that come back with every input.
type validCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	parts [2]validPart // 0: whole messages, 1: cut around their id
}

// validPart is one part of a validCache.
type validPart struct {
	entries map[validKey][]validEntry
	n       int // entries
	size    int // bytes held
}

type validKey struct {
	v      spec.Version
	method string
	form   validForm
	hash   uint64
}

// validForm says how a cached message was cut and judged: the verdict of
// the same bytes differs with each of these.
type validForm uint8

const (
	formCut     validForm = 1 << iota // keyed without its id token (idSplit)
	formZeroID                        // judged with its id set to 0 (withID)
	formInBatch                       // an element of a batch
)

type validEntry struct {
	pre, post []byte // the message before and after its id token
	obs       Observation
	bad       bool
}

const (
	validCacheEntries = 4096     // per part
	validCacheBytes   = 4 << 20  // per part
	validCacheMaxMsg  = 64 << 10 // larger messages are validated every time
)

var verdicts = newValidCache()

func newValidCache() *validCache {
	c := &validCache{seed: maphash.MakeSeed()}
	for i := range c.parts {
		c.parts[i].entries = map[validKey][]validEntry{}
	}
	return c
}

// part is the part of the cache that holds key k.
func (c *validCache) part(k validKey) *validPart {
	if k.form&formCut != 0 {
		return &c.parts[1]
	}
	return &c.parts[0]
}

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

// validEntryKey cuts msg for the cache: around its id token when idSplit
// can, as the whole message otherwise. zeroID says the message is judged
// with its id replaced by 0, inBatch that it came in a batch. ok is false
// for a message too large to be cached.
func validEntryKey(msg jsonrpc.Message, zeroID, inBatch bool) (pre, post []byte, form validForm, ok bool) {
	if len(msg.Raw) > validCacheMaxMsg {
		return nil, nil, 0, false
	}
	if zeroID {
		form |= formZeroID
	}
	if inBatch {
		form |= formInBatch
	}
	if pre, post, cut := idSplit(msg, msg.Raw); cut {
		return pre, post, form | formCut, true
	}
	return msg.Raw, nil, form, true
}

func (c *validCache) key(v spec.Version, method string, form validForm, pre, post []byte) validKey {
	var h maphash.Hash
	h.SetSeed(c.seed)
	_, _ = h.Write(pre)
	_ = h.WriteByte(0)
	_, _ = h.Write(post)
	return validKey{v: v, method: method, form: form, hash: h.Sum64()}
}

func (c *validCache) get(k validKey, pre, post []byte) (Observation, bool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.part(k).entries[k] {
		if bytes.Equal(e.pre, pre) && bytes.Equal(e.post, post) {
			return e.obs, e.bad, true
		}
	}
	return Observation{}, false, false
}

func (c *validCache) put(k validKey, pre, post []byte, obs Observation, bad bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.part(k)
	n := len(pre) + len(post) + len(obs.Message) + len(obs.Check)
	if p.n >= validCacheEntries || p.size+n > validCacheBytes {
		clear(p.entries)
		p.n, p.size = 0, 0
	}
	e := validEntry{pre: bytes.Clone(pre), post: bytes.Clone(post), obs: obs, bad: bad}
	p.entries[k] = append(p.entries[k], e)
	p.n++
	p.size += n
}
