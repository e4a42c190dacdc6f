package mutate

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Base is what a stream mutator starts from: one valid, plausible client
// message of the campaign's protocol version, plus what the campaign knows
// about the target.
type Base struct {
	Version spec.Version
	// Msg is a valid client request or notification, drawn from the
	// version's generators.
	Msg gen.Message
	// Gens generates more messages of the version.
	Gens *gen.Messages
	// Tools are the tools the target listed (name and inputSchema), when
	// the campaign could list them; nil otherwise.
	Tools []Tool
}

// Tool is what the campaign learned about one of the target's tools.
type Tool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Annotations decide whether the campaign's tool policy lets the
	// tool-call mutator call it (Config.ToolPolicy).
	Annotations *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// Mutator is a named, deterministic transformation of a Base into an Input.
// The same Base and random source always give the same Input.
type Mutator struct {
	// Name is family/what, such as "bytes/flip"; findings cite it.
	Name string
	// Doc says in one line what the mutator sends.
	Doc string
	// Mutate builds the input. It sets Chunks (and Fresh or CloseAfter
	// when it needs them); MakeInput fills in the rest.
	Mutate func(r *rand.Rand, b Base) Input
	// Cost is what one input costs beside a cheap one; it sets how often
	// a campaign draws the mutator (Schedule).
	Cost Cost
	// FreshIn lists the eras in which every input needs an instance of
	// its own (a process start over stdio), which makes the mutator
	// costly there and cheap elsewhere: before-initialize and
	// cancel-initialize restart a stateful target (stateless ones take
	// them on the shared instance); double-initialize restarts a
	// stateless one (its initialize would open a legacy session on a
	// dual-era server; a stateful target answers it on the shared
	// session).
	FreshIn []spec.Era
	// Over says which targets the mutator applies to: any (the zero
	// value), stdio ones only (framing: damage to lines), or HTTP ones
	// only (hostile requests, bent HTTP answers, SSE streams).
	Over Over
	// ValidSSE marks a client mutator whose SSE stream stays valid SSE
	// (the format allows CR line ends, a BOM, split writes, retry fields
	// and comments): a client that fails on it refuses a valid stream.
	ValidSSE bool
}

// Cost is what an input of a mutator costs beside a cheap one (a round
// trip).
type Cost uint8

const (
	// Cheap inputs cost about one round trip.
	Cheap Cost = iota
	// Costly inputs cost far more: a process restart, megabytes, hundreds
	// of messages. Campaigns draw them a thirty-second as often as the
	// cheap ones (a client campaign a quarter as often: it launches the
	// client for every input anyway).
	Costly
	// Slow inputs take a large share of a second or more by design (a
	// body trickled a few bytes at a time, a line of megabytes, or, for a
	// client, its own request timeout). Campaigns draw them a
	// sixty-fourth as often as the cheap ones, so that they do not take
	// most of a campaign's time (slow-body took 60% of an HTTP campaign's
	// at a quarter, giant-line 21% of a stdio campaign's; see the
	// summary's mutatorTimeNs).
	Slow
)

// Over is the kind of target a mutator applies to.
type Over uint8

const (
	// OverAny applies to stdio and HTTP targets.
	OverAny Over = iota
	// OverStdio applies to stdio targets only.
	OverStdio
	// OverHTTP applies to HTTP targets only.
	OverHTTP
)

// appliesTo reports whether the mutator applies to an HTTP target (http)
// or a stdio one.
func (m Mutator) appliesTo(http bool) bool {
	return m.Over == OverAny || (m.Over == OverHTTP) == http
}

// CostlyIn reports whether the mutator's inputs are expensive to run in
// version v.
func (m Mutator) CostlyIn(v spec.Version) bool {
	return m.Cost != Cheap || slices.Contains(m.FreshIn, v.Era())
}

// Schedule expands a mutator list into the table a campaign in version v
// draws from, in name order: cheap mutators 64 times, costly ones
// (CostlyIn) twice, slow ones once.
//
// The weights follow what an input costs, so that no kind takes most of a
// campaign's time: an input that needs a process start costs the CPU of
// 100 cheap inputs against a Go server (about 25 ms, package init
// included) and of thousands against a Node one. At a quarter of the cheap
// weight, the starts of a 2025-11-25 campaign against mcpcheck's reference
// server took half of a 2-core machine's CPU and held the campaign at 10 %
// of the target's bare rate. At a thirty-second, a costly mutator still
// gets about twice the time of a cheap one, and a hundred inputs or more
// in a campaign of a minute; a slow one about as much time as a cheap one.
func Schedule(ms []Mutator, v spec.Version) []Mutator {
	var out []Mutator
	for _, m := range ms {
		n := 64
		switch {
		case m.Cost == Slow:
			n = 1
		case m.CostlyIn(v):
			n = 2
		}
		for i := 0; i < n; i++ {
			out = append(out, m)
		}
	}
	return out
}

// Family is the part of the name before the slash: bytes, framing, json,
// protocol.
func (m Mutator) Family() string {
	f, _, _ := strings.Cut(m.Name, "/")
	return f
}

var (
	mutatorsOnce sync.Once
	mutatorList  []Mutator
	mutatorIndex map[string]int
)

func allMutators() []Mutator {
	mutatorsOnce.Do(func() {
		var all []Mutator
		all = append(all, bytesMutators...)
		all = append(all, framingMutators...)
		all = append(all, jsonMutators...)
		all = append(all, protocolMutators...)
		all = append(all, httpAsMutators()...)
		sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
		mutatorList = all
		mutatorIndex = map[string]int{}
		for i, m := range all {
			mutatorIndex[m.Name] = i
		}
	})
	return mutatorList
}

// Mutators returns every stream mutator (bytes, framing, json, protocol),
// sorted by name. The http family is left out; see MutatorsFor.
func Mutators() []Mutator { return MutatorsFor(false) }

// MutatorsFor returns the mutators that apply to a stdio target (http
// false: every family but http) or to an HTTP target (http true: every
// family but framing, which is about stdio lines).
func MutatorsFor(http bool) []Mutator {
	var out []Mutator
	for _, m := range allMutators() {
		if m.appliesTo(http) {
			out = append(out, m)
		}
	}
	return out
}

// MutatorNames returns the names of every mutator, the http family
// included, sorted.
func MutatorNames() []string {
	var out []string
	for _, m := range allMutators() {
		out = append(out, m.Name)
	}
	return out
}

// LookupMutator returns the stream mutator called name.
func LookupMutator(name string) (Mutator, bool) {
	allMutators()
	i, ok := mutatorIndex[name]
	if !ok {
		return Mutator{}, false
	}
	return mutatorList[i], true
}

// SelectMutators returns the mutators whose name or family matches one of
// the patterns ("json", "bytes/flip"); no patterns select all the stream
// mutators.
func SelectMutators(patterns []string) ([]Mutator, error) {
	return SelectFrom(allMutators(), patterns)
}

// SelectFrom is SelectMutators over the mutators from (client campaigns
// select from theirs); no patterns select all the stream mutators.
func SelectFrom(from []Mutator, patterns []string) ([]Mutator, error) {
	if len(patterns) == 0 {
		return MutatorsFor(false), nil
	}
	var out []Mutator
	for _, m := range from {
		for _, p := range patterns {
			if m.Name == p || m.Family() == p {
				out = append(out, m)
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("fuzz: no mutator matches %v; the families are bytes, framing, json, protocol and http, and MutatorNames lists the rest", patterns)
	}
	return out, nil
}

func nameSalt(name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return h.Sum64()
}

// MakeBase draws the base message of one seed: a plausible client request
// (or, one time in eight, a notification) of version v.
func MakeBase(v spec.Version, seed uint64, tools []Tool) (Base, error) {
	gens, err := gen.NewMessages(v)
	if err != nil {
		return Base{}, err
	}
	g := gens.ClientRequest()
	if seed%8 == 7 {
		g = gens.ClientNotification()
	}
	msg, err := gen.Example(g, seed)
	if err != nil {
		return Base{}, err
	}
	uniqueID(&msg, seed)
	return Base{Version: v, Msg: msg, Gens: gens, Tools: tools}, nil
}

// uniqueID makes a request's id depend on the seed, keeping its type (and
// a generated string's characters), so that inputs of one session do not
// reuse ids by accident; reuse is what protocol/duplicate-id is for.
func uniqueID(msg *gen.Message, seed uint64) {
	switch id := msg.Value["id"].(type) {
	case string:
		msg.Value["id"] = id + "#" + strconv.FormatUint(seed, 36)
	case int64:
		msg.Value["id"] = int64(seed%(1<<53-1)) + 1
	}
}

// MakeInput builds the input of one mutator for version v from seed:
// the base message and every random choice come from the seed, so the same
// arguments always give the same bytes.
func MakeInput(v spec.Version, mutator string, seed uint64, tools []Tool) (Input, error) {
	m, ok := LookupMutator(mutator)
	if !ok {
		return Input{}, fmt.Errorf("fuzz: there is no mutator %q; MutatorNames lists them", mutator)
	}
	b, err := MakeBase(v, seed, tools)
	if err != nil {
		return Input{}, err
	}
	in := m.Mutate(newRand(seed, nameSalt(m.Name)), b)
	in.Mutator, in.Seed = m.Name, seed
	if len(in.Methods) == 0 && b.Msg.Method != "" {
		in.Methods = []string{b.Msg.Method}
	}
	if v.Era() == spec.Stateless && slices.Contains(in.Methods, spec.MethodInitialize) {
		// On a dual-era server initialize opens a legacy session, which
		// then serves every message without a _meta protocol version by
		// the rules of another era: such an input gets an instance of its
		// own, so that the shared one stays in the campaign's era.
		in.Fresh = true
	}
	return in, nil
}

// Single makes an input of one line per message.
func Single(msgs ...[]byte) Input {
	var in Input
	for _, m := range msgs {
		in.Chunks = append(in.Chunks, Line(m))
	}
	return in
}

// pick returns one element of list.
func pick[E any](r *rand.Rand, list []E) E { return list[r.IntN(len(list))] }

// cloneValue deep-copies a generated JSON value.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// LookupFamily returns the family of a mutator name ("json" for
// "json/null-id").
func LookupFamily(name string) string {
	f, _, _ := strings.Cut(name, "/")
	return f
}
