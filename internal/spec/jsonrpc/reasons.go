package jsonrpc

// Severity says whether a problem makes a message invalid.
type Severity string

const (
	// SeverityInvalid problems make the message KindInvalid.
	SeverityInvalid Severity = "invalid"
	// SeverityNote problems are worth reporting but leave the Kind alone.
	SeverityNote Severity = "note"
)

// Reason is the machine-readable classification of a Problem. Its value is
// a stable, lower-case, hyphenated word suitable for reports and for
// matching in tests. Each reason has a fixed Severity.
type Reason string

// Document-level reasons.
const (
	// ReasonNotJSON: the input is not one JSON value (syntax error, or empty
	// input). The problem's Offset is where the error was detected. No other
	// problem is reported with it.
	ReasonNotJSON Reason = "not-json"
	// ReasonTooDeep: arrays and objects are nested deeper than MaxDepth. The
	// input may be valid JSON but is not decoded further, as encoding/json
	// would refuse it too. No other problem is reported with it.
	ReasonTooDeep Reason = "too-deep"
	// ReasonTrailingData: something other than whitespace follows the first
	// JSON value. The rest of the classification is of that first value.
	ReasonTrailingData Reason = "trailing-data"
	// ReasonInvalidUTF8: a string contains bytes that are not valid UTF-8.
	// The pointer names the top-level member containing the first such byte.
	ReasonInvalidUTF8 Reason = "invalid-utf8"
	// ReasonLoneSurrogate (note): a string contains a \u escape of a UTF-16
	// surrogate that is not part of a pair; decoders replace it with U+FFFD.
	ReasonLoneSurrogate Reason = "lone-surrogate"
	// ReasonNotObject: the value is a string, number, boolean or null (or an
	// array inside a batch) rather than an object.
	ReasonNotObject Reason = "not-object"
	// ReasonBatch: the value is a non-empty array, that is a JSON-RPC batch.
	// Decode does not look inside; use DecodeBatch.
	ReasonBatch Reason = "batch"
	// ReasonEmptyBatch: the value is an empty array, which JSON-RPC says is
	// an invalid request.
	ReasonEmptyBatch Reason = "empty-batch"
	// ReasonDuplicateMember: a member name appears more than once in the
	// message object or in its error object; the last occurrence is decoded.
	// At most MaxListed are listed per object, then one summary problem.
	ReasonDuplicateMember Reason = "duplicate-member"
	// ReasonUnknownMember (note): a member that JSON-RPC does not define, in
	// the message object or in its error object. At most MaxListed are
	// listed per object, then one summary problem.
	ReasonUnknownMember Reason = "unknown-member"
)

// Reasons about the jsonrpc member.
const (
	// ReasonJSONRPCMissing: there is no "jsonrpc" member.
	ReasonJSONRPCMissing Reason = "jsonrpc-missing"
	// ReasonJSONRPCNot20: "jsonrpc" is not the string "2.0"; the detail says
	// what it is.
	ReasonJSONRPCNot20 Reason = "jsonrpc-not-2.0"
)

// Reasons about the id member.
const (
	// ReasonIDNull: the id is null on a request or a success response.
	ReasonIDNull Reason = "id-null"
	// ReasonIDFloat: the id is a number with a fraction part, such as 1.0.
	ReasonIDFloat Reason = "id-float"
	// ReasonIDExponent: the id is a number with an exponent and no fraction
	// part, such as 1e3.
	ReasonIDExponent Reason = "id-exponent"
	// ReasonIDBoolean: the id is true or false.
	ReasonIDBoolean Reason = "id-boolean"
	// ReasonIDObject: the id is an object.
	ReasonIDObject Reason = "id-object"
	// ReasonIDArray: the id is an array.
	ReasonIDArray Reason = "id-array"
	// ReasonIDOutOfRange: the id is an integer that does not fit in int64.
	ReasonIDOutOfRange Reason = "id-out-of-range"
	// ReasonResponseWithoutID: a success response has no id member.
	ReasonResponseWithoutID Reason = "response-without-id"
)

// Reasons about method and params.
const (
	// ReasonMethodNotString: "method" is present but not a string.
	ReasonMethodNotString Reason = "method-not-string"
	// ReasonMethodEmpty: "method" is the empty string.
	ReasonMethodEmpty Reason = "method-empty"
	// ReasonParamsArray: "params" is an array. JSON-RPC allows positional
	// params but MCP requires an object.
	ReasonParamsArray Reason = "params-array"
	// ReasonParamsNotStructured: "params" is neither an object nor an array
	// (a string, number, boolean or null).
	ReasonParamsNotStructured Reason = "params-not-structured"
	// ReasonParamsWithoutMethod (note): "params" appears on a message that
	// has no method, where it means nothing.
	ReasonParamsWithoutMethod Reason = "params-without-method"
)

// Reasons about the response members.
const (
	// ReasonResultAndError: both "result" and "error" are present.
	ReasonResultAndError Reason = "result-and-error"
	// ReasonNoMethodResultOrError: none of "method", "result" and "error"
	// is present, so the object is no JSON-RPC message.
	ReasonNoMethodResultOrError Reason = "no-method-result-or-error"
	// ReasonMethodWithResponseMember: "method" is present together with
	// "result" or "error", so it is both a request and a response.
	ReasonMethodWithResponseMember Reason = "method-with-result-or-error"
	// ReasonResultNotObject: "result" is not an object, which MCP requires.
	ReasonResultNotObject Reason = "result-not-object"
	// ReasonErrorNotObject: "error" is not an object.
	ReasonErrorNotObject Reason = "error-not-object"
	// ReasonErrorCodeMissing: the error object has no "code".
	ReasonErrorCodeMissing Reason = "error-code-missing"
	// ReasonErrorCodeNotNumber: the error code is not a number (for example
	// a string).
	ReasonErrorCodeNotNumber Reason = "error-code-not-number"
	// ReasonErrorCodeFloat: the error code is a number with a fraction part
	// or an exponent, such as -32600.0 or -3.26e4.
	ReasonErrorCodeFloat Reason = "error-code-float"
	// ReasonErrorCodeOutOfRange: the error code is an integer that does not
	// fit in int64.
	ReasonErrorCodeOutOfRange Reason = "error-code-out-of-range"
	// ReasonErrorMessageMissing: the error object has no "message".
	ReasonErrorMessageMissing Reason = "error-message-missing"
	// ReasonErrorMessageNotString: the error message is not a string.
	ReasonErrorMessageNotString Reason = "error-message-not-string"
)

// Reasons lists every Reason, in the order they are declared.
func Reasons() []Reason {
	return append([]Reason(nil), reasonOrder...)
}

var reasonOrder = []Reason{
	ReasonNotJSON, ReasonTooDeep, ReasonTrailingData, ReasonInvalidUTF8,
	ReasonLoneSurrogate, ReasonNotObject, ReasonBatch, ReasonEmptyBatch,
	ReasonDuplicateMember, ReasonUnknownMember,
	ReasonJSONRPCMissing, ReasonJSONRPCNot20,
	ReasonIDNull, ReasonIDFloat, ReasonIDExponent, ReasonIDBoolean,
	ReasonIDObject, ReasonIDArray, ReasonIDOutOfRange, ReasonResponseWithoutID,
	ReasonMethodNotString, ReasonMethodEmpty, ReasonParamsArray,
	ReasonParamsNotStructured, ReasonParamsWithoutMethod,
	ReasonResultAndError, ReasonNoMethodResultOrError,
	ReasonMethodWithResponseMember, ReasonResultNotObject,
	ReasonErrorNotObject, ReasonErrorCodeMissing, ReasonErrorCodeNotNumber,
	ReasonErrorCodeFloat, ReasonErrorCodeOutOfRange,
	ReasonErrorMessageMissing, ReasonErrorMessageNotString,
}

var severities = func() map[Reason]Severity {
	m := make(map[Reason]Severity, len(reasonOrder))
	for _, r := range reasonOrder {
		m[r] = SeverityInvalid
	}
	m[ReasonLoneSurrogate] = SeverityNote
	m[ReasonUnknownMember] = SeverityNote
	m[ReasonParamsWithoutMethod] = SeverityNote
	return m
}()

// Severity returns the reason's severity. A Reason this package does not
// define is treated as SeverityInvalid.
func (r Reason) Severity() Severity {
	if s, ok := severities[r]; ok {
		return s
	}
	return SeverityInvalid
}
