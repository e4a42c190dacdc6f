package oracle

import (
	"strconv"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestValidCacheVerdictEqualsFresh judges messages twice and more through
// the cached validate and checks every verdict against a fresh validation:
// valid and invalid messages, ids cut out or not, the same bytes judged
// with and without the id set to 0, as answers to different methods and
// as batch elements, so that a key that forgets one of these fails.
func TestValidCacheVerdictEqualsFresh(t *testing.T) {
	cases := []struct {
		v       spec.Version
		method  string // the request a response answers
		raw     string
		zeroID  bool
		inBatch bool
	}{
		// Ordinary ids (the cut form), valid and invalid.
		{spec.V20251125, spec.MethodPing, `{"jsonrpc":"2.0","id":"a","result":{}}`, false, false},
		{spec.V20251125, spec.MethodPing, `{"jsonrpc":"2.0","id":"b","result":{}}`, false, false},
		{spec.V20251125, spec.MethodToolsList, `{"jsonrpc":"2.0","id":"c","result":{}}`, false, false}, // no tools: invalid
		{spec.V20251125, spec.MethodToolsList, `{"jsonrpc":"2.0","id":7,"result":{}}`, false, false},
		{spec.V20251125, spec.MethodToolsList, `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`, false, false},
		{spec.V20251125, "", `{"jsonrpc":"2.0","id":8,"error":{"code":"x","message":"m"}}`, false, false}, // code not an integer
		{spec.V20251125, "", `{"jsonrpc":"2.0","id":9,"error":{"code":"x","message":"m"}}`, true, false},
		// No id (the whole form): notifications, null-id errors.
		{spec.V20251125, "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"seq":1}}}`, false, false},
		{spec.V20251125, "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":{"seq":1}}}`, false, false}, // bad level
		{spec.V20251125, "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":{"seq":1}}}`, false, true},
		{spec.V20250326, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, false, false},
		{spec.V20250326, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, true, false},
		{spec.V20250326, "", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, true, false},
		{spec.V20250326, "", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, false, false},
		{spec.V20251125, "", `{"jsonrpc":"2.0","id":null,"error":{"code":"bad"}}`, true, false},
		{spec.V20251125, "", `{"jsonrpc":"2.0","id":1.5,"result":{}}`, true, false},
		{spec.V20251125, "", `{"jsonrpc":"2.0","id":1.5,"result":{}}`, false, false},
	}
	old := verdicts
	verdicts = newValidCache()
	defer func() { verdicts = old }()
	seen := map[bool]bool{}
	for round := 0; round < 2; round++ { // the second round reads the cache
		for i, c := range cases {
			msg := jsonrpc.Decode([]byte(c.raw))
			j := NewJudge(c.v)
			j.inBatch = c.inBatch
			got, gotBad := j.validate(c.v, c.method, msg, c.zeroID)
			want, wantBad := validateFresh(c.v, spec.ServerToClient, rules.Answerable(c.v, spec.ServerToClient, c.method), msg, c.zeroID)
			if got != want || gotBad != wantBad {
				t.Errorf("round %d, case %d (%s, zeroID %v, batch %v): cached verdict %v %+v, fresh %v %+v", round, i, c.raw, c.zeroID, c.inBatch, gotBad, got, wantBad, want)
			}
			seen[wantBad] = true
		}
	}
	if !seen[true] || !seen[false] {
		t.Fatalf("the cases should hold valid and invalid messages; saw %v", seen)
	}
	if verdicts.parts[0].n == 0 || verdicts.parts[1].n == 0 {
		t.Fatalf("cached %d whole messages and %d cut ones; want both", verdicts.parts[0].n, verdicts.parts[1].n)
	}
}

// TestValidCacheKeysSeparateForms checks that one body is cached apart
// for each way it is judged (the id cut out or the whole message, with its
// id set to 0 or not, alone or in a batch), and that a body too large is
// not cached.
func TestValidCacheKeysSeparateForms(t *testing.T) {
	msg := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":"x","result":{}}`))
	keys := map[validForm]bool{}
	for _, zeroID := range []bool{false, true} {
		for _, inBatch := range []bool{false, true} {
			pre, post, form, ok := validEntryKey(msg, zeroID, inBatch)
			if !ok || form&formCut == 0 || string(pre)+`"x"`+string(post) != string(msg.Raw) {
				t.Errorf("zeroID %v, batch %v: cut %q %q form %b ok %v", zeroID, inBatch, pre, post, form, ok)
			}
			keys[form] = true
		}
	}
	if len(keys) != 4 {
		t.Errorf("forms %v: want four distinct", keys)
	}
	note := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if pre, post, form, ok := validEntryKey(note, false, false); !ok || form&formCut != 0 || string(pre) != string(note.Raw) || post != nil {
		t.Errorf("a notification: %q %q form %b ok %v; want the whole message", pre, post, form, ok)
	}
	big := jsonrpc.Decode(append(append([]byte(`{"jsonrpc":"2.0","method":"x","params":{"p":"`), make([]byte, validCacheMaxMsg)...), `"}}`...))
	if _, _, _, ok := validEntryKey(big, false, false); ok {
		t.Error("a message larger than validCacheMaxMsg was cacheable")
	}
}

// TestValidCachePartsBounded fills the part of whole messages past its
// bound and checks that it was emptied while the part of cut messages
// kept its entry.
func TestValidCachePartsBounded(t *testing.T) {
	c := newValidCache()
	cut := validKey{v: spec.V20251125, form: formCut}
	c.put(cut, []byte(`{"id":`), []byte(`}`), Observation{}, false)
	for i := 0; i < validCacheEntries+10; i++ {
		raw := []byte(`{"seq":` + strconv.Itoa(i) + `}`)
		c.put(c.key(spec.V20251125, "", 0, raw, nil), raw, nil, Observation{}, false)
	}
	if c.parts[0].n > validCacheEntries || c.parts[0].n == 0 {
		t.Errorf("whole messages: %d entries; want between 1 and %d", c.parts[0].n, validCacheEntries)
	}
	if _, _, ok := c.get(cut, []byte(`{"id":`), []byte(`}`)); !ok {
		t.Error("filling the whole messages' part pushed out a cut message")
	}
}
