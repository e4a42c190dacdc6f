package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/big"
	"mime"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Observation is one thing an oracle noticed about the target.
type Observation struct {
	// Kind is reports.FindingCrash, FindingHang or FindingViolation.
	Kind string `json:"kind"`
	// Check names the oracle check, stable across runs, such as
	// "framing/stdout-not-json", "jsonrpc/result-and-error" or a schema location.
	Check string `json:"check"`
	// Requirement is the catalog ID the check enforces, when one applies.
	Requirement string `json:"requirement,omitempty"`
	// Level is the requirement's level (or MUST for schema conformance);
	// empty for crashes and hangs.
	Level catalog.Level `json:"level,omitempty"`
	// Message says what happened, for the report.
	Message string `json:"message"`

	// Origin is the judge's input number of the request a response
	// observation is about (0: the current input).
	Origin int
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

// Judge follows one connection: what mcpcheck asked and what the target
// answered, and checks every frame the target writes.
type Judge struct {
	v       spec.Version
	Pending rules.Pending[sentInfo] // requests awaiting an answer, by wire id
	RawIDs  map[string]bool         // id tokens of requests whose id MCP forbids
	// badTypeIDs holds the compact id tokens of requests whose id is of a
	// type JSON-RPC itself forbids (true, false, an object, an array): such
	// a message is no request object, and is refused or left unanswered,
	// never answered with a result (as base/invalid-ids judges it).
	badTypeIDs map[string]bool
	responses  map[string]bool // ids of responses mcpcheck sent
	Seq        int             // number of the input being sent
	HTTP       bool            // the target is spoken to over HTTP
	status     int             // HTTP status of the frame being judged
	// Client is set when the target is an MCP client (a client campaign):
	// its frames are judged as a client's (the client-to-server schema,
	// stdin framing), requests from it are its normal traffic, and "sent"
	// is what mcpcheck's stage wrote to it.
	Client bool

	// In the stateless era a dual-era server answers an initialize by
	// opening a legacy session on the same connection, and serves every
	// later message that declares no protocol version in its _meta by the
	// rules of the version initialize negotiated. legacy is that version
	// ("" until an initialize succeeded); sentInfo.undeclared marks the
	// requests mcpcheck sent without a _meta protocol version.
	Legacy spec.Version

	// lenient maps the wire id of a request whose id was not valid UTF-8,
	// with every U+FFFD removed, to its key: a peer decodes such bytes as
	// one U+FFFD per byte, one per broken sequence, or drops them, and
	// echoes the id it read.
	lenient map[string]string
	// Latin1 is set while sent registers a body whose Content-Type declared
	// a charset other than UTF-8: a target that honours the declaration
	// reads every byte of a non-ASCII string id as one Latin-1 character
	// and echoes the id it read, which lenient then maps back.
	Latin1 bool
	// latin1Alias maps the key of a request registered with a Latin-1
	// reading to that reading's lenient key, to forget it with the request.
	latin1Alias map[string]string

	// inBatch is set while the elements of a batch the target wrote are
	// judged (for the verdict cache: they are decoded as batch elements).
	inBatch bool

	// probeAnswer is the last answer to a liveness probe that was judged
	// clean, cut around its id token: a target answers every probe with
	// the same bytes but for the id, and such an answer is not decoded
	// and judged again (see ProbeAnswered).
	probeAnswer [2][]byte
}

// sentInfo is what the judge keeps of a request awaiting its answer.
type sentInfo struct {
	origin     int  // seq of the input that sent it
	undeclared bool // sent in a stateless campaign without a _meta protocol version
}

// NewJudge returns the judge of a session of version v.
func NewJudge(v spec.Version) *Judge {
	return &Judge{v: v, RawIDs: map[string]bool{}, badTypeIDs: map[string]bool{}, responses: map[string]bool{},
		lenient: map[string]string{}, latin1Alias: map[string]string{}}
}

// Sent registers the requests in bytes mcpcheck wrote, so that answers can
// be matched. b may hold any number of lines, or broken ones.
func (j *Judge) Sent(b []byte) {
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
func (j *Judge) sentStream(b []byte) {
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
				j.RawIDs[k] = true
			}
			var s string
			if json.Unmarshal(tok, &s) == nil {
				j.RawIDs[jsonrpc.StringID(s).String()] = true
			}
		}
	}
}

func (j *Judge) sentOne(m jsonrpc.Message) {
	if m.Has(jsonrpc.ReasonTooDeep) {
		j.sentDeep(m.Raw)
		return
	}
	if m.Shape.IsResponse() && m.Valid() {
		if !m.ID.IsZero() {
			j.responses[m.ID.String()] = true
		}
		return
	}
	if m.Shape != jsonrpc.KindRequest {
		// An object that is no valid message but has a readable id (a
		// request whose method was removed, or a broken response, say)
		// may be refused with an error carrying that id, as JSON-RPC
		// does for an invalid request.
		toks := [][]byte{topLevelMember(m.Raw, "id")}
		if toks[0] == nil {
			toks = foldedIDs(m.Raw)
		}
		for _, tok := range toks {
			for _, k := range idForms(tok) {
				j.RawIDs[k] = true
			}
			var s string
			if json.Unmarshal(tok, &s) == nil {
				j.RawIDs[jsonrpc.StringID(s).String()] = true
			}
		}
		return
	}
	if !m.ID.IsZero() {
		key := m.ID.String()
		j.register(key, m.Method, j.v.Era() == spec.Stateless && !declaresVersion(m.Params))
		if m.Has(jsonrpc.ReasonInvalidUTF8) && strings.ContainsRune(key, utf8.RuneError) {
			j.lenient[withoutFFFD(key)] = key
		}
		if j.Latin1 {
			if lk := latin1Key(topLevelMember(m.Raw, "id")); lk != "" {
				j.lenient[lk] = key
				j.latin1Alias[key] = lk
			}
		}
		if n, ok := m.ID.Int(); ok && (n > maxExactInt || n < -maxExactInt) {
			j.lenient[numKey(key)] = key
			for _, r := range int64Readings([]byte(key)) {
				j.lenient[numKey(r)] = key
			}
		}
		return
	}
	// An id MCP forbids (1.0, null, true...): a target may echo it; accept
	// answers that carry the same token or its integer value.
	var probe map[string]json.RawMessage
	if json.Unmarshal(m.Raw, &probe) == nil {
		if tok, ok := probe["id"]; ok {
			for _, k := range idForms(tok) {
				j.RawIDs[k] = true
			}
			for _, k := range int64Readings(tok) {
				j.RawIDs[k] = true
			}
			if c := badTypeID(tok); c != "" && !m.Has(jsonrpc.ReasonDuplicateMember) && foldedIDs(m.Raw) == nil {
				// One id member, read alike by every decoder: a target
				// cannot have taken another member for the id.
				j.badTypeIDs[c] = true
			}
		}
	}
}

// badTypeID is the compact text of an id token of a type JSON-RPC forbids
// for ids (a boolean, an object, an array), "" for any other token.
func badTypeID(tok []byte) string {
	t := bytes.TrimSpace(tok)
	if len(t) == 0 || !bytes.ContainsAny(t[:1], "tf{[") {
		return ""
	}
	var c bytes.Buffer
	if json.Compact(&c, t) != nil {
		return ""
	}
	return c.String()
}

// resultToBadTypeID reports whether raw, a result, carries an id of a type
// JSON-RPC forbids that a request mcpcheck sent carried: the target took a
// message that is no request object for a valid request.
func (j *Judge) resultToBadTypeID(raw []byte) (string, bool) {
	if len(j.badTypeIDs) == 0 {
		return "", false
	}
	c := badTypeID(topLevelMember(raw, "id"))
	return c, c != "" && j.badTypeIDs[c]
}

// foldedIDs returns the values of the top-level members of raw named "id"
// in another case ("ID", "iD"): a peer whose decoder matches member names
// without regard to case (Go's encoding/json does) reads one as the id,
// and may echo it. nil when there is none, or raw is no object.
func foldedIDs(raw []byte) [][]byte {
	if !bytes.Contains(bytes.ToLower(raw), []byte(`"id"`)) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out [][]byte
	for k, v := range m {
		if k != "id" && strings.EqualFold(k, "id") {
			out = append(out, v)
		}
	}
	return out
}

// echoesForbiddenID reports whether a response carries, as its id, the id
// token of a request mcpcheck sent with an id MCP forbids.
func (j *Judge) echoesForbiddenID(raw []byte) bool {
	if len(j.RawIDs) == 0 {
		return false
	}
	// A scalar id is cut out of the message without decoding it (this runs
	// on every response of a campaign); any other goes the long way.
	tok := topLevelMember(raw, "id")
	if tok == nil {
		var probe map[string]json.RawMessage
		if json.Unmarshal(raw, &probe) != nil || probe["id"] == nil {
			return false
		}
		tok = probe["id"]
	}
	forms := idForms(tok)
	if len(forms) == 0 {
		return false
	}
	if j.RawIDs[forms[0]] {
		return true
	}
	k := numKey(forms[0])
	return k != "" && j.RawIDs[k]
}

// idForms returns the spellings of an id token a target might echo: the
// token, its integer value, and for a number the double-precision value a
// target that reads JSON numbers as doubles holds (1e-400 becomes 0,
// 12345678901234567890 becomes 12345678901234567000), as numKey writes it.
func idForms(tok []byte) []string {
	var c bytes.Buffer
	if json.Compact(&c, tok) != nil {
		return []string{string(tok)}
	}
	out := []string{c.String()}
	// The integer form only for integers a peer could hold: a token like
	// 1e9544925 (a client campaign's hostile bytes may hold one) would
	// take seconds to spell out in digits.
	if f, ok := new(big.Float).SetString(c.String()); ok && f.IsInt() && f.MantExp(nil) <= maxIDExp {
		i, _ := f.Int(nil)
		out = append(out, i.String())
	}
	if k := numKey(c.String()); k != "" {
		out = append(out, k)
	}
	return out
}

// int64Readings returns the integers a peer's decoder makes of an integer
// id beyond 2^53 when it reads the id as a double and converts that to a
// 64-bit integer past the range, as go-sdk v1.8.0's jsonrpc2 does
// (int64(float64)): -2^63 on amd64, or 2^63-1 where the conversion
// saturates (arm64). Like the double it reads, that is JSON's own limit
// (base/id-beyond-2-53 makes such a change an interoperability warning,
// not a violation), so the echo is the peer's reading of mcpcheck's id.
// A number with a fraction part gives nil: JSON-RPC wants the same value
// back, and truncating it is a changed id (base/invalid-ids). nil too for
// a token that is no finite number or whose double is in the range.
func int64Readings(tok []byte) []string {
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(tok)), 64)
	if (err != nil && !errors.Is(err, strconv.ErrRange)) || math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return nil
	}
	if f >= math.MinInt64 && f < math.MaxInt64 {
		return nil
	}
	out := []string{strconv.FormatInt(math.MinInt64, 10)}
	if f > 0 {
		out = append(out, strconv.FormatInt(math.MaxInt64, 10))
	}
	return out
}

// maxIDExp bounds the binary exponent of a number id whose integer value
// idForms spells out (2^1100 is past every double).
const maxIDExp = 1100

// numKey is the double-precision value of a JSON number token, as a map
// key ("" when tok is no finite number).
func numKey(tok string) string {
	f, err := strconv.ParseFloat(tok, 64)
	if (err != nil && !errors.Is(err, strconv.ErrRange)) || math.IsInf(f, 0) || math.IsNaN(f) {
		return ""
	}
	return "num:" + strconv.FormatFloat(f, 'g', -1, 64)
}

// FrameResult is what judging one frame found.
type FrameResult struct {
	Obs      []Observation
	Answered []string          // ids of requests this frame answered
	Methods  []string          // the method of each answered request
	Requests []jsonrpc.Message // requests the target sent (to be answered)
}

// Received judges one frame the target wrote.
func (j *Judge) Received(f conn.Frame) FrameResult {
	var res FrameResult
	j.status = f.HTTPStatus
	if strings.Contains(f.Problem, "line limit") {
		return res // a cut line cannot be judged; the transcript keeps its start
	}
	data := f.Data
	if f.HTTPStatus >= 500 {
		res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "http/status-" + strconv.Itoa(f.HTTPStatus),
			Message: "the target answered with HTTP " + strconv.Itoa(f.HTTPStatus) + " (a server error, not a refusal of bad input): " + QuoteStart(data)})
	}
	if len(data) == 0 && f.HTTPStatus != 0 {
		return res // a status with an empty body
	}
	msg := jsonrpc.Decode(data)
	if f.HTTPStatus >= 400 && (msg.Has(jsonrpc.ReasonNotObject) || msg.Has(jsonrpc.ReasonTrailingData)) {
		// An HTTP error status may carry any body, such as the text of
		// an HTTP stack ("431 Request Header Fields Too Large"), which
		// can start like a JSON number; only a JSON object there is
		// judged as a JSON-RPC message.
		return res
	}
	if msg.Has(jsonrpc.ReasonNotJSON) || msg.Has(jsonrpc.ReasonTooDeep) {
		switch {
		case f.HTTPStatus >= 400:
			// An HTTP error status may carry any body.
		case j.Client && j.HTTP:
			res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "framing/http-post-not-json", Requirement: rules.ReqJSONRPC2, Level: catalog.Must,
				Message: "the client POSTed a body that is not JSON: " + QuoteStart(data)})
		case j.Client:
			res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "framing/stdin-not-json", Requirement: rules.ReqStdinOnlyMCP, Level: catalog.MustNot,
				Message: "the client wrote a line to the server's stdin that is not JSON: " + QuoteStart(data)})
		case j.HTTP:
			res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "framing/http-body-not-json", Requirement: rules.ReqJSONRPC2, Level: catalog.Must,
				Message: "the target answered HTTP " + strconv.Itoa(f.HTTPStatus) + " with a body that is not JSON: " + QuoteStart(data)})
		default:
			res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "framing/stdout-not-json", Requirement: rules.ReqStdoutOnlyMCP, Level: catalog.MustNot,
				Message: "the target wrote a line to stdout that is not JSON: " + QuoteStart(data)})
		}
		return res
	}
	if msg.Has(jsonrpc.ReasonBatch) || msg.Has(jsonrpc.ReasonEmptyBatch) {
		if (j.v != spec.V20250326 && j.Legacy != spec.V20250326) || msg.Has(jsonrpc.ReasonEmptyBatch) {
			// A batch is valid JSON-RPC 2.0, but no MCP message in these
			// versions: on stdio it breaks the rule that stdout carries
			// only MCP messages (as base/batch-rejected judges it).
			req := rules.ReqJSONRPC2
			if !j.HTTP && !j.Client {
				req = rules.ReqStdoutOnlyMCP
			}
			res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "jsonrpc/batch", Requirement: req, Level: catalog.Must,
				Message: "the target wrote a JSON array (a batch), which protocol version " + string(j.v) + " does not allow: " + QuoteStart(data)})
			return res
		}
		elems, _ := jsonrpc.DecodeBatch(data)
		j.inBatch = true
		for _, e := range elems {
			j.one(e, &res)
		}
		j.inBatch = false
		return res
	}
	j.one(msg, &res)
	return res
}

func (j *Judge) one(msg jsonrpc.Message, res *FrameResult) {
	method := ""
	origin := 0
	known := true              // the response answers a request awaiting an answer
	attributed := false        // the message answers a request mcpcheck sent
	undeclared := false        // ... and that request declared no _meta protocol version
	aliased := false           // the id is a request's id as the target read it (see lenient)
	var changedID *Observation // the warning for an id beyond 2^53 echoed changed
	if msg.Shape.IsResponse() && !msg.IDNull && !msg.IDAbsent && (!msg.ID.IsZero() || len(j.lenient) > 0) {
		k := ""
		if !msg.ID.IsZero() {
			k = msg.ID.String()
		}
		if j.Pending.Outstanding(k) == 0 && len(j.lenient) > 0 {
			if orig, changed := j.alias(k, msg.Raw); orig != "" {
				if changed {
					// An integer id beyond 2^53 echoed as the double the
					// target read it as: JSON promises exact integers only
					// up to 2^53, so the changed id is an interoperability
					// warning (as base/id-beyond-2-53 judges it), not a
					// violation, and the answer is this request's.
					got := k
					if got == "" {
						got = string(topLevelMember(msg.Raw, "id"))
					}
					changedID = &Observation{Kind: reports.FindingViolation, Check: "response/id-beyond-2-53-changed", Requirement: rules.ReqIDMatchesRequest,
						Message: "the target answered request id " + orig + " with id " + got + ": it reads an integer id beyond 2^53 as a double and cannot echo it exactly (an interoperability warning: JSON promises exact integers only up to 2^53)"}
				}
				k, aliased = orig, true
			}
		}
		if k == "" {
			// An id the codec cannot hold and no request's: judged below.
		} else if m, info, ok := j.Pending.Get(k); ok {
			method = m
			origin = info.origin
			undeclared = info.undeclared
			attributed = true
			j.answer(k)
			res.Answered = append(res.Answered, k)
			res.Methods = append(res.Methods, method)
			if changedID != nil {
				if origin != j.Seq {
					changedID.Origin = origin
				}
				res.Obs = append(res.Obs, *changedID)
			}
		} else {
			known = j.RawIDs[k]
			if nk := numKey(k); !known && nk != "" {
				known = j.RawIDs[nk] // a forbidden number id, echoed as the double it read
			}
		}
	}
	// The versions the message may be judged by: the campaign's, or in a
	// stateless campaign on a connection where initialize opened a legacy
	// session, the legacy one for answers to requests without a _meta
	// protocol version, and either for what cannot be attributed to one
	// request (an error with a null id, a notification, a request).
	if j.Client && j.Legacy == "" && msg.Shape == jsonrpc.KindRequest && msg.Method == spec.MethodInitialize && j.v.Era() == spec.Stateless {
		// A dual-era client falls back to initialize when server/discover
		// fails it: from then on it speaks the stateful version it asks
		// for, and its messages are judged by that version too.
		j.Legacy = requestedVersion(msg)
	}
	versions := []spec.Version{j.v}
	if v := declaredVersion(msg); j.Client && j.v.Era() == spec.Stateful && msg.Shape == jsonrpc.KindRequest && v != "" {
		// A dual-era client probes a server with a stateless request
		// (server/discover) before it falls back to initialize: such a
		// request is judged by the version it declares.
		versions = []spec.Version{v}
	}
	switch {
	case j.Legacy != "" && attributed && undeclared:
		versions = []spec.Version{j.Legacy}
	case j.Legacy != "" && !attributed:
		versions = []spec.Version{j.Legacy, j.v}
	case !j.Client && !j.HTTP && attributed && undeclared:
		// On stdio a dual-era server cannot tell a request without the
		// _meta protocol version from a legacy client's sent before
		// initialize, which it may serve under the legacy rules: its
		// answer may be of either era (as base/meta-required judges it;
		// over HTTP the headers tell the eras apart).
		versions = []spec.Version{j.v, LegacyVersion}
	}
	if method == spec.MethodInitialize && j.v.Era() == spec.Stateless && undeclared {
		if v := negotiatedVersion(msg); v != "" {
			// The answer to initialize is judged by the version it
			// negotiated, and from now on so is the legacy traffic.
			j.Legacy = v
			versions = []spec.Version{v}
		}
	}
	v := versions[0]
	n := len(res.Obs)
	defer func() {
		if origin != j.Seq {
			for i := n; i < len(res.Obs); i++ {
				res.Obs[i].Origin = origin
			}
		}
	}()
	if msg.Shape == jsonrpc.KindResponse && !attributed {
		if id, ok := j.resultToBadTypeID(msg.Raw); ok {
			res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "jsonrpc/result-to-a-bad-id", Requirement: rules.ReqJSONRPC2, Level: catalog.Must,
				Message: "the target answered a request whose id was " + id + " with a result; JSON-RPC ids are strings, numbers or null, so that message is no request object, and is refused with an error (-32600) or left unanswered, never served: " + QuoteStart(msg.Raw)})
			return
		}
	}
	if !msg.Valid() {
		if o, ok := j.invalid(v, msg, aliased); ok {
			res.Obs = append(res.Obs, o)
			return
		}
	}
	switch {
	case !known && j.responses[msg.ID.String()] && j.status >= 400:
		// The body of an HTTP refusal of a POSTed response: the spec
		// describes it as an error response without an id (a MAY), so
		// echoing the refused response's id is a deviation, not a
		// MUST-level violation.
		res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "http/error-body-echoes-response-id", Requirement: rules.ReqHTTPErrorBodyNoID,
			Message: "the target refused a JSON-RPC response mcpcheck POSTed (id " + msg.ID.String() + ") with HTTP " + strconv.Itoa(j.status) + " and an error body carrying that id; the spec describes that body as an error response without an id: " + QuoteStart(msg.Raw)})
		return
	case !known && j.responses[msg.ID.String()]:
		res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "response/to-a-response", Requirement: rules.ReqIDMatchesRequest, Level: catalog.Must,
			Message: "the target answered a response mcpcheck sent (id " + msg.ID.String() + ") as if it were a request; responses are never answered: " + QuoteStart(msg.Raw)})
		return
	case !known:
		res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "response/id-unknown", Requirement: rules.ReqIDMatchesRequest, Level: catalog.Must,
			Message: "the target answered id " + msg.ID.String() + ", which matches no request awaiting an answer (never sent, or answered already): " + QuoteStart(msg.Raw)})
		return
	case msg.Shape == jsonrpc.KindRequest && j.Client:
		// A client's own request: its ordinary traffic, which the stage's
		// engine answers; only its schema is judged below.
	case msg.Shape == jsonrpc.KindRequest:
		if j.Legacy != "" {
			// A request from the legacy session, which may send them.
			versions = []spec.Version{j.Legacy}
		} else if j.v.Era() == spec.Stateless {
			req := rules.ReqServerNoRequests
			if j.HTTP {
				req = rules.ReqHTTPNoServerRequests
			}
			res.Obs = append(res.Obs, Observation{Kind: reports.FindingViolation, Check: "request/server-sent-stateless", Requirement: req, Level: catalog.MustNot,
				Message: "in " + string(j.v) + " a stdio server sends no JSON-RPC requests, but the target sent " + msg.Method})
			return
		}
		res.Requests = append(res.Requests, msg)
	}
	// The message is judged with its id set to 0 when the request had
	// that id first (the codec check excused it too), and when it is an
	// error with a null (or, later, no) id: JSON-RPC answers an unreadable
	// request so, and the older MCP schemas require an id there.
	zeroID := msg.Shape == jsonrpc.KindErrorResponse && (msg.IDNull || msg.IDAbsent) ||
		msg.Shape.IsResponse() && j.echoesForbiddenID(msg.Raw)
	if msg.Shape == jsonrpc.KindNotification && len(j.RawIDs) > 0 {
		// A subscription's notifications carry the id of the
		// subscriptions/listen request as their subscriptionId: one the
		// target echoes from a request with an id MCP forbids is judged
		// as 0, as the echoed id of a response is.
		if raw, ok := j.withoutForbiddenSubscriptionID(msg.Raw); ok {
			msg = jsonrpc.Decode(raw)
		}
	}
	// The message is a violation when it breaks the schema of every
	// version it may be judged by; the first version's violation is
	// reported.
	var first *Observation
	for _, ver := range versions {
		o, bad := j.validate(ver, method, msg, zeroID)
		if !bad {
			return
		}
		if first == nil {
			first = &o
		}
	}
	res.Obs = append(res.Obs, *first)
}

// validate checks one message against the schema of version v (with its
// id set to 0 when zeroID is set), returning the first violation (one per
// message: the rest are usually the same bug). Verdicts are cached
// (validCache); a cached one is the one validating again would give.
func (j *Judge) validate(v spec.Version, method string, msg jsonrpc.Message, zeroID bool) (Observation, bool) {
	from := spec.ServerToClient
	if j.Client {
		from = spec.ClientToServer
	}
	method = rules.Answerable(v, from, method)
	keyMethod := method
	if j.Client {
		keyMethod = "\x00client\x00" + method // one cache, two directions
	}
	pre, post, form, cacheable := validEntryKey(msg, zeroID, j.inBatch)
	var key validKey
	if cacheable {
		key = verdicts.key(v, keyMethod, form, pre, post)
		if o, bad, ok := verdicts.get(key, pre, post); ok {
			return o, bad
		}
	}
	o, bad := validateFresh(v, from, method, msg, zeroID)
	if cacheable {
		verdicts.put(key, pre, post, o, bad)
	}
	return o, bad
}

// validateFresh is validate without the cache: msg (with its id set to 0
// when zeroID is set), sent by from, against version v's schema, as an
// answer to method when it is a response.
func validateFresh(v spec.Version, from spec.Direction, method string, msg jsonrpc.Message, zeroID bool) (Observation, bool) {
	m := msg
	if zeroID {
		m.Raw = withID(msg.Raw)
	}
	for _, vi := range rules.SortViolations(rules.Schema(v, from, method, m)) {
		return schemaObservation(v, vi, msg), true
	}
	return Observation{}, false
}

// answer settles one request awaiting an answer, forgetting it once no
// request with its id is left.
func (j *Judge) answer(k string) {
	if j.Pending.Settle(k) {
		if strings.ContainsRune(k, utf8.RuneError) {
			delete(j.lenient, withoutFFFD(k))
		}
		if nk := numKey(k); nk != "" {
			delete(j.lenient, nk)
		}
		if lk, ok := j.latin1Alias[k]; ok {
			delete(j.lenient, lk)
			delete(j.latin1Alias, k)
		}
	}
}

// latin1Key is the lenient key of a string id, given as its raw JSON token
// on the wire, as a target reads it when it takes the bytes for Latin-1:
// every byte outside ASCII becomes one character, escapes keep their
// meaning. "" for a non-string token or one that is all ASCII.
func latin1Key(tok []byte) string {
	if len(tok) < 2 || tok[0] != '"' {
		return ""
	}
	ascii := true
	for _, c := range tok {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return ""
	}
	var b strings.Builder
	for _, c := range tok {
		b.WriteRune(rune(c))
	}
	var s string
	if json.Unmarshal([]byte(b.String()), &s) != nil {
		return ""
	}
	return withoutFFFD(jsonrpc.StringID(s).String())
}

// DeclaresForeignCharset reports whether a request's headers give a
// Content-Type with a charset other than UTF-8.
func DeclaresForeignCharset(header [][2]string) bool {
	for _, kv := range header {
		if !strings.EqualFold(kv[0], "Content-Type") {
			continue
		}
		if _, params, err := mime.ParseMediaType(kv[1]); err == nil {
			if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "utf8" {
				return true
			}
		}
	}
	return false
}

// maxExactInt is the largest integer every JSON implementation holds
// exactly (RFC 8259 §6: 2^53-1); a target that reads numbers as doubles
// echoes larger ids rounded.
const maxExactInt = 1<<53 - 1

// alias returns the key of the request awaiting an answer whose id the
// response id (wire key k, or its raw token when the codec could not read
// it) is as a lenient target read it: without the bytes that were not
// valid UTF-8, or an integer beyond 2^53 rounded to a double. "" when
// there is none.
func (j *Judge) alias(k string, raw []byte) (orig string, changedNumber bool) {
	var cands []string
	if strings.ContainsRune(k, utf8.RuneError) || strings.HasPrefix(k, `"`) {
		cands = append(cands, withoutFFFD(k))
	}
	strs := len(cands)
	tok := k
	if tok == "" {
		tok = string(topLevelMember(raw, "id"))
	}
	if nk := numKey(tok); nk != "" {
		cands = append(cands, nk)
	}
	for i, c := range cands {
		if orig, ok := j.lenient[c]; ok && j.Pending.Outstanding(orig) > 0 {
			return orig, i >= strs
		}
	}
	return "", false
}

// withoutFFFD removes every U+FFFD.
func withoutFFFD(s string) string { return strings.ReplaceAll(s, "\uFFFD", "") }

// negotiatedVersion returns the stateful protocol version an initialize
// result names, or "" when msg is no such result.
func negotiatedVersion(msg jsonrpc.Message) spec.Version {
	if msg.Shape != jsonrpc.KindResponse || len(msg.Result) == 0 {
		return ""
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(msg.Result, &r) != nil {
		return ""
	}
	v := spec.Version(r.ProtocolVersion)
	if !v.Known() || v.Era() != spec.Stateful {
		return ""
	}
	return v
}

// declaredVersion is the known stateless version a request declares in
// its _meta, or "".
func declaredVersion(msg jsonrpc.Message) spec.Version {
	if !declaresVersion(msg.Params) {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(msg.Params, &p) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(p.Meta[mcp.MetaProtocolVersion], &s) != nil {
		return ""
	}
	if v := spec.Version(s); v.Known() && v.Era() == spec.Stateless {
		return v
	}
	return ""
}

// requestedVersion is the stateful protocol version an initialize request
// asks for, or the latest stateful version when it asks for none that is
// known.
func requestedVersion(msg jsonrpc.Message) spec.Version {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(msg.Params, &p)
	if v := spec.Version(p.ProtocolVersion); v.Known() && v.Era() == spec.Stateful {
		return v
	}
	var latest spec.Version
	for _, v := range spec.Versions {
		if v.Era() == spec.Stateful && (latest == "" || v > latest) {
			latest = v
		}
	}
	return latest
}

// declaresVersion reports whether request params carry the per-request
// protocol version in _meta (whatever its value): a dual-era server serves
// such a request statelessly.
func declaresVersion(params json.RawMessage) bool {
	if !bytes.Contains(params, []byte(`protocolVersion`)) {
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	// Only a version string declares one: a request whose protocol
	// version is null, a number or empty names none a server could
	// serve it by, and a dual-era stdio server may take it for a
	// legacy client's (see one).
	var v string
	return json.Unmarshal(p.Meta[mcp.MetaProtocolVersion], &v) == nil && v != ""
}

// invalid turns the first invalid problem of a message into an
// observation (rules.Invalid); ok is false when the problem is excused (an
// echoed forbidden id).
func (j *Judge) invalid(v spec.Version, msg jsonrpc.Message, aliased bool) (Observation, bool) {
	b, ok := rules.Invalid(v, msg, func(p jsonrpc.Problem) bool {
		return strings.HasPrefix(string(p.Reason), "id-") && msg.Shape.IsResponse() && (aliased || j.echoesForbiddenID(msg.Raw))
	})
	if !ok {
		return Observation{}, false
	}
	return Observation{Kind: reports.FindingViolation, Check: b.Rule, Requirement: b.Requirement, Level: rules.Level(b.Requirement),
		Message: "the target wrote an invalid JSON-RPC message (" + b.Actual + "): " + QuoteStart(msg.Raw)}, true
}

func schemaObservation(v spec.Version, vi schema.Violation, msg jsonrpc.Message) Observation {
	b := rules.SchemaBreach(v, vi, msg)
	level := catalog.Must // conformance to the schema
	if b.Requirement != "" {
		level = rules.Level(b.Requirement)
	}
	return Observation{Kind: reports.FindingViolation, Check: b.Rule, Requirement: b.Requirement, Level: level,
		Message: "the target's " + msg.Shape.String() + " breaks the " + string(v) + " schema: " + vi.String()}
}

// QuoteStart renders the start of some bytes for a message.
func QuoteStart(b []byte) string {
	const max = 160
	if len(b) > max {
		return strings.TrimSpace(string(bytes.ToValidUTF8(b[:max], []byte("?")))) + "… (" + strconv.Itoa(len(b)) + " bytes)"
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

// CrashObservation describes a target that went away.
func CrashObservation(exit *conn.ExitStatus, stderr []byte) Observation {
	check := "crash/closed-output"
	msg := "the target closed its output"
	if exit != nil {
		msg = "the target " + exit.String()
		check = "crash/" + strings.ReplaceAll(exit.String(), " ", "-")
	}
	if p := panicLine(stderr); p != "" {
		fn := CrashFunction(stderr, panicRe.Find(stderr))
		check = WithFunction("crash/"+p, fn)
		msg += "; stderr: " + p
		if fn != "" {
			msg += ", in " + fn
		}
	}
	return Observation{Kind: reports.FindingCrash, Check: check, Message: msg + " (process exit or connection reset after the input)"}
}

var panicRe = regexp.MustCompile(`(?m)^(panic: .*|fatal error: .*|Traceback .*|[A-Za-z]*Error: .*|thread '.*' panicked.*)$`)

// NumberRe matches the numbers (decimal or hex) a message is normalized
// without, so that signatures do not depend on addresses, ids or counts.
var NumberRe = regexp.MustCompile(`0x[0-9a-fA-F]+|[0-9]+`)

// panicLine extracts the first panic-like line of stderr with numbers
// blanked, so that one bug gives one signature.
func panicLine(stderr []byte) string {
	m := panicRe.Find(stderr)
	if m == nil {
		return ""
	}
	s := NumberRe.ReplaceAllString(string(m), "N")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// HangObservation is the hang of a target that did not answer the liveness
// probe of version v within waited.
func HangObservation(v spec.Version, waited string) Observation {
	return Observation{Kind: reports.FindingHang, Check: "hang/" + gen.ProbeMethod(v),
		Message: "the target did not answer a valid " + gen.ProbeMethod(v) + " sent after the input within " + waited}
}

// withoutForbiddenSubscriptionID returns a notification with the
// subscriptionId of its _meta set to 0 when that id is one mcpcheck sent
// as a request id MCP forbids (see echoesForbiddenID); ok is false
// otherwise.
func (j *Judge) withoutForbiddenSubscriptionID(raw []byte) ([]byte, bool) {
	if !bytes.Contains(raw, []byte(subscriptionIDKey)) {
		return nil, false
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil, false
	}
	params, _ := m["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	id, ok := meta[subscriptionIDKey]
	if !ok {
		return nil, false
	}
	tok, err := json.Marshal(id)
	if err != nil {
		return nil, false
	}
	forms := idForms(tok)
	if len(forms) == 0 {
		return nil, false
	}
	if k := numKey(forms[0]); !j.RawIDs[forms[0]] && (k == "" || !j.RawIDs[k]) {
		return nil, false
	}
	meta[subscriptionIDKey] = 0
	b, err := json.Marshal(m)
	return b, err == nil
}

// subscriptionIDKey is the _meta key of a subscription's notifications
// that carries the subscriptions/listen request's id.
const subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"

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
func (j *Judge) sentDeep(raw []byte) {
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
			j.RawIDs[k] = true
		}
		return
	}
	_, info, _ := j.Pending.Get(key)
	j.register(key, name, info.undeclared)
}

// ProbeAnswered reports whether f is the answer to the probe whose wire id
// is key, byte for byte the clean answer remembered (RememberProbe) but
// for the id; it then settles the probe. Otherwise the frame must be
// judged as usual.
func (j *Judge) ProbeAnswered(f conn.Frame, key string) bool {
	pre, post := j.probeAnswer[0], j.probeAnswer[1]
	d := f.Data
	if pre == nil || f.HTTPStatus != 0 || f.Problem != "" || len(d) != len(pre)+len(key)+len(post) || j.Pending.Outstanding(key) != 1 ||
		!bytes.HasPrefix(d, pre) || !bytes.HasSuffix(d, post) || string(d[len(pre):len(pre)+len(key)]) != key {
		return false
	}
	j.answer(key)
	return true
}

// SettleMisnumberedProbe settles the probe with wire id key when the
// target has written unknown responses under ids that match nothing
// (response/id-unknown, judged already) since the probe's input went out,
// and they are at least as many as the requests awaiting an answer, the
// probe among them: each response answers one request, so every one of
// them, the probe too, has had its answer, misnumbered, and none will
// come under key. It reports whether it did.
func (j *Judge) SettleMisnumberedProbe(key string, unknown int) bool {
	if j.Pending.Outstanding(key) != 1 || unknown < j.Pending.Len() {
		return false
	}
	j.answer(key)
	return true
}

// RememberProbe keeps the answer f to the probe with wire id key, which
// was judged clean, for ProbeAnswered.
func (j *Judge) RememberProbe(f conn.Frame, key string) {
	if f.HTTPStatus != 0 || f.Problem != "" {
		return
	}
	tok := topLevelMember(f.Data, "id")
	if string(tok) != key {
		return
	}
	at := cap(f.Data) - cap(tok)
	if at < 0 || at+len(tok) > len(f.Data) {
		return
	}
	j.probeAnswer = [2][]byte{bytes.Clone(f.Data[:at]), bytes.Clone(f.Data[at+len(tok):])}
}

// MaxJudgeIDs bounds the ids a judge remembers (requests awaiting an
// answer, forbidden ids, responses mcpcheck sent). Forgetting one could
// turn a late answer into a false finding, so a session whose judge
// reaches the bound is ended and a new one started (execOutcome.recycle):
// the fuzzer's memory stays flat however long a target lives and whatever
// it leaves unanswered.
const MaxJudgeIDs = 1 << 14

// Full reports whether the judge reached MaxJudgeIDs.
func (j *Judge) Full() bool {
	return j.Pending.Len()+len(j.RawIDs)+len(j.responses)+len(j.lenient)+len(j.latin1Alias) >= MaxJudgeIDs
}

// Expect registers a request mcpcheck wrote itself (the liveness probe),
// which declares the campaign's version, without decoding it.
func (j *Judge) Expect(key, method string) {
	j.register(key, method, false)
}

// register records a request awaiting its answer (rules.Pending: when the
// id is already awaiting an answer to another method, results for that id
// are judged by the envelope only until none is outstanding).
func (j *Judge) register(key, method string, undeclared bool) {
	j.Pending.Add(key, method, sentInfo{origin: j.Seq, undeclared: undeclared})
}

// topLevelMember returns the raw value of a member of the top-level object
// in raw, scanning without recursion (so nesting depth does not matter;
// an object or array value is read whole), or nil when there is none.
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
			if j < len(raw) && (raw[j] == '{' || raw[j] == '[') {
				// An object or array value (an id MCP forbids): read whole.
				var v json.RawMessage
				if json.NewDecoder(bytes.NewReader(raw[j:])).Decode(&v) != nil {
					return nil
				}
				return v
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

// LegacyVersion is the version a Config.NewestSpoken campaign falls back
// to when the target does not speak the stateless one: the newest
// initialize-based version.
const LegacyVersion = spec.V20251125
