package fuzz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/schema"
)

// Requirement IDs the oracles cite (spec/catalog).
const (
	ReqStdoutOnlyMCP        = "transport-stdio.stdout.only-mcp-messages"
	ReqJSONRPC2             = "base.jsonrpc.messages-are-jsonrpc-2"
	ReqIDMatchesRequest     = "base.response.id-matches-request"
	ReqNotResultAndError    = "base.response.not-both-result-and-error"
	ReqServerNoRequests     = "transport-stdio.messages.server-no-requests"
	ReqHTTPNoServerRequests = "transport-http.sse.no-server-requests"
	ReqRetiredCodes         = "base.error-code.retired-codes-not-emitted"
	ReqErrorCodeInteger     = "base.response.error-code-integer"
	ReqIDStringOrInteger    = "base.request.id-string-or-integer"
	ReqErrorCodeAndMessage  = "base.response.error-has-code-and-message"
)

// Observation is one thing an oracle noticed about the target.
type Observation struct {
	// Kind is reports.FindingCrash, FindingHang or FindingViolation.
	Kind string `json:"kind"`
	// Check names the oracle check, stable across runs, such as
	// "stdout-not-json", "jsonrpc/result-and-error" or a schema location.
	Check string `json:"check"`
	// Requirement is the catalog ID the check enforces, when one applies.
	Requirement string `json:"requirement,omitempty"`
	// Level is the requirement's level (or MUST for schema conformance);
	// empty for crashes and hangs.
	Level catalog.Level `json:"level,omitempty"`
	// Message says what happened, for the report.
	Message string `json:"message"`

	// origin is the judge's input number of the request a response
	// observation is about (0: the current input).
	origin int
}

// Signature identifies the bug an observation stands for, for
// deduplication: the kind, the check and the requirement, never the values
// that vary between inputs (ids, offsets, numbers).
func (o Observation) Signature() string {
	h := sha256.Sum256([]byte(o.Kind + "\x00" + o.Check + "\x00" + o.Requirement))
	return hex.EncodeToString(h[:6])
}

// Fails reports whether the observation should fail a campaign: a crash, a
// hang, or a violation of a MUST or MUST NOT.
func (o Observation) Fails() bool {
	return o.Kind == reports.FindingCrash || o.Kind == reports.FindingHang || o.Level.Mandatory()
}

// judge follows one connection: what mcpcheck asked and what the target
// answered, and checks every frame the target writes.
type judge struct {
	v           spec.Version
	outstanding map[string]int    // request id (wire form) -> requests awaiting an answer
	methods     map[string]string // request id -> method
	rawIDs      map[string]bool   // id tokens of requests whose id MCP forbids
	responses   map[string]bool   // ids of responses mcpcheck sent
	seq         int               // number of the input being sent
	origins     map[string]int    // request id -> seq of the input that sent it
	http        bool              // the target is spoken to over HTTP
}

func newJudge(v spec.Version) *judge {
	return &judge{v: v, outstanding: map[string]int{}, methods: map[string]string{}, rawIDs: map[string]bool{}, responses: map[string]bool{}, origins: map[string]int{}}
}

// sent registers the requests in bytes mcpcheck wrote, so that answers can
// be matched. b may hold any number of lines, or broken ones.
func (j *judge) sent(b []byte) {
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		msgs := []jsonrpc.Message{jsonrpc.Decode(l)}
		if msgs[0].Has(jsonrpc.ReasonBatch) {
			msgs, _ = jsonrpc.DecodeBatch(l)
		}
		for _, m := range msgs {
			j.sentOne(m)
		}
	}
	j.sentStream(b)
}

// sentStream excuses answers to requests a lenient peer can find in b when
// it reads JSON values across line breaks (a pretty-printed or split
// message): reading them is not a violation, so neither is answering.
func (j *judge) sentStream(b []byte) {
	if bytes.Count(b, []byte{'\n'}) < 2 {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for i := 0; i < 1000; i++ {
		var v map[string]json.RawMessage
		if err := dec.Decode(&v); err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) || err == io.EOF {
				return
			}
			continue // a value that is not an object
		}
		if tok, ok := v["id"]; ok && v["method"] != nil {
			for _, k := range idForms(tok) {
				j.rawIDs[k] = true
			}
			var s string
			if json.Unmarshal(tok, &s) == nil {
				j.rawIDs[jsonrpc.StringID(s).String()] = true
			}
		}
	}
}

func (j *judge) sentOne(m jsonrpc.Message) {
	if m.Has(jsonrpc.ReasonTooDeep) {
		j.sentDeep(m.Raw)
		return
	}
	if m.Shape.IsResponse() {
		if !m.ID.IsZero() {
			j.responses[m.ID.String()] = true
		}
		return
	}
	if m.Shape != jsonrpc.KindRequest {
		// An object that is no valid message but has a readable id (a
		// request whose method was removed, say) may be refused with an
		// error carrying that id, as JSON-RPC does.
		if tok := topLevelMember(m.Raw, "id"); tok != nil {
			for _, k := range idForms(tok) {
				j.rawIDs[k] = true
			}
			var s string
			if json.Unmarshal(tok, &s) == nil {
				j.rawIDs[jsonrpc.StringID(s).String()] = true
			}
		}
		return
	}
	if !m.ID.IsZero() {
		j.register(m.ID.String(), m.Method)
		return
	}
	// An id MCP forbids (1.0, null, true...): a target may echo it; accept
	// answers that carry the same token or its integer value.
	var probe map[string]json.RawMessage
	if json.Unmarshal(m.Raw, &probe) == nil {
		if tok, ok := probe["id"]; ok {
			for _, k := range idForms(tok) {
				j.rawIDs[k] = true
			}
		}
	}
}

// echoesForbiddenID reports whether a response carries, as its id, the id
// token of a request mcpcheck sent with an id MCP forbids.
func (j *judge) echoesForbiddenID(raw []byte) bool {
	if len(j.rawIDs) == 0 {
		return false
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) != nil || probe["id"] == nil {
		return false
	}
	forms := idForms(probe["id"])
	return len(forms) > 0 && j.rawIDs[forms[0]]
}

// idForms returns the spellings of an id token a target might echo.
func idForms(tok []byte) []string {
	var c bytes.Buffer
	if json.Compact(&c, tok) != nil {
		return []string{string(tok)}
	}
	out := []string{c.String()}
	if f, ok := new(big.Float).SetString(c.String()); ok && f.IsInt() {
		i, _ := f.Int(nil)
		out = append(out, i.String())
	}
	return out
}

// frameResult is what judging one frame found.
type frameResult struct {
	obs      []Observation
	answered []string          // ids of requests this frame answered
	requests []jsonrpc.Message // requests the target sent (to be answered)
}

// received judges one frame the target wrote.
func (j *judge) received(f Frame) frameResult {
	var res frameResult
	if strings.Contains(f.Problem, "line limit") {
		return res // a cut line cannot be judged; the transcript keeps its start
	}
	data := f.Data
	if f.HTTPStatus >= 500 {
		res.obs = append(res.obs, Observation{Kind: reports.FindingViolation, Check: "http/status-" + itoa(f.HTTPStatus),
			Message: "the target answered with HTTP " + itoa(f.HTTPStatus) + " (a server error, not a refusal of bad input): " + quoteStart(data)})
	}
	if len(data) == 0 && f.HTTPStatus != 0 {
		return res // a status with an empty body
	}
	msg := jsonrpc.Decode(data)
	if msg.Has(jsonrpc.ReasonNotJSON) || msg.Has(jsonrpc.ReasonTooDeep) {
		switch {
		case f.HTTPStatus >= 400:
			// An HTTP error status may carry any body.
		case j.http:
			res.obs = append(res.obs, Observation{Kind: reports.FindingViolation, Check: "http-body-not-json", Requirement: ReqJSONRPC2, Level: catalog.Must,
				Message: "the target answered HTTP " + itoa(f.HTTPStatus) + " with a body that is not JSON: " + quoteStart(data)})
		default:
			res.obs = append(res.obs, Observation{Kind: reports.FindingViolation, Check: "stdout-not-json", Requirement: ReqStdoutOnlyMCP, Level: catalog.MustNot,
				Message: "the target wrote a line to stdout that is not JSON: " + quoteStart(data)})
		}
		return res
	}
	if msg.Has(jsonrpc.ReasonBatch) || msg.Has(jsonrpc.ReasonEmptyBatch) {
		if j.v != spec.V20250326 || msg.Has(jsonrpc.ReasonEmptyBatch) {
			res.obs = append(res.obs, Observation{Kind: reports.FindingViolation, Check: "jsonrpc/batch", Requirement: ReqJSONRPC2, Level: catalog.Must,
				Message: "the target wrote a JSON array (a batch), which protocol version " + string(j.v) + " does not allow: " + quoteStart(data)})
			return res
		}
		elems, _ := jsonrpc.DecodeBatch(data)
		for _, e := range elems {
			j.one(e, &res)
		}
		return res
	}
	j.one(msg, &res)
	return res
}

func (j *judge) one(msg jsonrpc.Message, res *frameResult) {
	method := ""
	origin := 0
	known := true // the response answers a request awaiting an answer
	if msg.Shape.IsResponse() && !msg.IDNull && !msg.IDAbsent && !msg.ID.IsZero() {
		k := msg.ID.String()
		if j.outstanding[k] > 0 {
			j.outstanding[k]--
			method = j.methods[k]
			origin = j.origins[k]
			res.answered = append(res.answered, k)
		} else {
			known = j.rawIDs[k]
		}
	}
	n := len(res.obs)
	defer func() {
		if origin != j.seq {
			for i := n; i < len(res.obs); i++ {
				res.obs[i].origin = origin
			}
		}
	}()
	if !msg.Valid() {
		if o, ok := j.invalid(msg); ok {
			res.obs = append(res.obs, o)
			return
		}
	}
	switch {
	case !known && j.responses[msg.ID.String()]:
		res.obs = append(res.obs, Observation{Kind: reports.FindingViolation, Check: "response-to-a-response", Requirement: ReqIDMatchesRequest, Level: catalog.Must,
			Message: "the target answered a response mcpcheck sent (id " + msg.ID.String() + ") as if it were a request; responses are never answered: " + quoteStart(msg.Raw)})
		return
	case !known:
		res.obs = append(res.obs, Observation{Kind: reports.FindingViolation, Check: "response-id-unknown", Requirement: ReqIDMatchesRequest, Level: catalog.Must,
			Message: "the target answered id " + msg.ID.String() + ", which matches no request awaiting an answer (never sent, or answered already): " + quoteStart(msg.Raw)})
		return
	case msg.Shape == jsonrpc.KindRequest:
		if j.v.Era() == spec.Stateless {
			req := ReqServerNoRequests
			if j.http {
				req = ReqHTTPNoServerRequests
			}
			res.obs = append(res.obs, Observation{Kind: reports.FindingViolation, Check: "server-sent-request", Requirement: req, Level: catalog.MustNot,
				Message: "in " + string(j.v) + " a stdio server sends no JSON-RPC requests, but the target sent " + msg.Method})
			return
		}
		res.requests = append(res.requests, msg)
	}
	if info, ok := schema.LookupMethod(j.v, method); !ok || info.Kind() != spec.RequestMethod || info.Carrier || !info.Direction.Allows(spec.ClientToServer) {
		method = ""
	}
	raw := msg.Raw
	if msg.Shape.IsResponse() && j.echoesForbiddenID(msg.Raw) {
		raw = withID(raw) // the request had that id first; the codec check excused it too
	}
	if msg.Shape == jsonrpc.KindErrorResponse && (msg.IDNull || msg.IDAbsent) {
		// JSON-RPC answers an unreadable request with a null (or, later, no)
		// id; the older MCP schemas require an id there. Judge the rest.
		raw = withID(raw)
	}
	for _, vi := range sortedViolations(schema.Validate(j.v, spec.ServerToClient, method, raw)) {
		if vi.Kind == schema.KindUnknownMethod && msg.Shape.IsResponse() {
			continue
		}
		res.obs = append(res.obs, schemaObservation(j.v, vi, msg))
		break // one per message: the rest are usually the same bug
	}
}

// invalid turns the first invalid problem of a message into an
// observation; ok is false when the problem is excused (an echoed forbidden
// id).
func (j *judge) invalid(msg jsonrpc.Message) (Observation, bool) {
	for _, p := range msg.Problems {
		if p.Severity() != jsonrpc.SeverityInvalid {
			continue
		}
		if strings.HasPrefix(string(p.Reason), "id-") && msg.Shape.IsResponse() && j.echoesForbiddenID(msg.Raw) {
			continue
		}
		o := Observation{Kind: reports.FindingViolation, Check: "jsonrpc/" + string(p.Reason), Requirement: ReqJSONRPC2, Level: catalog.Must,
			Message: "the target wrote an invalid JSON-RPC message (" + p.String() + "): " + quoteStart(msg.Raw)}
		switch p.Reason {
		case jsonrpc.ReasonResultAndError:
			if j.v.Compare(spec.V20250618) <= 0 {
				o.Requirement, o.Level = ReqNotResultAndError, catalog.MustNot
			}
		case jsonrpc.ReasonErrorCodeFloat, jsonrpc.ReasonErrorCodeNotNumber, jsonrpc.ReasonErrorCodeOutOfRange:
			o.Requirement = ReqErrorCodeInteger
		case jsonrpc.ReasonErrorCodeMissing, jsonrpc.ReasonErrorMessageMissing, jsonrpc.ReasonErrorMessageNotString:
			if j.v.Compare(spec.V20250326) >= 0 {
				o.Requirement = ReqErrorCodeAndMessage
			}
		case jsonrpc.ReasonIDNull, jsonrpc.ReasonIDFloat, jsonrpc.ReasonIDExponent, jsonrpc.ReasonIDBoolean, jsonrpc.ReasonIDObject, jsonrpc.ReasonIDArray:
			if !msg.Shape.IsResponse() {
				o.Requirement = ReqIDStringOrInteger
			}
		}
		return o, true
	}
	return Observation{}, false
}

var digits = regexp.MustCompile(`/[0-9]+`)

func schemaObservation(v spec.Version, vi schema.Violation, msg jsonrpc.Message) Observation {
	loc := vi.Schema
	if loc == "" {
		loc = string(vi.Kind) + ":" + digits.ReplaceAllString(vi.Pointer, "/*")
	}
	o := Observation{Kind: reports.FindingViolation, Check: "schema/" + loc, Level: catalog.Must,
		Message: "the target's " + msg.Shape.String() + " breaks the " + string(v) + " schema: " + vi.String()}
	switch {
	case strings.HasPrefix(vi.Pointer, "/error/code") && msg.Error != nil && (msg.Error.Code == jsonrpc.ResourceNotFound || msg.Error.Code == jsonrpc.URLElicitationRequired) && v.Era() == spec.Stateless:
		o.Requirement, o.Level = ReqRetiredCodes, catalog.MustNot
	case vi.Kind == schema.KindNotMessage || vi.Pointer == "/jsonrpc" || vi.Pointer == "/id":
		o.Requirement = ReqJSONRPC2
	}
	return o
}

func sortedViolations(vs []schema.Violation) []schema.Violation {
	sort.SliceStable(vs, func(a, b int) bool {
		if vs[a].Kind != vs[b].Kind {
			return vs[a].Kind < vs[b].Kind
		}
		return vs[a].Schema < vs[b].Schema
	})
	return vs
}

// quoteStart renders the start of some bytes for a message.
func quoteStart(b []byte) string {
	const max = 160
	if len(b) > max {
		return strings.TrimSpace(string(bytes.ToValidUTF8(b[:max], []byte("?")))) + "… (" + itoa(len(b)) + " bytes)"
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

// crashObservation describes a target that went away.
func crashObservation(exit *ExitStatus, stderr []byte) Observation {
	check := "crash/closed-output"
	msg := "the target closed its output"
	if exit != nil {
		msg = "the target " + exit.String()
		check = "crash/" + strings.ReplaceAll(exit.String(), " ", "-")
	}
	if p := panicLine(stderr); p != "" {
		check = "crash/" + p
		msg += "; stderr: " + p
	}
	return Observation{Kind: reports.FindingCrash, Check: check, Message: msg + " (process exit or connection reset after the input)"}
}

var panicRe = regexp.MustCompile(`(?m)^(panic: .*|fatal error: .*|Traceback .*|[A-Za-z]*Error: .*|thread '.*' panicked.*)$`)
var numbers = regexp.MustCompile(`0x[0-9a-fA-F]+|[0-9]+`)

// panicLine extracts the first panic-like line of stderr with numbers
// blanked, so that one bug gives one signature.
func panicLine(stderr []byte) string {
	m := panicRe.Find(stderr)
	if m == nil {
		return ""
	}
	s := numbers.ReplaceAllString(string(m), "N")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

func hangObservation(v spec.Version, waited string) Observation {
	return Observation{Kind: reports.FindingHang, Check: "hang/" + probeMethod(v),
		Message: "the target did not answer a valid " + probeMethod(v) + " sent after the input within " + waited}
}

// withID returns the message with its id set to 0, or raw unchanged when it
// does not decode as an object.
func withID(raw []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	m["id"] = json.RawMessage("0")
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

// sentDeep registers a request nested too deeply for the codec (a peer
// with a deeper parser may still answer it), reading only its top-level
// id and method.
func (j *judge) sentDeep(raw []byte) {
	idTok, method := topLevelMember(raw, "id"), topLevelMember(raw, "method")
	if idTok == nil || method == nil {
		return
	}
	var name string
	if json.Unmarshal(method, &name) != nil {
		return
	}
	var key string
	var s string
	if json.Unmarshal(idTok, &s) == nil {
		key = jsonrpc.StringID(s).String()
	} else if n, err := strconv.ParseInt(string(idTok), 10, 64); err == nil {
		key = jsonrpc.IntID(n).String()
	} else {
		for _, k := range idForms(idTok) {
			j.rawIDs[k] = true
		}
		return
	}
	j.register(key, name)
}

// register records a request awaiting its answer. When the id is already
// awaiting an answer to another method, an answer cannot be told apart, so
// results for that id are judged by the envelope only until none is
// outstanding.
func (j *judge) register(key, method string) {
	if j.outstanding[key] > 0 && j.methods[key] != method {
		method = ""
	}
	j.outstanding[key]++
	j.methods[key] = method
	j.origins[key] = j.seq
}

// topLevelMember returns the raw value of a scalar member of the top-level
// object in raw, scanning without recursion (so nesting depth does not
// matter), or nil when there is none.
func topLevelMember(raw []byte, name string) []byte {
	depth, inStr, esc := 0, false, false
	keyStart := -1
	var lastKey []byte
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if depth == 1 && keyStart >= 0 {
					lastKey = raw[keyStart : i+1]
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			keyStart = -1
			if depth == 1 {
				keyStart = i
			}
		case '{', '[':
			depth++
			lastKey = nil
		case '}', ']':
			depth--
			lastKey = nil
		case ':':
			if depth != 1 || lastKey == nil {
				continue
			}
			var k string
			if json.Unmarshal(lastKey, &k) != nil || k != name {
				lastKey = nil
				continue
			}
			j := i + 1
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
				j++
			}
			end := j
			if end < len(raw) && raw[end] == '"' {
				end++
				for end < len(raw) && raw[end] != '"' {
					if raw[end] == '\\' {
						end++
					}
					end++
				}
				end++
			} else {
				for end < len(raw) && raw[end] != ',' && raw[end] != '}' && raw[end] != ' ' {
					end++
				}
			}
			if end > len(raw) || end == j {
				return nil
			}
			return raw[j:end]
		case ',':
			lastKey = nil
		}
	}
	return nil
}
