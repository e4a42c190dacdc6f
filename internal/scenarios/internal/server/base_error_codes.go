package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Error codes and result types of 2026-07-28: the three codes of the
// reserved band mean exactly what they are defined to mean, and a result
// says how to read it only with a resultType the client can know.

// reservedCodeMeaning judges one error response carrying a code of the
// reserved band -32020..-32022; it returns what is wrong, or "".
func reservedCodeMeaning(f wire.Frame, code int64) string {
	var data map[string]json.RawMessage
	if f.Msg.Error != nil && len(f.Msg.Error.Data) > 0 {
		_ = json.Unmarshal(f.Msg.Error.Data, &data)
	}
	switch code {
	case jsonrpc.HeaderMismatch:
		if f.HTTP == nil {
			return "-32020 (header mismatch) on a transport without HTTP headers"
		}
	case jsonrpc.MissingRequiredClientCapability:
		var caps map[string]json.RawMessage
		if json.Unmarshal(data["requiredCapabilities"], &caps) != nil || caps == nil {
			return "-32021 (missing required client capability) without data.requiredCapabilities naming the capability"
		}
	case jsonrpc.UnsupportedProtocolVersion:
		var supported []string
		var requested string
		if json.Unmarshal(data["supported"], &supported) != nil || supported == nil || json.Unmarshal(data["requested"], &requested) != nil {
			return "-32022 (unsupported protocol version) without data.supported (the versions served) and data.requested"
		}
	}
	return ""
}

var _ = Register(
	Def{
		ID: "base/reserved-code-meanings", Area: "base", Passive: true, Eras: Stateless,
		Title:        "the codes -32020, -32021 and -32022 are used only for their defined meanings",
		Requirements: []string{"base.error-code.reserved-range-defined-meaning"},
		Proofs:       []Proof{{Fault: "reserved-code-misused", Version: spec.V20260728, Also: []string{"base/unknown-method"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "each of -32020, -32021 and -32022 carries its defined meaning (header mismatch over HTTP; requiredCapabilities; supported and requested versions)",
				Limit:    10,
				None:     "the server sent no error with a code of the reserved band in this run",
				Saw:      "%d errors with codes -32020..-32022, each with its defined meaning",
			}, func(o Observation) (bool, string) {
				code, ok := ErrorCodeOf(o.Frame)
				if o.Kind != wire.KindMessage || !ok || code > jsonrpc.HeaderMismatch || code < jsonrpc.UnsupportedProtocolVersion {
					return false, ""
				}
				if why := reservedCodeMeaning(o.Frame, code); why != "" {
					return true, why + ": " + wire.Excerpt(o.Raw, 240)
				}
				return true, ""
			})
		},
	},
	Def{
		ID: "base/result-type-known", Area: "base", Passive: true, Eras: Stateless,
		Title:        "a result's resultType is a core one or one of an extension the client declared",
		Requirements: []string{"base.result-type.supported-set"},
		Proofs:       []Proof{{Fault: "unknown-result-type", Version: spec.V20260728, Also: []string{"base/client-info-neutral"}, Want: reports.Fail}},
		Body: func(t *T) {
			// mcpcheck's client declares no extension, so only the core
			// values are known to it.
			t.JudgeObserved(PassiveRule{
				Expected: `resultType is "complete" or "input_required" (mcpcheck declared no extension that adds others)`,
				Limit:    10,
				None:     "no result with a resultType was received in this run",
				Saw:      "%d results, each with a core resultType",
			}, func(o Observation) (bool, string) {
				if !modernResult(o) {
					return false, ""
				}
				rt, ok := resultType(o.Msg.Result)
				if !ok {
					return false, "" // base/result-type judges a missing one
				}
				if rt != "complete" && rt != "input_required" {
					return true, fmt.Sprintf("resultType %q in the result of %s: %s", rt, NonEmpty(o.Answers, "a request"), wire.Excerpt(o.Raw, 200))
				}
				return true, ""
			})
		},
	},
)
