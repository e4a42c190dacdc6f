package gen

import (
	"sort"
	"strconv"

	"github.com/mcpcheck/mcpcheck/spec"
	"pgregory.net/rapid"
)

// Sequence is a model of a client's side of one session, used as a rapid
// state machine: each action appends the messages a client would send next,
// given what it has sent so far. The same actions drive Sequences (a
// generator of whole sessions, for campaigns) and state-machine tests
// (rapid's T.Repeat against a live target).
//
// Stateful versions open with initialize and notifications/initialized;
// 2026-07-28 opens with server/discover and carries _meta on every request.
type Sequence struct {
	v    spec.Version
	gens *Messages
	// Lines are the messages sent so far, in order, without newlines.
	Lines [][]byte
	// Methods lists the method of each request or notification sent.
	Methods []string

	nextID     int
	inFlight   []string // ids of requests that may still be running
	tokens     int
	subscribed []string // resource URIs subscribed to (stateful)
	taskIDs    int
}

// NewSequence starts a session model of version v with its opening
// messages already in Lines.
func NewSequence(v spec.Version) (*Sequence, error) {
	gens, err := NewMessages(v)
	if err != nil {
		return nil, err
	}
	s := &Sequence{v: v, gens: gens}
	if v.Era() == spec.Stateless {
		s.add(spec.MethodServerDiscover, Marshal(Request(v, s.id(), spec.MethodServerDiscover, nil)))
	} else {
		s.add(spec.MethodInitialize, InitializeRequest(v, s.id()))
		s.add(spec.MethodInitialized, InitializedNotification())
	}
	return s, nil
}

func (s *Sequence) id() string {
	s.nextID++
	return "seq-" + strconv.Itoa(s.nextID)
}

func (s *Sequence) add(method string, b []byte) {
	s.Lines = append(s.Lines, b)
	s.Methods = append(s.Methods, method)
}

func (s *Sequence) has(method string) bool {
	_, ok := spec.LookupMethod(s.v, method)
	return ok
}

// Actions returns the state machine's actions for rapid's T.Repeat, keyed
// by name; the "" key (the invariant) is left to the caller.
func (s *Sequence) Actions() map[string]func(*rapid.T) {
	acts := map[string]func(*rapid.T){
		"request":  s.Request,
		"paginate": s.Paginate,
		"progress": s.Progress,
		"cancel":   s.Cancel,
	}
	if s.has(spec.MethodPing) {
		acts["ping"] = s.Ping
	}
	if s.has(spec.MethodResourcesSubscribe) {
		acts["subscribe"] = s.Subscribe
		acts["unsubscribe"] = s.Unsubscribe
	}
	if s.has(spec.MethodTasksGet) {
		acts["task"] = s.Task
	}
	if s.has(spec.MethodSubscriptionsListen) {
		acts["listen"] = s.Listen
	}
	return acts
}

// Request sends a generated, plausible client request with a fresh id.
func (s *Sequence) Request(t *rapid.T) {
	msg := s.gens.ClientRequest().Draw(t, "request")
	if msg.Method == spec.MethodInitialize {
		return // one initialize per session; double-initialize is a mutator
	}
	id := s.id()
	msg.Value["id"] = id
	s.inFlight = append(s.inFlight, id)
	s.add(msg.Method, msg.Raw())
}

// Paginate lists tools, resources, prompts or templates with a cursor (an
// opaque string the server may reject with invalid params).
func (s *Sequence) Paginate(t *rapid.T) {
	method := rapid.SampledFrom([]string{spec.MethodToolsList, spec.MethodResourcesList, spec.MethodPromptsList, spec.MethodResourcesTemplatesList}).Draw(t, "list")
	params := map[string]any{}
	if rapid.Bool().Draw(t, "with cursor") {
		params["cursor"] = rapid.SampledFrom([]string{"", "0", "next", "eyJwYWdlIjoyfQ=="}).Draw(t, "cursor")
	}
	s.add(method, Marshal(Request(s.v, s.id(), method, params)))
}

// Progress sends a request that asks for progress with a fresh token.
func (s *Sequence) Progress(t *rapid.T) {
	s.tokens++
	id := s.id()
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": spec.MethodToolsList,
		"params": map[string]any{"_meta": WithProgress(s.v, "tok-"+strconv.Itoa(s.tokens))}}
	s.inFlight = append(s.inFlight, id)
	s.add(spec.MethodToolsList, Marshal(req))
}

// Cancel cancels a request sent earlier (it may have been answered
// already, which the receiver must tolerate).
func (s *Sequence) Cancel(t *rapid.T) {
	if len(s.inFlight) == 0 {
		t.Skip("nothing to cancel")
	}
	i := rapid.IntRange(0, len(s.inFlight)-1).Draw(t, "which")
	id := s.inFlight[i]
	s.inFlight = append(s.inFlight[:i], s.inFlight[i+1:]...)
	s.add(spec.MethodCancelled, Cancelled(s.v, id))
}

// Ping sends ping.
func (s *Sequence) Ping(t *rapid.T) {
	s.add(spec.MethodPing, Marshal(Request(s.v, s.id(), spec.MethodPing, nil)))
}

// Subscribe subscribes to a resource URI.
func (s *Sequence) Subscribe(t *rapid.T) {
	uri := rapid.SampledFrom([]string{"file:///tmp/a.txt", "test://static/resource/1", "mem://note/1"}).Draw(t, "uri")
	s.subscribed = append(s.subscribed, uri)
	s.add(spec.MethodResourcesSubscribe, Marshal(Request(s.v, s.id(), spec.MethodResourcesSubscribe, map[string]any{"uri": uri})))
}

// Unsubscribe ends a subscription made earlier.
func (s *Sequence) Unsubscribe(t *rapid.T) {
	if len(s.subscribed) == 0 {
		t.Skip("no subscription")
	}
	uri := s.subscribed[len(s.subscribed)-1]
	s.subscribed = s.subscribed[:len(s.subscribed)-1]
	s.add(spec.MethodResourcesUnsubscribe, Marshal(Request(s.v, s.id(), spec.MethodResourcesUnsubscribe, map[string]any{"uri": uri})))
}

// Task asks for a tool call as a task, then queries tasks (2025-11-25).
func (s *Sequence) Task(t *rapid.T) {
	s.taskIDs++
	s.add(spec.MethodToolsCall, Marshal(Request(s.v, s.id(), spec.MethodToolsCall, map[string]any{"name": "echo", "arguments": map[string]any{"message": "x"}, "task": map[string]any{"ttl": 60000}})))
	m := rapid.SampledFrom([]string{spec.MethodTasksGet, spec.MethodTasksList, spec.MethodTasksCancel, spec.MethodTasksResult}).Draw(t, "task method")
	params := map[string]any{"taskId": "task-" + strconv.Itoa(s.taskIDs)}
	if m == spec.MethodTasksList {
		params = nil
	}
	s.add(m, Marshal(Request(s.v, s.id(), m, params)))
}

// Listen opens a 2026-07-28 subscriptions/listen stream.
func (s *Sequence) Listen(t *rapid.T) {
	filter := map[string]any{}
	for _, k := range []string{"toolsListChanged", "resourcesListChanged", "promptsListChanged"} {
		if rapid.Bool().Draw(t, k) {
			filter[k] = true
		}
	}
	id := s.id()
	s.inFlight = append(s.inFlight, id)
	s.add(spec.MethodSubscriptionsListen, Marshal(Request(s.v, id, spec.MethodSubscriptionsListen, map[string]any{"notifications": filter})))
}

// Sequences generates whole client sessions of version v: the opening
// messages, then 1 to maxSteps actions of the state machine.
func Sequences(v spec.Version, maxSteps int) *rapid.Generator[*Sequence] {
	return rapid.Custom(func(t *rapid.T) *Sequence {
		s, err := NewSequence(v)
		if err != nil {
			t.Fatalf("%v", err)
		}
		acts := s.Actions()
		names := make([]string, 0, len(acts))
		for k := range acts {
			names = append(names, k)
		}
		sort.Strings(names)
		n := rapid.IntRange(1, maxSteps).Draw(t, "steps")
		for i := 0; i < n; i++ {
			name := rapid.SampledFrom(names).Draw(t, "action")
			if (name == "cancel" && len(s.inFlight) == 0) || (name == "unsubscribe" && len(s.subscribed) == 0) {
				continue
			}
			acts[name](t)
		}
		return s
	})
}
