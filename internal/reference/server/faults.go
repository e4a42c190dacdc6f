package server

import (
	"fmt"
	"sort"
	"strings"
)

// Fault switches: deliberate defects, each breaking one requirement of the
// catalog, so that mcpcheck's own checks can be proven to fire. Every
// switch is off unless named in Options.Faults.
//
// faultTable below is the whole catalogue. A switch is of one of two
// kinds:
//
//   - Rewrite: the switch only changes what the server writes (a member of
//     a response or notification, a message dropped or added next to one).
//     Its whole effect is a function of the outgoing message, its version
//     and the request it relates to, kept in faultRewriters
//     (faults_rewrite.go) and applied at the one seam every message the
//     server core writes passes (seam.go, before Options.Rewrite). The
//     serving code knows nothing of it.
//   - Hook: the switch changes what the server does (session and task
//     state, negotiation, which answer a handler gives, HTTP status codes
//     and framing, timing). The serving code tests it by name with
//     faults.on at the place it applies; faults_hooks_test.go checks that
//     only hook switches are tested so, and that every switch is used.

// Fault is one fault switch.
type Fault struct {
	// Name is the switch's flag value, such as "ping-nonempty-result".
	Name string
	// Requirement is the catalog ID of the requirement it breaks.
	Requirement string
	// Description says in one line what the server does wrong.
	Description string
	// Kind says how the switch takes effect: Rewrite or Hook.
	Kind FaultKind
}

// FaultKind is how a fault switch takes effect.
type FaultKind string

const (
	// Rewrite switches change only the messages the server writes; they
	// are applied at the outgoing seam.
	Rewrite FaultKind = "rewrite"
	// Hook switches change what the server does; the serving code tests
	// them by name.
	Hook FaultKind = "hook"
)

// The fault switch names, in the order of faultTable.
const (
	// One switch per area, the first ones.
	FaultInitWrongVersion        = "init-wrong-version"
	FaultSpeakBeforeInitialize   = "speak-before-initialize"
	FaultPingNonEmpty            = "ping-nonempty-result"
	FaultErrorIDMismatch         = "error-id-mismatch"
	FaultReplyToNotification     = "reply-to-notification"
	FaultOutputSchemaMismatch    = "output-schema-mismatch"
	FaultNoToolsListChanged      = "no-tools-list-changed"
	FaultEmptyContentsForMissing = "empty-contents-for-missing"
	FaultBlobNotBase64           = "blob-not-base64"
	FaultInvalidCursorAccepted   = "invalid-cursor-accepted"
	FaultBadLogLevelAccepted     = "bad-log-level-accepted"
	FaultLogWithoutLevel         = "log-without-level"
	FaultProgressDecreasing      = "progress-decreasing"
	FaultProgressAfterCompletion = "progress-after-completion"
	FaultRespondAfterCancel      = "respond-after-cancel"
	FaultSessionIDNotASCII       = "session-id-not-ascii"
	FaultTerminatedSessionServed = "terminated-session-served"
	FaultProtocolHeaderIgnored   = "protocol-version-header-ignored"
	FaultOriginNotValidated      = "origin-not-validated"
	FaultStdoutBanner            = "stdout-banner"
	FaultNoResultType            = "no-result-type"
	FaultAcceptTamperedState     = "accept-tampered-state"
	FaultRetiredNotFoundCode     = "retired-not-found-code"
	FaultReplayAllStreams        = "replay-all-streams"
	FaultTasksGetSSE             = "tasks-get-sse"

	// Base protocol, lifecycle and server features.
	FaultBatchRefused              = "batch-refused"
	FaultBatchAnswered             = "batch-answered"
	FaultErrorWithoutMessage       = "error-without-message"
	FaultErrorWithResult           = "error-with-result"
	FaultInvalidRequestResult      = "invalid-request-result"
	FaultParseErrorWrongCode       = "parse-error-wrong-code"
	FaultMetaVersionAssumed        = "meta-version-assumed"
	FaultStatelessServerRequest    = "stateless-server-request"
	FaultNotificationWithID        = "notification-with-id"
	FaultServerRequestIDReused     = "server-request-id-reused"
	FaultRequestProgressTokenFloat = "request-progress-token-float"
	FaultResultIDTruncated         = "result-id-truncated"
	FaultResponseIDsWrong          = "response-ids-wrong"
	FaultIDsThroughFloat           = "ids-through-float64"
	FaultFractionIDsTruncated      = "fraction-ids-truncated"
	FaultNoServerInfoMeta          = "no-server-info-meta"
	FaultUnknownMethodWrongCode    = "unknown-method-wrong-code"
	FaultLatin1Ping                = "latin1-ping"
	FaultPingMetaNotObject         = "ping-meta-not-object"
	FaultStaleCancelAnswered       = "stale-cancel-answered"
	FaultCancelClientRequest       = "cancel-client-request"
	FaultClientCapsAssumed         = "client-caps-assumed"
	FaultInitNoServerInfo          = "init-no-server-info"
	FaultRequestBeforeInitialized  = "request-before-initialized"
	FaultSecondInitUnanswered      = "second-initialize-unanswered"
	FaultUnknownVersionOldest      = "unknown-version-oldest"
	FaultPromptsUndeclared         = "prompts-undeclared"
	FaultPromptNotesUndeclared     = "prompt-notifications-undeclared"
	FaultToolNotesUndeclared       = "tools-list-changed-undeclared"
	FaultLoggingUndeclared         = "logging-undeclared"
	FaultUndeclaredInputKinds      = "undeclared-input-kinds"
	FaultCompletionBogusRefServed  = "completion-bogus-ref-served"
	FaultCompletionUndeclaredCode  = "completions-undeclared-wrong-code"
	FaultCompletionUnknownCode     = "completion-unknown-prompt-code"
	FaultCompletionUnbounded       = "completion-values-unbounded"
	FaultInvalidLogLevelIgnored    = "invalid-log-level-ignored"
	FaultUnsupportedNoList         = "unsupported-version-no-list"
	FaultCursorLoops               = "cursor-loops"
	FaultProgressWithoutToken      = "progress-without-token"
	FaultPromptImageNotBase64      = "prompt-image-not-base64"
	FaultPromptArgsUnchecked       = "prompt-arguments-unchecked"
	FaultUnknownPromptWrongCode    = "unknown-prompt-wrong-code"
	FaultNoPromptsListChanged      = "no-prompts-list-changed"
	FaultNoResourcesListChanged    = "no-resources-list-changed"
	FaultPromptsListRefused        = "prompts-list-refused-stateless"
	FaultResourcesListRefused      = "resources-list-refused-stateless"
	FaultToolsListRefused          = "tools-list-refused-stateless"
	FaultMalformedURIServed        = "malformed-uri-served"
	FaultNotFoundInvalidParams     = "not-found-invalid-params-legacy"
	FaultResourceURINoScheme       = "resource-uri-no-scheme"
	FaultToolNamesCaseInsensitive  = "tool-names-case-insensitive"
	FaultUnknownToolServed         = "unknown-tool-served"
	FaultToolArgsUnchecked         = "tool-arguments-unchecked"
	FaultInputSchemaNull           = "input-schema-null"
	FaultToolNameWithSpace         = "tool-name-with-space"
	FaultOutputSchemaInvalid       = "output-schema-invalid"
	FaultDuplicateXMCPHeader       = "duplicate-x-mcp-header"

	// 2026-07-28 base rules, logging security and implementation-info neutrality.
	FaultReservedCodeMisused = "reserved-code-misused"
	FaultUnknownResultType   = "unknown-result-type"
	FaultBadExtensionName    = "bad-extension-name"
	FaultClientInfoDependent = "client-info-dependent"
	FaultLogSecrets          = "log-secrets"
	FaultLogOnListenStream   = "log-on-listen-stream"

	// Transports, the 2026-07-28 protocol, elicitation, sampling and tasks.
	FaultResponseOnGetStream        = "response-on-get-stream"
	FaultStatelessStreamRequest     = "stateless-stream-request"
	FaultStateBoundToConnection     = "state-bound-to-connection"
	FaultEndpointNotFirst           = "endpoint-not-first"
	FaultLegacyResponseInPost       = "legacy-response-in-post"
	FaultStdioServerRequest         = "stdio-server-request"
	FaultStdinEOFIgnored            = "stdin-eof-ignored"
	FaultNoServerDiscover           = "no-server-discover"
	FaultInputViaRequest            = "input-via-request"
	FaultInputRequiredOnComplete    = "input-required-on-complete"
	FaultSamplingInputBadRole       = "sampling-input-bad-role"
	FaultOneConversation            = "one-conversation-at-a-time"
	FaultMissingCapabilityCode      = "missing-capability-wrong-code"
	FaultCapsFromConnection         = "caps-from-connection"
	FaultListenNoSubscriptionID     = "listen-no-subscription-id"
	FaultSamplingToolsUndeclared    = "sampling-tools-undeclared"
	FaultSamplingToolResultsMixed   = "sampling-tool-results-mixed"
	FaultElicitURLUndeclared        = "elicit-url-undeclared"
	FaultElicitURLInvalid           = "elicit-url-invalid"
	FaultElicitCompleteWrongID      = "elicit-complete-wrong-id"
	FaultTaskCancelTerminalAccepted = "task-cancel-terminal-accepted"
	FaultTaskCancelAnswersWorking   = "task-cancel-answers-working"
	FaultTaskCreatedAtNotRFC3339    = "task-created-at-not-rfc3339"
	FaultTaskIDFromRequestor        = "task-id-from-requestor"
	FaultTaskIDCounter              = "task-ids-counter"
	FaultTaskResultNoRelatedMeta    = "task-result-no-related-meta"
	FaultTaskResultDiffers          = "task-result-differs"
	FaultTaskStatusRelatedMeta      = "task-status-related-meta"
	FaultTasksUndeclaredHonoured    = "tasks-undeclared-honoured"
	FaultUnknownTaskInternalError   = "unknown-task-internal-error"

	// Unprompted traffic after notifications/initialized (faults_unprompted.go).
	FaultUnpromptedClientRequest     = "unprompted-client-request"
	FaultUnsubscribedResourceUpdated = "unsubscribed-resource-updated"
	FaultUnpromptedProgress          = "unprompted-progress"
)

// faultTable is every fault switch: name, the requirement it breaks, what
// the server then does wrong, and its kind.
var faultTable = []Fault{
	// Authorization (HTTPOptions.Auth, auth.go): the resource server's token checks.
	{FaultAuthAcceptsExpired, "authorization.token-validation.invalid-401", "an expired access token is accepted", Hook},
	{FaultAuthIgnoresNotBefore, "authorization.token-validation.oauth21-section52", "an access token whose nbf is in the future is accepted", Hook},
	{FaultAuthAcceptsAnyIssuer, "authorization.token-validation.oauth21-section52", "an access token whose iss is not the trusted issuer is accepted (its signature still verifies)", Hook},
	{FaultAuthSkipsSignature, "authorization.token-validation.oauth21-section52", "the signature of an access token is not verified (a token signed with another key, or alg none, is accepted)", Hook},
	{FaultAuthAcceptsAnyAudience, "authorization.token-validation.audience", "the aud of an access token is not checked: a token for any audience, or none, is accepted", Hook},
	{FaultAuthAudiencePrefix, "authorization.token-validation.no-foreign-tokens", "an aud is accepted when it starts with the server's URI, so a token for another server at a longer path is accepted", Hook},
	{FaultAuthAudienceCaseSensitive, "authorization.canonical-uri.accept-uppercase", "the aud of an access token is compared with the server's URI byte for byte, so a token naming it with an upper-case scheme or host is refused", Hook},
	{FaultAuthInsufficientScope401, "authorization.insufficient-scope.response-403", "a valid token without the needed scope gets 401 invalid_token instead of 403 insufficient_scope", Hook},
	{FaultAuthInsufficientNoScope, "authorization.insufficient-scope.scope-needed", "the 403 insufficient_scope challenge names no scope", Hook},
	{FaultAuthAcceptsQueryToken, "authorization.token-validation.oauth21-section52", "an access token in the access_token query parameter is accepted when there is no Authorization header", Hook},
	{FaultAuthNoChallenge, "authorization.prm.www-authenticate-on-401", "401 answers carry no WWW-Authenticate header", Hook},
	{FaultAuthPRMNoServers, "authorization.prm.authorization-servers-field", "the protected resource metadata lists no authorization server", Hook},
	{FaultAuthPRMWrongResource, "authorization.prm.server-implements", "the protected resource metadata's resource names another URL than the MCP endpoint", Hook},
	{FaultAuthAcceptsOpaqueToken, "authorization.token-validation.invalid-401", "a bearer token that is no JWT is accepted without validation, as if any token present were good", Hook},
	{FaultAuthNoASMetadata, "authorization.default-endpoints.server-without-metadata", "the server's base URL has no RFC 8414 metadata (2025-03-26 discovery) and no default /authorize, /token, /register endpoints", Hook},
	{FaultAuthTokenPassthrough, "authorization.token-passthrough.forbidden", "with an upstream API (--auth-upstream), the client's access token is passed to it instead of the server's own credential", Hook},
	{FaultAuthTrustsTokenIssuer, "authorization.token-validation.no-foreign-tokens", "a token naming another issuer is verified with the keys that issuer publishes (the token says whom to trust), so any issuer's token is accepted", Hook},
	{FaultAuthTokenPassthroughTools, "authorization.token-passthrough.forbidden", "with an upstream API (--auth-upstream), the client's access token is passed to it while serving a tools/call (the server's own credential otherwise)", Hook},
	// One switch per area, the first ones.
	{FaultInitWrongVersion, "versioning.initialize.server-echoes-supported-version", "initialize answers the oldest supported version even when the requested one is supported", Hook},
	{FaultSpeakBeforeInitialize, "lifecycle.initialize.first-interaction", "a log notification is sent as soon as the connection opens, before the client's initialize", Hook},
	{FaultPingNonEmpty, "ping.response.prompt-empty-result", "ping answers with a non-empty result object", Rewrite},
	{FaultErrorIDMismatch, "base.response.error-id-matches-request", "error responses to requests carry a different id than the request", Rewrite},
	{FaultReplyToNotification, "base.notification.no-response", "every notification from the client is answered with an error response", Hook},
	{FaultOutputSchemaMismatch, "tools.output-schema.server-conforms", "tools with an outputSchema return structuredContent that does not conform to it", Rewrite},
	{FaultNoToolsListChanged, "tools.list-changed.server-notifies", "the tool list changes without notifications/tools/list_changed although listChanged is declared", Rewrite},
	{FaultEmptyContentsForMissing, "resources.errors.no-empty-contents-for-missing", "resources/read of an unknown URI succeeds with empty contents", Hook},
	{FaultBlobNotBase64, "resources.contents.binary-encoded", "blob resource contents are sent as raw text instead of base64", Rewrite},
	{FaultInvalidCursorAccepted, "pagination.errors.invalid-cursor", "an invalid pagination cursor is treated as the first page instead of -32602", Hook},
	{FaultBadLogLevelAccepted, "logging.errors.standard-codes-legacy", "logging/setLevel accepts an unknown level instead of answering -32602", Hook},
	{FaultLogWithoutLevel, "logging.per-request.silent-without-level", "stateless requests without a logLevel in _meta still get log notifications", Hook},
	{FaultProgressDecreasing, "progress.notify.value-increases", "progress notifications go backwards", Hook},
	{FaultProgressAfterCompletion, "progress.notify.stop-after-completion", "a progress notification is sent after the request's response", Hook},
	{FaultRespondAfterCancel, "cancellation.receiver.stop-and-stay-silent", "a cancelled request still gets a response", Hook},
	{FaultSessionIDNotASCII, "transport-http.session.id-visible-ascii", "Mcp-Session-Id contains a space, which is not visible ASCII", Hook},
	{FaultTerminatedSessionServed, "transport-http.session.terminated-404", "requests on a deleted session are served instead of answered 404", Hook},
	{FaultProtocolHeaderIgnored, "transport-http.protocol-version-header.invalid-400", "an invalid MCP-Protocol-Version header is ignored instead of answered 400", Hook},
	{FaultOriginNotValidated, "transport-http.security.invalid-origin-403", "requests with a foreign Origin are served instead of answered 403", Hook},
	{FaultStdoutBanner, "transport-stdio.stdout.only-mcp-messages", "a banner line that is not an MCP message is written to stdout at start", Hook},
	{FaultNoResultType, "base.result-type.present", "2026-07-28 results are sent without resultType", Rewrite},
	{FaultAcceptTamperedState, "mrtr.server.request-state-reject-tampered", "a requestState whose integrity check fails is accepted", Hook},
	{FaultRetiredNotFoundCode, "base.error-code.retired-codes-not-emitted", "2026-07-28 resource-not-found is answered with the retired code -32002", Rewrite},
	{FaultReplayAllStreams, "transport-http.resume.no-cross-stream-replay", "a resumed stream replays events of every stream of the session, not just its own", Hook},
	{FaultTasksGetSSE, "tasks.http.no-sse-for-tasks-get", "on streamable HTTP tasks/get is answered on an SSE stream instead of with plain JSON", Hook},

	// Base protocol, lifecycle and server features.
	{FaultBatchRefused, "base.batch.receiving-required", "in 2025-03-26 a JSON-RPC batch is refused with -32600 instead of answered with a batch response", Hook},
	{FaultBatchAnswered, "base.jsonrpc.messages-are-jsonrpc-2", "from 2025-06-18 a JSON-RPC batch is still served and answered with a batch (array) response", Hook},
	{FaultErrorWithoutMessage, "base.response.error-has-code-and-message", "error responses to requests carry no message member", Rewrite},
	{FaultErrorWithResult, "base.response.not-both-result-and-error", "error responses to requests also carry an empty result member", Rewrite},
	{FaultInvalidRequestResult, "base.jsonrpc.messages-are-jsonrpc-2", "a message that is not a valid request object (its method is not a string) is answered with an empty result", Hook},
	{FaultParseErrorWrongCode, "base.jsonrpc.messages-are-jsonrpc-2", "a line that is not JSON is answered with -32600 (Invalid Request) instead of -32700 (Parse error)", Rewrite},
	{FaultMetaVersionAssumed, "base.meta.missing-required-invalid-params", "on stdio a request whose _meta names client capabilities but no protocol version is served as 2026-07-28 instead of refused with -32602", Hook},
	{FaultStatelessServerRequest, "base.patterns.server-never-sends-requests", "in 2026-07-28 server/discover sends a ping request to the client before its answer", Rewrite},
	{FaultNotificationWithID, "base.notification.no-id", "notifications related to a request (progress, log messages) carry that request's id", Rewrite},
	{FaultServerRequestIDReused, "base.request.id-unique-in-session", "every request to the client carries id 1, so request ids repeat within a session", Hook},
	{FaultRequestProgressTokenFloat, "progress.token.string-or-integer", "requests to the client carry a progressToken that is the number 1.5, neither a string nor an integer", Rewrite},
	{FaultResultIDTruncated, "base.response.id-matches-request", "string request ids longer than 16 characters are cut to 16 in successful responses", Rewrite},
	{FaultResponseIDsWrong, "base.response.id-matches-request", "every response carries an id no request had (\"wrong-\" and the request's id), initialize's included, as an SDK that renumbers ids would", Rewrite},
	{FaultIDsThroughFloat, "base.response.id-matches-request", "integer request ids are echoed after a trip through a 64-bit float, as a JavaScript server would: ids beyond 2^53 come back changed", Rewrite},
	{FaultFractionIDsTruncated, "base.response.id-matches-request", "a request id with a fraction part (1.5) is answered with its integer part (1), as go-sdk does over HTTP: the answer carries the id of an earlier request, initialize's", Hook},
	{FaultNoServerInfoMeta, "base.meta.server-info-on-results", "2026-07-28 results other than server/discover lack io.modelcontextprotocol/serverInfo in _meta", Rewrite},
	{FaultUnknownMethodWrongCode, "base.jsonrpc.messages-are-jsonrpc-2", "a method the version does not define is answered -32602 instead of -32601 (Method not found)", Hook},
	{FaultLatin1Ping, "base.messages.utf8", "ping results carry a Latin-1 encoded string (byte 0xE9), which is not UTF-8", Rewrite},
	{FaultPingMetaNotObject, "base.jsonrpc.messages-are-jsonrpc-2", "ping results carry a _meta that is a string, not an object, against the version's schema", Rewrite},
	{FaultStaleCancelAnswered, "cancellation.invalid.ignored", "a notifications/cancelled naming no request in flight (unknown, already answered, or no requestId) is answered with an error", Hook},
	{FaultCancelClientRequest, "cancellation.notify.only-in-flight-same-direction", "after answering a request the server sends notifications/cancelled naming the client's request", Rewrite},
	{FaultClientCapsAssumed, "lifecycle.operation.respect-negotiated", "every client capability is taken as declared whatever initialize said, so sampling, elicitation and roots requests go to a client that declared none", Hook},
	{FaultInitNoServerInfo, "lifecycle.initialize.server-replies-capabilities", "the initialize result has no serverInfo", Rewrite},
	{FaultRequestBeforeInitialized, "lifecycle.initialize.server-only-ping-logging-before-initialized", "a roots/list request goes to the client right after the initialize response, before notifications/initialized", Rewrite},
	{FaultSecondInitUnanswered, "lifecycle.errors.handle-negotiation-failures", "a second initialize on a live session gets no answer", Rewrite},
	{FaultUnknownVersionOldest, "versioning.initialize.server-counters-latest", "initialize with an unknown version is answered with the oldest supported version instead of the newest", Hook},
	{FaultPromptsUndeclared, "prompts.capability.server-declares", "the prompts capability is not declared, though prompts/list serves prompts", Rewrite},
	{FaultPromptNotesUndeclared, "prompts.capability.both-respect-negotiation", "prompts.listChanged is not declared, yet notifications/prompts/list_changed is sent once the session is initialized", Hook},
	{FaultToolNotesUndeclared, "lifecycle.operation.respect-negotiated", "tools.listChanged is not declared, yet notifications/tools/list_changed is sent once the session is initialized", Hook},
	{FaultLoggingUndeclared, "logging.capability.server-declares", "the logging capability is not declared, yet a log notification is sent once the session is initialized", Hook},
	{FaultUndeclaredInputKinds, "mrtr.server.only-declared-input-kinds", "input_required results ask for input kinds (elicitation, sampling, roots) the client did not declare instead of answering -32021", Hook},
	{FaultCompletionBogusRefServed, "security.completion.input-and-disclosure", "completion/complete with a reference of an unknown type is answered with an empty completion instead of an error", Hook},
	{FaultCompletionUndeclaredCode, "completion.errors.standard-codes", "the completions capability is not declared and completion/complete is answered -32602 instead of -32601", Hook},
	{FaultCompletionUnknownCode, "completion.errors.standard-codes", "completion/complete for a prompt the server does not have is answered -32603 instead of -32602", Hook},
	{FaultCompletionUnbounded, "completion.server.quality-and-limits", "completion/complete returns every match, more than 100 values", Hook},
	{FaultInvalidLogLevelIgnored, "logging.per-request.invalid-level-rejected", "a 2026-07-28 request whose _meta logLevel is not a syslog level is served instead of refused with -32602", Hook},
	{FaultUnsupportedNoList, "versioning.negotiation.unsupported-version-error", "the -32022 answer to an unsupported protocol version has no data.supported", Rewrite},
	{FaultCursorLoops, "pagination.server.stable-cursors", "every nextCursor points to the end of the first page, so a walk of a list never ends", Hook},
	{FaultProgressWithoutToken, "progress.notify.only-active-tokens", "requests without a progressToken get progress notifications with a token the server made up", Hook},
	{FaultPromptImageNotBase64, "prompts.content.image-base64-mime", "image content in prompts/get messages is sent as raw text, not base64", Rewrite},
	{FaultPromptArgsUnchecked, "prompts.get.server-validates-arguments", "prompts/get without a required argument is served as if the argument were empty", Hook},
	{FaultUnknownPromptWrongCode, "prompts.errors.standard-codes", "prompts/get of a prompt the server does not have is answered -32603 instead of -32602", Hook},
	{FaultNoPromptsListChanged, "prompts.list-changed.server-notifies", "the prompt list changes without notifications/prompts/list_changed although listChanged is declared", Rewrite},
	{FaultNoResourcesListChanged, "resources.list-changed.server-notifies", "the resource list changes without notifications/resources/list_changed although listChanged is declared", Rewrite},
	{FaultPromptsListRefused, "prompts.list.current-set-for-caller", "2026-07-28 prompts/list is answered with -32603 instead of the current prompts", Hook},
	{FaultResourcesListRefused, "resources.list.current-set-for-caller", "2026-07-28 resources/list is answered with -32603 instead of the current resources", Hook},
	{FaultToolsListRefused, "tools.list.current-set-for-caller", "2026-07-28 tools/list is answered with -32603 instead of the current tools", Hook},
	{FaultMalformedURIServed, "security.resources.validate-uris", "resources/read of a URI that does not parse is served as an empty text resource instead of refused", Hook},
	{FaultNotFoundInvalidParams, "resources.errors.standard-codes-legacy", "up to 2025-11-25 reading a resource that does not exist is answered -32602 instead of -32002", Rewrite},
	{FaultResourceURINoScheme, "resources.uri.custom-scheme-rfc3986", "resources/list gives the test:// resources without their scheme", Rewrite},
	{FaultToolNamesCaseInsensitive, "tools.name.case-sensitive", "tools/call finds a tool whose name differs from the one called only in case", Hook},
	{FaultUnknownToolServed, "security.tools.server-hardening", "calling a tool the server does not have succeeds with a text result", Hook},
	{FaultToolArgsUnchecked, "security.tools.server-hardening", "tools/call runs a tool without checking its arguments against the inputSchema", Hook},
	{FaultInputSchemaNull, "tools.input-schema.valid-object-schema", "test_simple_text is listed with inputSchema null", Rewrite},
	{FaultToolNameWithSpace, "tools.name.allowed-characters", "test_simple_text is listed as \"test simple text\", a name with spaces", Rewrite},
	{FaultOutputSchemaInvalid, "base.schema.schemas-valid", "ref_structured is listed with an outputSchema that is not a valid JSON Schema (an unknown type)", Rewrite},
	{FaultDuplicateXMCPHeader, "tools.x-mcp-header.unique-per-schema", "ref_header_params annotates two properties with the same x-mcp-header name", Rewrite},
	// Tool results (faults_toolresults.go).
	{FaultToolResultNoContent, "base.jsonrpc.messages-are-jsonrpc-2", "tools/call results (and tasks/result of tool tasks) are sent without their content member", Rewrite},
	{FaultToolResultUnknownType, "base.jsonrpc.messages-are-jsonrpc-2", `the first content block of tool results has type "html", which no MCP version defines`, Rewrite},
	{FaultToolErrorAsProtocolError, "tools.result.execution-errors-in-result", "a tool that fails in execution (a result with isError: true, test_error_handling's) is answered with a JSON-RPC -32603 error instead", Rewrite},
	{FaultStructuredNotMirrored, "tools.result.structured-text-mirror", "tool results with structuredContent carry prose in their text block instead of the serialized JSON", Rewrite},
	{FaultEmbeddedUndeclared, "tools.result.embedded-resources-imply-capability", "the resources capability is not declared, though tool results embed resources", Rewrite},

	// 2026-07-28 base rules, logging security and implementation-info neutrality.
	{FaultReservedCodeMisused, "base.error-code.reserved-range-defined-meaning", "an unknown 2026-07-28 method is refused with -32021 (missing client capability) and no requiredCapabilities", Hook},
	{FaultUnknownResultType, "base.result-type.supported-set", `2026-07-28 tools/list results carry resultType "partial", which no negotiated extension defines`, Rewrite},
	{FaultBadExtensionName, "extensions.negotiation.identifier-naming", `server/discover advertises an extension under the unprefixed identifier "tasks"`, Rewrite},
	{FaultClientInfoDependent, "base.meta.implementation-info-no-behaviour-change", "tools/list hides the ref_* tools from clients whose clientInfo name does not start with mcpcheck", Hook},
	{FaultLogSecrets, "security.logging.no-secrets-in-messages", "ref_sign_in logs the password it was given", Hook},
	{FaultLogOnListenStream, "logging.per-request.only-on-request-stream", "2026-07-28 per-request log messages are also sent on every open subscriptions/listen stream", Hook},

	// Transports, the 2026-07-28 protocol, elicitation, sampling and tasks.
	{FaultResponseOnGetStream, "transport-http.get.no-responses", "with a GET stream open, responses to POSTed requests are sent on the GET stream too", Hook},
	{FaultStatelessStreamRequest, "transport-http.sse.no-server-requests", "a 2026-07-28 POST's response stream starts with a ping request to the client", Hook},
	{FaultStateBoundToConnection, "base.stateless.no-connection-affinity", "a retry carrying a requestState is refused unless it comes on the TCP connection the state was issued on", Hook},
	{FaultEndpointNotFirst, "transport-sse.endpoint-event.on-connect", "the HTTP+SSE stream sends a ping request before its endpoint event", Hook},
	{FaultLegacyResponseInPost, "transport-sse.endpoints.sse-and-post", "HTTP+SSE responses are written in the body of the POST instead of on the SSE stream", Hook},
	{FaultStdioServerRequest, "transport-stdio.messages.server-no-requests", "on stdio every 2026-07-28 request is preceded by a ping request to the client", Hook},
	{FaultStdinEOFIgnored, "transport-stdio.shutdown.server-exits-on-eof", "the stdio server keeps running after its stdin is closed", Hook},
	{FaultNoServerDiscover, "discovery.versioning.server-implements-discover", "server/discover is answered -32601 although 2026-07-28 requests are served", Hook},
	{FaultInputViaRequest, "mrtr.server.input-via-mrtr-only", "a 2026-07-28 retry carrying inputResponses is answered by asking again with elicitation/create requests to the client, then failing", Hook},
	{FaultInputRequiredOnComplete, "mrtr.server.only-supported-requests", "2026-07-28 completion/complete is answered with resultType input_required", Hook},
	{FaultSamplingInputBadRole, "sampling.messages.role-and-content", "the sampling messages of input_required results have role system", Rewrite},
	{FaultOneConversation, "base.stateless.handle-interleaved-conversations", "only the input_required issued last is honoured: inputResponses to an earlier one are discarded and the input asked again", Hook},
	{FaultMissingCapabilityCode, "base.meta.missing-capability-error", "a request that needs an undeclared client capability is refused with -32602 instead of -32021", Hook},
	{FaultCapsFromConnection, "base.stateless.no-connection-context", "a 2026-07-28 request declaring no client capabilities gets those an earlier request declared", Hook},
	{FaultListenNoSubscriptionID, "subscriptions.meta.notification-carries-subscription-id", "notifications on a subscriptions/listen stream carry no subscriptionId in _meta", Rewrite},
	{FaultSamplingToolsUndeclared, "sampling.tools.server-requires-tools-capability", "ref_sampling_tools offers tools in sampling/createMessage to a client that did not declare sampling.tools", Hook},
	{FaultSamplingToolResultsMixed, "sampling.messages.tool-results-not-mixed", "in the sampling tool loop the user turn mixes a text block with the tool results", Rewrite},
	{FaultElicitURLUndeclared, "elicitation.capability.server-respects-modes", "ref_elicit_url sends a url-mode elicitation to a client that declared form mode only", Hook},
	{FaultElicitURLInvalid, "elicitation.url.valid-url", "ref_elicit_url's url-mode elicitation carries a relative url", Rewrite},
	{FaultElicitCompleteWrongID, "elicitation.complete.carries-elicitation-id", "notifications/elicitation/complete names an elicitationId no elicitation carried", Hook},
	{FaultTaskCancelTerminalAccepted, "tasks.cancel.terminal-invalid-params", "tasks/cancel of a task that already finished succeeds instead of answering -32602", Hook},
	{FaultTaskCancelAnswersWorking, "tasks.cancel.cancelled-before-response", "tasks/cancel answers with the task still reported working", Rewrite},
	{FaultTaskCreatedAtNotRFC3339, "tasks.ttl.created-at", "the CreateTaskResult gives createdAt as Unix seconds, not an RFC 3339 timestamp", Rewrite},
	{FaultTaskIDFromRequestor, "tasks.id.receiver-generated", "a taskId the requestor puts in params.task is adopted as the task's id", Hook},
	{FaultTaskIDCounter, "tasks.security.unguessable-ids", "task ids come from a counter (task-1, task-2, ...)", Hook},
	{FaultTaskResultNoRelatedMeta, "tasks.related.result-response-carries-meta", "tasks/result returns the tool result without the related-task _meta", Rewrite},
	{FaultTaskResultDiffers, "tasks.result.terminal-returns-outcome", "tasks/result of a completed task returns a canned result instead of the call's", Rewrite},
	{FaultTaskStatusRelatedMeta, "tasks.notify.status-omits-related-meta", "notifications/tasks/status carry the related-task _meta", Rewrite},
	{FaultTasksUndeclaredHonoured, "tasks.support.undeclared-type-ignores-task", "tasks.requests.tools.call is not declared, yet the task field of tools/call is acted on instead of ignored", Rewrite},
	{FaultUnknownTaskInternalError, "tasks.errors.protocol-error-codes", "tasks/get, tasks/result and tasks/cancel of an unknown taskId answer -32603 instead of -32602", Hook},

	// Unprompted traffic after notifications/initialized (faults_unprompted.go).
	{FaultUnpromptedClientRequest, "lifecycle.operation.respect-negotiated", "right after notifications/initialized, with no request involved, a sampling/createMessage, roots/list and (from 2025-06-18) elicitation/create request goes to a client that did not declare that capability", Hook},
	{FaultUnsubscribedResourceUpdated, "lifecycle.operation.respect-negotiated", "right after notifications/initialized a notifications/resources/updated is sent for test://static-text, which the session never subscribed to", Hook},
	{FaultUnpromptedProgress, "progress.notify.only-active-tokens", "right after notifications/initialized a notifications/progress is sent with a token the client never gave", Hook},
}

// Faults returns every fault switch, sorted by name.
func Faults() []Fault {
	out := append([]Fault(nil), faultTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// faultSet is the set of switches that are on.
type faultSet map[string]bool

// on reports whether the named hook switch is on. Only hook switches are
// tested so (faults_hooks_test.go); rewrite switches act at the seam.
func (f faultSet) on(name string) bool { return f[name] }

func parseFaults(names []string) (faultSet, error) {
	fs := faultSet{}
	for _, n := range names {
		found := false
		for _, f := range faultTable {
			if f.Name == n {
				found = true
				break
			}
		}
		if !found {
			var all []string
			for _, f := range Faults() {
				all = append(all, f.Name)
			}
			return nil, fmt.Errorf("server: unknown fault switch %q; the switches are: %s", n, strings.Join(all, ", "))
		}
		fs[n] = true
	}
	return fs, nil
}

// earlyLogNotification is what the speak-before-initialize fault sends
// before the client has said anything.
var earlyLogNotification = []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"mcpcheck reference server started"}}`)
