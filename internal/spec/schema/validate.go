package schema

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// batchVersion is the only protocol version that allows JSON-RPC batches.
const batchVersion = spec.V20250326

// Validate checks one raw JSON-RPC message of protocol version v and returns
// every violation found (nil when the message is valid).
//
// from is the peer that sent the message (spec.ClientToServer for the
// client, spec.ServerToClient for the server); pass 0 to skip the direction
// checks. method matters only for responses: it is the method of the request
// being answered (empty skips the result check). For requests and
// notifications the message's own method is used.
//
// The message is classified as a request (method and id), a notification
// (method, no id), a success response (result) or an error response (error),
// then checked against the JSON-RPC envelope and the method's definition. A
// JSON array is a batch: allowed only in 2025-03-26, each element is
// validated on its own and pointers are prefixed with its index (method then
// applies to every response in the batch; pass "" when they answer
// different requests).
//
// Every violation is returned, each with the JSON pointer of the offending
// value, the schema location it breaks and a message. Bytes that are not
// JSON give one KindNotJSON violation; a version without an embedded schema
// gives one KindNoSchema violation. Validate never panics and is safe for
// concurrent use.
func Validate(v spec.Version, from spec.Direction, method string, raw []byte) []Violation {
	s, err := load(v)
	if err != nil {
		return []Violation{{Kind: KindNoSchema, Message: err.Error()}}
	}
	inst, err := decode(raw)
	if err != nil {
		return []Violation{{Kind: KindNotJSON, Message: fmt.Sprintf("the message is not valid JSON (%v); a JSON-RPC message must be one JSON object", err)}}
	}
	return dedupe(s.message(from, method, inst, ""))
}

// ValidateInstance is Validate for a message that is already decoded with
// jsonschema.UnmarshalJSON (numbers as json.Number).
func ValidateInstance(v spec.Version, from spec.Direction, method string, inst any) []Violation {
	s, err := load(v)
	if err != nil {
		return []Violation{{Kind: KindNoSchema, Message: err.Error()}}
	}
	return dedupe(s.message(from, method, inst, ""))
}

// ValidateDef checks raw against one named definition of v's schema, such as
// "Tool" or "CallToolResult", and returns every violation.
func ValidateDef(v spec.Version, def string, raw []byte) []Violation {
	inst, err := decode(raw)
	if err != nil {
		return []Violation{{Kind: KindNotJSON, Message: fmt.Sprintf("the value is not valid JSON (%v)", err)}}
	}
	return ValidateDefInstance(v, def, inst)
}

// ValidateDefInstance is ValidateDef for an already decoded value.
func ValidateDefInstance(v spec.Version, def string, inst any) []Violation {
	s, err := load(v)
	if err != nil {
		return []Violation{{Kind: KindNoSchema, Message: err.Error()}}
	}
	return dedupe(s.check(def, inst, ""))
}

func decode(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("empty input")
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// knownSender reports whether from names one peer; anything else (0, Both)
// skips the direction checks.
func knownSender(from spec.Direction) bool {
	return from == spec.ClientToServer || from == spec.ServerToClient
}

func senderName(d spec.Direction) string {
	if d == spec.ServerToClient {
		return "server"
	}
	return "client"
}

func (s *versionSchema) message(from spec.Direction, method string, inst any, prefix string) []Violation {
	switch m := inst.(type) {
	case []any:
		if prefix != "" {
			return []Violation{{Kind: KindBatch, Pointer: prefix, Message: "a batch may not contain another batch"}}
		}
		if s.version != batchVersion {
			return []Violation{{Kind: KindBatch, Message: fmt.Sprintf("the message is a JSON array (a batch), but protocol version %s has no batching; send one JSON object per message", s.version)}}
		}
		if len(m) == 0 {
			return []Violation{{Kind: KindBatch, Message: "the batch is empty; a batch must hold at least one message"}}
		}
		var out []Violation
		for i, e := range m {
			out = append(out, s.message(from, method, e, "/"+strconv.Itoa(i))...)
		}
		return out
	case map[string]any:
		return s.object(from, method, m, prefix)
	}
	return []Violation{{Kind: KindNotMessage, Pointer: prefix, Message: fmt.Sprintf("the message is a JSON %s; a JSON-RPC message is an object", jsonType(inst))}}
}

func (s *versionSchema) object(from spec.Direction, method string, m map[string]any, prefix string) []Violation {
	_, hasMethod := m["method"]
	_, hasID := m["id"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	switch {
	case hasMethod:
		return s.requestOrNotification(from, m, hasID, prefix)
	case hasResult && hasError:
		return []Violation{{Kind: KindNotMessage, Pointer: prefix, Message: "the response has both result and error; a response carries exactly one of them"}}
	case hasResult || hasError:
		return s.response(from, method, m, hasError, prefix)
	}
	return []Violation{{Kind: KindNotMessage, Pointer: prefix, Message: "the object has neither method (request or notification) nor result/error (response)"}}
}

func (s *versionSchema) requestOrNotification(from spec.Direction, m map[string]any, hasID bool, prefix string) []Violation {
	envelope := "JSONRPCNotification"
	if hasID {
		envelope = "JSONRPCRequest"
	}
	name, ok := m["method"].(string)
	if !ok {
		return s.check(envelope, m, prefix)
	}
	info, known := s.methods[name]
	if !known {
		out := []Violation{{Kind: KindUnknownMethod, Pointer: prefix + "/method", Message: fmt.Sprintf("method %q does not exist in protocol version %s", name, s.version)}}
		return append(out, s.check(envelope, m, prefix)...)
	}
	if info.Carrier {
		out := []Violation{{Kind: KindCarrier, Pointer: prefix + "/method", Message: fmt.Sprintf("in %s, %q is never sent as a JSON-RPC message; it travels only inside the inputRequests of an input_required result", s.version, name)}}
		return append(out, s.check(envelope, m, prefix)...)
	}
	var out []Violation
	if knownSender(from) && !info.Direction.Allows(from) {
		out = append(out, Violation{Kind: KindWrongDirection, Pointer: prefix + "/method", Message: fmt.Sprintf("the %s sent %q, which only the %s may send (%s)", senderName(from), name, senderName(from.Opposite()), info.Direction)})
	}
	switch {
	case info.Kind() == spec.NotificationMethod && hasID:
		out = append(out, Violation{Kind: KindWrongKind, Pointer: prefix + "/id", Message: fmt.Sprintf("%q is a notification but the message has an id, which makes it a request; drop the id", name)})
		return append(out, s.check(envelope, m, prefix)...)
	case info.Kind() == spec.RequestMethod && !hasID:
		out = append(out, Violation{Kind: KindWrongKind, Pointer: prefix, Message: fmt.Sprintf("%q is a request but the message has no id, which makes it a notification; add an id", name)})
		return append(out, s.check(envelope, m, prefix)...)
	case info.Kind() == spec.NotificationMethod:
		return append(out, s.check(info.Notification, m, prefix)...)
	}
	return append(out, s.check(info.Request, m, prefix)...)
}

func (s *versionSchema) response(from spec.Direction, method string, m map[string]any, isError bool, prefix string) []Violation {
	envelope := "JSONRPCResultResponse"
	if isError {
		envelope = "JSONRPCErrorResponse"
	}
	var out []Violation
	var info MethodInfo
	known := false
	if method != "" {
		info, known = s.methods[method]
		switch {
		case !known:
			out = append(out, Violation{Kind: KindUnknownMethod, Pointer: prefix, Message: fmt.Sprintf("this answers %q, a method that does not exist in protocol version %s", method, s.version)})
		case info.Kind() == spec.NotificationMethod:
			out = append(out, Violation{Kind: KindWrongKind, Pointer: prefix, Message: fmt.Sprintf("this is a response, but %q is a notification and is never answered", method)})
			known = false
		case info.Carrier:
			out = append(out, Violation{Kind: KindCarrier, Pointer: prefix, Message: fmt.Sprintf("in %s, answers to %q are never JSON-RPC responses; they travel inside the inputResponses of the retried request", s.version, method)})
			known = false
		case knownSender(from) && !info.Direction.Allows(from.Opposite()):
			out = append(out, Violation{Kind: KindWrongDirection, Pointer: prefix, Message: fmt.Sprintf("the %s answered %q, but only the %s receives that request (%s)", senderName(from), method, senderName(from), info.Direction)})
		}
	}
	env := s.check(envelope, m, prefix)
	out = append(out, env...)
	if isError || !known {
		return out
	}
	result, ok := m["result"].(map[string]any)
	if !ok {
		return out // the envelope check already said what is wrong with it
	}
	return append(out, s.check(info.Result, result, prefix+"/result")...)
}

// check validates inst against one definition; prefix is prepended to the
// pointers of the violations.
func (s *versionSchema) check(def string, inst any, prefix string) []Violation {
	sch, err := s.def(def)
	if err != nil {
		return []Violation{{Kind: KindNoSchema, Pointer: prefix, Message: err.Error()}}
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Kind: KindSchema, Pointer: prefix, Message: fmt.Sprintf("validation failed: %v", err)}}
	}
	// The validator walks object members in map order; sort so that the same
	// message always yields the same list (reports and goldens depend on it).
	vs := s.explain(ve, prefix)
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].Pointer != vs[j].Pointer {
			return vs[i].Pointer < vs[j].Pointer
		}
		return vs[i].Message < vs[j].Message
	})
	return vs
}

func dedupe(vs []Violation) []Violation {
	if len(vs) < 2 {
		return vs
	}
	seen := make(map[Violation]bool, len(vs))
	out := vs[:0]
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
