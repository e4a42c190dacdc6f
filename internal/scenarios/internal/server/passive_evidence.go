package server

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
)

// passiveEvidenceFrames bounds the frames a passive check's evidence adds
// to its transcript.
const passiveEvidenceFrames = 3

// passiveEvidence gives a broken passive check the evidence its verdict
// rests on: a passive check judges frames the target sent on other
// checks' connections, so its own transcript is empty, and its verdict
// names a connection ("connection 22") that appears nowhere else in the
// report. It adds to the check's transcript the frames the verdict quotes
// (the start of each, as wire.Excerpt quotes them), each on its own
// connection and at the time it arrived, with what mcpcheck sent that
// provoked it (the request that opened its HTTP stream, or the last
// thing sent on its connection), and for an answer a note naming the
// request it answers. Checks that are not passive, or not broken, are
// left alone.
func (t *T) passiveEvidence() {
	if !t.def.Passive {
		return
	}
	actuals := t.ViolationActuals()
	if len(actuals) == 0 {
		return
	}
	text := strings.Join(actuals, "\n")
	obs, _ := t.Observed()
	// The frames the verdict quotes; else those that carry a token it
	// names (a progress token, a request id string).
	quotes := func(o Observation) bool {
		cut := min(len(o.Raw), 48)
		for cut > 0 && cut < len(o.Raw) && !utf8.RuneStart(o.Raw[cut]) {
			cut--
		}
		prefix := string(o.Raw[:cut])
		quoted := strconv.Quote(prefix)
		return strings.Contains(text, quoted[1:len(quoted)-1]) || strings.Contains(text, prefix)
	}
	tokens := distinctiveTokens(text)
	names := func(o Observation) bool {
		for _, tok := range tokens {
			if strings.Contains(string(o.Raw), `"`+tok+`"`) {
				return true
			}
		}
		return false
	}
	// Else the frames whose id the verdict names together with their
	// method, or the method of the request they answer ("a result
	// response (id 4)" to completion/complete); else the requests and
	// notifications of a method it names ("sampling/createMessage: token
	// 1.5"), or the answers to it ("the server/discover result has ttlMs
	// -1").
	ids, methods := namedIDs(text), namedMethods(text)
	byID := func(o Observation) bool {
		if o.Kind != wire.KindMessage || o.Msg.ID.IsZero() {
			return false
		}
		id := o.Msg.ID.String()
		bare := strings.Trim(id, `"`)
		switch {
		case !ids[bare]:
			return false
		case len(methods) > 0:
			return methods[o.Msg.Method] || methods[o.Answers]
		}
		return id != bare // a string id is distinctive alone, a number is not
	}
	byMethod := func(o Observation) bool {
		return o.Kind == wire.KindMessage && (o.Msg.Method != "" && methods[o.Msg.Method] || o.Msg.Method == "" && methods[o.Answers])
	}
	// Or the HTTP stream it names on the connection it names ("the SSE
	// response of post-3 on connection 5").
	conns, streams := namedConns(text), passiveStreams.FindAllString(text, 20)
	byStream := func(o Observation) bool {
		return conns[o.Conn] && slices.Contains(streams, o.Stream)
	}
	for _, match := range []func(Observation) bool{quotes, byStream, names, byID, byMethod} {
		var picked []Observation
		for _, o := range obs {
			if len(picked) == passiveEvidenceFrames {
				break
			}
			if len(o.Raw) >= 16 && match(o) {
				picked = append(picked, o)
			}
		}
		if len(picked) == 0 {
			continue
		}
		// Each frame with what mcpcheck sent that provoked it (the
		// request that opened its stream, or the last thing sent on its
		// connection before it), in the order they crossed the wire.
		type item struct {
			at   time.Time
			add  func()
			sent bool
		}
		var items []item
		seen := map[*sentFrame]bool{}
		for _, o := range picked {
			if p := o.provoker; p != nil && !seen[p] {
				seen[p] = true
				items = append(items, item{at: p.out.Time, sent: true, add: func() { t.rec.SentOn(o.Conn, p.out) }})
			}
			items = append(items, item{at: o.Time, add: func() {
				t.rec.ReceivedOn(o.Conn, o.Frame)
				if o.Answers != "" {
					t.rec.NotedOn(o.Conn, fmt.Sprintf("the frame above answers a %s request mcpcheck sent on connection c%d", o.Answers, o.Conn), o.Time)
				}
			}})
		}
		sort.SliceStable(items, func(i, k int) bool {
			if items[i].at.Equal(items[k].at) {
				return items[i].sent && !items[k].sent
			}
			return items[i].at.Before(items[k].at)
		})
		for _, it := range items {
			it.add()
		}
		return
	}
}

// distinctiveTokens are the words of a verdict that name one thing (a
// progress token, a string id): at least 8 characters, with a digit and
// a hyphen or underscore ("mcpcheck-progress-14").
func distinctiveTokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		w = strings.Trim(w, ".")
		if len(w) >= 8 && strings.ContainsAny(w, "0123456789") && strings.ContainsAny(w, "-_") {
			out = append(out, w)
		}
	}
	return out
}

var (
	// passiveIDs matches the ids a verdict names: "id 4", "(id \"x\")".
	passiveIDs = regexp.MustCompile(`\bid (?:"([^"]{1,80})"|(-?[0-9]{1,20}))`)
	// passiveMethods matches the method names a verdict names.
	passiveMethods = regexp.MustCompile(`\b(?:notifications/)?[a-z]+/[a-zA-Z_]+(?:/[a-zA-Z_]+)?\b`)
)

var (
	passiveConns   = regexp.MustCompile(`\bconnection c?([0-9]{1,6})\b`)
	passiveStreams = regexp.MustCompile(`\b(?:post|get|delete)-[0-9]{1,6}\b`)
)

// namedConns are the connections a verdict names ("connection 22").
func namedConns(s string) map[int]bool {
	out := map[int]bool{}
	for _, m := range passiveConns.FindAllStringSubmatch(s, 20) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out[n] = true
		}
	}
	return out
}

// namedIDs are the JSON-RPC ids a verdict names, without quotes.
func namedIDs(s string) map[string]bool {
	out := map[string]bool{}
	for _, m := range passiveIDs.FindAllStringSubmatch(s, 20) {
		out[m[1]+m[2]] = true
	}
	return out
}

// namedMethods are the MCP methods a verdict names.
func namedMethods(s string) map[string]bool {
	out := map[string]bool{}
	for _, m := range passiveMethods.FindAllString(s, 20) {
		for _, known := range spec.Methods {
			if known.Name == m {
				out[m] = true
			}
		}
	}
	return out
}
