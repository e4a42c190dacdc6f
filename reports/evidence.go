package reports

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// evidenceEvents bounds the events of an excerpt.
const evidenceEvents = 6

// Evidence is the part of a check's transcript that proves its verdict:
// the request that provoked what was judged and the answer it was judged
// on, or, when no answer came, the request and the wait that ended
// unanswered. Reports show it instead of the transcript's last events,
// which are mostly the connection closing.
type Evidence struct {
	// Events are the events shown, in transcript order; Index their
	// indices in the transcript.
	Events []WireEvent
	Index  []int
	// Total is the number of events in the whole transcript.
	Total int
	// Unanswered names the requests among Events that no event of the
	// transcript answers ("id 7", "mcpcheck-batch-a"), and Waited says
	// until when the check waited for them (the verdict's JudgedAt).
	Unanswered []string
	Waited     time.Duration
}

// Skipped is how many transcript events lie between Events[i-1] and
// Events[i] (before Events[0] for i == 0).
func (e Evidence) Skipped(i int) int {
	if i == 0 {
		return e.Index[0]
	}
	return e.Index[i] - e.Index[i-1] - 1
}

// After is how many transcript events follow the last one shown.
func (e Evidence) After() int {
	if len(e.Index) == 0 {
		return e.Total
	}
	return e.Total - e.Index[len(e.Index)-1] - 1
}

// frameInfo is what evidence needs of one event's JSON-RPC message.
type frameInfo struct {
	ids     []string // the ids of its messages (several for a batch)
	method  string   // the method of its first request or notification
	name    string   // params.name of that request (a tool or prompt)
	request bool     // it holds a request (has a method and an id)
	answer  bool     // it holds a response (has an id and no method)
	orphan  bool     // it holds a response without an id (null or absent)
	content bool     // it holds a message at all
}

type rpcPeek struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// peekFrame reads the JSON-RPC shape of an event's raw bytes; events
// that are not JSON (or too big to be worth reading) have none.
func peekFrame(e WireEvent) frameInfo {
	var fi frameInfo
	raw := strings.TrimSpace(e.Raw)
	if e.Base64 || raw == "" || len(raw) > 1<<20 {
		fi.content = raw != "" || e.HTTP != nil && e.HTTP.Status != 0
		return fi
	}
	fi.content = true
	var msgs []rpcPeek
	if strings.HasPrefix(raw, "[") {
		if json.Unmarshal([]byte(raw), &msgs) != nil {
			return fi
		}
	} else {
		var m rpcPeek
		if json.Unmarshal([]byte(raw), &m) != nil {
			return fi
		}
		msgs = []rpcPeek{m}
	}
	for _, m := range msgs {
		id := strings.TrimSpace(string(m.ID))
		if id != "" && id != "null" {
			fi.ids = append(fi.ids, strings.Trim(id, `"`))
		}
		if m.Method != "" && fi.method == "" {
			fi.method, fi.name = m.Method, m.Params.Name
		}
		fi.request = fi.request || (m.Method != "" && id != "")
		fi.answer = fi.answer || (m.Method == "" && id != "" && id != "null")
		fi.orphan = fi.orphan || (m.Method == "" && (id == "" || id == "null") && (m.Result != nil || m.Error != nil))
	}
	return fi
}

// mentionedIDs finds the JSON-RPC ids a verdict's text names: "id 22",
// "(id 16)", "ids 3 and 4", "id \"abc\"", and string ids such as
// "mcpcheck-batch-a" wherever the text has them.
var (
	idWords   = regexp.MustCompile(`\bids? (?:"([^"]{1,80})"|(-?[0-9]{1,20}(?:\.[0-9]{1,20})?(?:[eE][-+]?[0-9]{1,4})?))`)
	callNames = regexp.MustCompile(`([A-Za-z0-9_][A-Za-z0-9_./-]{0,80})\(`)
	// streamNames matches the HTTP exchanges a verdict names ("POST
	// post-12", "GET get-2"): the request and what came on its stream.
	streamNames = regexp.MustCompile(`\b(?:POST|GET|DELETE)[ (]+(?:[a-z/]+ request, )?((?:post|get|delete)-[0-9]{1,6})\b`)
)

// streamOf is the HTTP response or SSE stream an event travelled on: its
// Stream, or the "stream X" its note starts with (as the harness's
// recorder writes it); "" when it names none.
func streamOf(e WireEvent) string {
	if e.Stream != "" {
		return e.Stream
	}
	if rest, ok := strings.CutPrefix(e.Note, "stream "); ok {
		name, _, _ := strings.Cut(rest, ";")
		return strings.TrimSpace(name)
	}
	return ""
}

// EvidenceOf picks the smallest excerpt of c's transcript that proves
// its verdict (see Evidence). What came after the verdict (Check.JudgedAt)
// and the connection's closing are left out; of the rest it keeps the
// requests whose ids the verdict's text names, with their answers (or
// what came on the HTTP stream the verdict names, whatever its id); else
// the frame the verdict quotes (with the request it answers); else the
// last call of the tool or method the verdict names; else, when the
// verdict is that no answer came, the last request none came to; else
// the last answer with its request; else the last message or request;
// and the harness's notes after the first event kept. A request no
// answer came to is named in Unanswered, with the time of the verdict.
// What is left of a short transcript is kept whole.
func EvidenceOf(c Check) Evidence {
	evs := c.Transcript
	ev := Evidence{Total: len(evs)}
	if len(evs) == 0 {
		return ev
	}
	all := func() Evidence {
		for i := range evs {
			ev.Events, ev.Index = append(ev.Events, evs[i]), append(ev.Index, i)
		}
		return ev
	}
	// What came after the verdict is not evidence; without the time of
	// the verdict, the connection's closing at the end is not either.
	end := len(evs)
	if c.JudgedAt > 0 {
		for end > 1 && evs[end-1].Offset > c.JudgedAt {
			end--
		}
	}
	for end > 1 {
		switch {
		case teardown(evs[end-1]):
			end--
			continue
		case end > 2 && evs[end-1].Direction == Received && evs[end-2].HTTP != nil && evs[end-2].HTTP.Method == "DELETE":
			end -= 2 // the answer to a DELETE that ended the session
			continue
		}
		break
	}
	if end <= evidenceEvents-2 {
		evs = evs[:end]
		return all()
	}
	infos := make([]frameInfo, end)
	for i := 0; i < end; i++ {
		infos[i] = peekFrame(evs[i])
	}
	text := c.Expected + "\n" + c.Actual + "\n" + c.Reason
	picked := map[int]bool{}
	// answerTo finds the last event before end on the same connection
	// that answers id after the request at i.
	answerTo := func(i int, id string) int {
		for k := end - 1; k > i; k-- {
			if infos[k].answer && evs[k].Conn == evs[i].Conn && evs[k].Direction != evs[i].Direction && slices.Contains(infos[k].ids, id) {
				return k
			}
		}
		return -1
	}
	// orphanAfter finds the first answer without an id on the same
	// connection after i (an error to a request whose id was not read).
	orphanAfter := func(i int) int {
		for k := i + 1; k < end; k++ {
			if infos[k].orphan && evs[k].Conn == evs[i].Conn && evs[k].Direction != evs[i].Direction {
				return k
			}
		}
		return -1
	}
	// The HTTP exchanges the verdict names: what came on such a stream
	// is what was judged, whatever id it carries.
	streams := map[string]bool{}
	for _, m := range streamNames.FindAllStringSubmatch(text, 20) {
		streams[m[1]] = true
	}
	// onStream finds what the target sent on the stream of the request
	// at i, when the verdict names that stream (at most two frames).
	onStream := func(i int) []int {
		st := streamOf(evs[i])
		if st == "" || !streams[st] {
			return nil
		}
		var out []int
		for k := i + 1; k < end && len(out) < 2; k++ {
			if evs[k].Direction == Received && evs[k].Conn == evs[i].Conn && streamOf(evs[k]) == st && strings.TrimSpace(evs[k].Raw) != "" {
				out = append(out, k)
			}
		}
		return out
	}
	pickRequest := func(i int) {
		picked[i] = true
		var missing []string
		for _, id := range infos[i].ids {
			if k := answerTo(i, id); k >= 0 {
				picked[k] = true
			} else {
				missing = append(missing, "id "+id)
			}
		}
		if len(missing) > 0 {
			if ks := onStream(i); len(ks) > 0 {
				for _, k := range ks {
					picked[k] = true
				}
				return
			}
			if k := orphanAfter(i); k >= 0 {
				picked[k] = true
				return
			}
		}
		for _, m := range missing {
			if len(ev.Unanswered) < 3 {
				ev.Unanswered = append(ev.Unanswered, m)
			}
		}
	}
	// 1. The requests whose ids the verdict names, the last of each.
	named := map[string]bool{}
	for _, m := range idWords.FindAllStringSubmatch(text, 20) {
		named[m[1]+m[2]] = true
	}
	for i := end - 1; i >= 0; i-- {
		if !infos[i].request || evs[i].Direction != Sent {
			continue
		}
		for _, id := range infos[i].ids {
			if named[id] || (len(id) > 6 && !isDigits(id) && strings.Contains(text, id)) {
				delete(named, id)
				pickRequest(i)
				// An id named because an answer carried it (the
				// wrong one) is accounted for by that answer.
				for k := range picked {
					for _, other := range infos[k].ids {
						delete(named, other)
					}
				}
				break
			}
		}
	}
	// 1b. And what the target sent that the verdict quotes (the start of
	// a message: a passive check's "sent X: {...}"), with the request it
	// answers.
	if len(picked) == 0 {
		for i := end - 1; i >= 0; i-- {
			raw := strings.TrimSpace(evs[i].Raw)
			if evs[i].Direction != Received || evs[i].Base64 || len(raw) < 24 {
				continue
			}
			cut := min(len(raw), 48)
			for cut > 0 && cut < len(raw) && !utf8.RuneStart(raw[cut]) {
				cut--
			}
			prefix := raw[:cut]
			quoted := strconv.Quote(prefix) // as wire.Excerpt quotes a frame
			if !strings.Contains(text, prefix) && !strings.Contains(text, quoted[1:len(quoted)-1]) {
				continue
			}
			picked[i] = true
			for k := i - 1; k >= 0 && infos[i].answer; k-- {
				if infos[k].request && evs[k].Conn == evs[i].Conn && slices.ContainsFunc(infos[k].ids, func(id string) bool { return slices.Contains(infos[i].ids, id) }) {
					picked[k] = true
					break
				}
			}
			break
		}
	}
	// 2. Else the last call of a tool or prompt the verdict names
	// ("echo({...}): ..."), or of a method it names.
	if len(picked) == 0 {
		names := map[string]bool{}
		for _, m := range callNames.FindAllStringSubmatch(c.Actual, 20) {
			names[m[1]] = true
		}
		// A call is named as "name(arguments)": any tool name, spaces and
		// all ("greet (with Icons)({...})").
		called := func(i int) bool {
			n := infos[i].name
			return n != "" && (names[n] || strings.Contains(c.Actual, n+"("))
		}
		for i := end - 1; i >= 0 && len(picked) == 0; i-- {
			if infos[i].request && evs[i].Direction == Sent && (called(i) || infos[i].name == "" && names[infos[i].method]) {
				pickRequest(i)
			}
		}
	}
	// 2b. Else, when the verdict is that no answer came, the last request
	// none came to.
	if len(picked) == 0 && strings.Contains(text, "no answer") {
		for i := end - 1; i >= 0; i-- {
			if !infos[i].request || evs[i].Direction != Sent {
				continue
			}
			answered := false
			for _, id := range infos[i].ids {
				answered = answered || answerTo(i, id) >= 0
			}
			if !answered {
				pickRequest(i)
				break
			}
		}
	}
	// 3. Else the last answer the target gave before the verdict, with
	// the request it answers.
	for i := end - 1; i >= 0 && len(picked) == 0; i-- {
		if evs[i].Direction != Received || !infos[i].answer {
			continue
		}
		for k := i - 1; k >= 0; k-- {
			if infos[k].request && evs[k].Direction == Sent && evs[k].Conn == evs[i].Conn && slices.ContainsFunc(infos[k].ids, func(id string) bool { return slices.Contains(infos[i].ids, id) }) {
				picked[k], picked[i] = true, true
				break
			}
		}
	}
	// 4. Else the last message the target sent before the verdict, and
	// the request it answers; or the last request, when nothing came.
	if len(picked) == 0 {
		for i := end - 1; i >= 0; i-- {
			if evs[i].Direction == Received && infos[i].content {
				picked[i] = true
				for k := i - 1; k >= 0 && infos[i].answer; k-- {
					if infos[k].request && evs[k].Conn == evs[i].Conn && slices.ContainsFunc(infos[k].ids, func(id string) bool { return slices.Contains(infos[i].ids, id) }) {
						picked[k] = true
						break
					}
				}
				break
			}
			if evs[i].Direction == Sent && infos[i].request {
				pickRequest(i)
				break
			}
		}
	}
	if len(picked) == 0 {
		for i := max(0, end-evidenceEvents+2); i < end; i++ {
			picked[i] = true
		}
	}
	// A frame the target sent of its own (a notification, a request, an
	// HTTP status) was provoked by what mcpcheck sent last on that
	// connection: keep that too, unless a request before it is kept.
	addProvoker(evs, picked)
	// What the target sent on the connection while it handled a request
	// picked with its answer (progress, log messages, its own requests)
	// may be what was judged: it is kept too, while the excerpt has room,
	// the events that share the most words with the verdict first.
	addBetween(evs, infos, picked, c.Actual+"\n"+c.Reason)
	// The harness's own notes between the first event picked and the
	// verdict (a timeout, an exit) say what happened in the gap.
	first := end
	for i := range picked {
		first = min(first, i)
	}
	for i := first; i < end; i++ {
		if evs[i].Direction == Note && !teardown(evs[i]) {
			picked[i] = true
		}
	}
	idx := make([]int, 0, len(picked))
	for i := range picked {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	if len(idx) > evidenceEvents {
		// The first (the request) and the last ones (the answer).
		idx = append(idx[:1], idx[len(idx)-evidenceEvents+1:]...)
	}
	for _, i := range idx {
		ev.Events, ev.Index = append(ev.Events, evs[i]), append(ev.Index, i)
	}
	if len(ev.Unanswered) > 0 {
		ev.Waited = c.JudgedAt
	}
	return ev
}

// teardown reports whether an event is a connection closing rather than
// an exchange: a stream's end, a process's exit, an HTTP DELETE that ends
// a session and the empty answers to it.
func teardown(e WireEvent) bool {
	if e.HTTP != nil && e.HTTP.Method == "DELETE" {
		return true
	}
	if strings.TrimSpace(e.Raw) != "" {
		return false
	}
	switch e.Direction {
	case Received:
		return e.HTTP == nil // a stream's end
	case Note:
		n := strings.ToLower(e.Note)
		return strings.Contains(n, "process exited") || strings.Contains(n, "process ended") || n == "end" || strings.HasPrefix(n, "closed")
	}
	return false
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// addBetween adds to picked the events the target sent between a picked
// request and its picked answer on the same connection, while the
// excerpt has room (evidenceEvents), those sharing the most words with
// text first.
func addBetween(evs []WireEvent, infos []frameInfo, picked map[int]bool, text string) {
	var between []int
	for i := range infos {
		if !picked[i] || evs[i].Direction != Sent || !infos[i].request {
			continue
		}
		for k := i + 1; k < len(infos); k++ {
			if !picked[k] || evs[k].Conn != evs[i].Conn || !infos[k].answer || !slices.ContainsFunc(infos[k].ids, func(id string) bool { return slices.Contains(infos[i].ids, id) }) {
				continue
			}
			for m := i + 1; m < k; m++ {
				if !picked[m] && evs[m].Direction == Received && evs[m].Conn == evs[i].Conn && infos[m].content && strings.TrimSpace(evs[m].Raw) != "" {
					between = append(between, m)
				}
			}
			break
		}
	}
	room := evidenceEvents - len(picked)
	if room <= 0 || len(between) == 0 {
		return
	}
	want := words(text)
	score := func(i int) int {
		n := 0
		for w := range words(evs[i].Raw) {
			if want[w] {
				n++
			}
		}
		return n
	}
	slices.SortStableFunc(between, func(a, b int) int { return score(b) - score(a) })
	for _, i := range between[:min(room, len(between))] {
		picked[i] = true
	}
}

// jsonrpcVersion is left out of the words of a message: every one has it.
const jsonrpcVersion = `"jsonrpc":"2.0"`

// words are the letters-and-digits words of s, without the JSON-RPC
// version every message carries.
func words(s string) map[string]bool {
	out := map[string]bool{}
	s = strings.ReplaceAll(s, jsonrpcVersion, "")
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-')
	}) {
		out[strings.ToLower(w)] = true
	}
	return out
}

// addProvoker adds to picked, for each picked event the target sent with
// no picked event mcpcheck sent before it on its connection, the last
// event mcpcheck sent on that connection before it (on an HTTP stream,
// the request that opened it).
func addProvoker(evs []WireEvent, picked map[int]bool) {
	var recv []int
	for i := range picked {
		if evs[i].Direction == Received {
			recv = append(recv, i)
		}
	}
	for _, i := range recv {
		covered := false
		for k := range picked {
			covered = covered || k < i && evs[k].Direction == Sent && evs[k].Conn == evs[i].Conn
		}
		if covered {
			continue
		}
		best := -1
		for k := i - 1; k >= 0; k-- {
			if evs[k].Direction != Sent || evs[k].Conn != evs[i].Conn {
				continue
			}
			if streamOf(evs[i]) == "" || streamOf(evs[k]) == streamOf(evs[i]) {
				best = k
				break
			}
			if best < 0 {
				best = k
			}
		}
		if best >= 0 {
			picked[best] = true
		}
	}
}
