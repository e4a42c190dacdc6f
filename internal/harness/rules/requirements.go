package rules

// Requirement IDs of the catalog (spec/catalog) that the rules of this
// package enforce. TestRequirementsAreInTheCatalog keeps them in step with
// the catalog.
const (
	ReqJSONRPC2              = "base.jsonrpc.messages-are-jsonrpc-2"
	ReqUTF8                  = "base.messages.utf8"
	ReqIDMatchesRequest      = "base.response.id-matches-request"
	ReqErrorIDMatchesRequest = "base.response.error-id-matches-request"
	ReqNotResultAndError     = "base.response.not-both-result-and-error"
	ReqResultOrError         = "base.response.result-or-error"
	ReqResultMemberPresent   = "base.response.result-member-present"
	ReqErrorCodeInteger      = "base.response.error-code-integer"
	ReqErrorCodeAndMessage   = "base.response.error-has-code-and-message"
	ReqIDStringOrInteger     = "base.request.id-string-or-integer"
	ReqIDNotNull             = "base.request.id-not-null"
	ReqIDUniqueInSession     = "base.request.id-unique-in-session"
	ReqIDUniqueOutstanding   = "base.request.id-unique-among-outstanding"
	ReqNotificationNoID      = "base.notification.no-id"
	ReqNotificationNoReply   = "base.notification.no-response"
	ReqRetiredCodes          = "base.error-code.retired-codes-not-emitted"
	ReqStdoutOnlyMCP         = "transport-stdio.stdout.only-mcp-messages"
	ReqStdinOnlyMCP          = "transport-stdio.stdin.only-mcp-messages"
	ReqNoEmbeddedNewlines    = "transport-stdio.framing.no-embedded-newlines"
	ReqServerNoRequests      = "transport-stdio.messages.server-no-requests"
	ReqHTTPNoServerRequests  = "transport-http.sse.no-server-requests"
	ReqHTTPErrorBodyNoID     = "transport-http.errors.error-body-without-id"
)

// All lists every requirement ID above, for the catalog test.
var All = []string{
	ReqJSONRPC2, ReqUTF8, ReqIDMatchesRequest, ReqErrorIDMatchesRequest, ReqNotResultAndError,
	ReqResultOrError, ReqResultMemberPresent, ReqErrorCodeInteger, ReqErrorCodeAndMessage,
	ReqIDStringOrInteger, ReqIDNotNull, ReqIDUniqueInSession, ReqIDUniqueOutstanding,
	ReqNotificationNoID, ReqNotificationNoReply, ReqRetiredCodes, ReqStdoutOnlyMCP, ReqStdinOnlyMCP,
	ReqNoEmbeddedNewlines, ReqServerNoRequests, ReqHTTPNoServerRequests, ReqHTTPErrorBodyNoID,
}
