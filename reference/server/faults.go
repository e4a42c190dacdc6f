package server

import (
	"fmt"
	"sort"
	"strings"
)

// Fault is one fault switch: a deliberate defect that breaks exactly one
// requirement of the catalog, so mcpcheck's own checks can be proven to
// fire. Every switch is off unless named in Options.Faults.
type Fault struct {
	// Name is the switch's flag value, such as "ping-nonempty-result".
	Name string
	// Requirement is the catalog ID of the requirement it breaks.
	Requirement string
	// Description says in one line what the server does wrong.
	Description string
}

// The fault switch names. Each is checked at one well-defined hook point.
const (
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
)

var faultTable = []Fault{
	{FaultInitWrongVersion, "versioning.initialize.server-echoes-supported-version", "initialize answers the oldest supported version even when the requested one is supported"},
	{FaultSpeakBeforeInitialize, "lifecycle.initialize.first-interaction", "a log notification is sent as soon as the connection opens, before the client's initialize"},
	{FaultPingNonEmpty, "ping.response.prompt-empty-result", "ping answers with a non-empty result object"},
	{FaultErrorIDMismatch, "base.response.error-id-matches-request", "error responses to requests carry a different id than the request"},
	{FaultReplyToNotification, "base.notification.no-response", "every notification from the client is answered with an error response"},
	{FaultOutputSchemaMismatch, "tools.output-schema.server-conforms", "tools with an outputSchema return structuredContent that does not conform to it"},
	{FaultNoToolsListChanged, "tools.list-changed.server-notifies", "the tool list changes without notifications/tools/list_changed although listChanged is declared"},
	{FaultEmptyContentsForMissing, "resources.errors.no-empty-contents-for-missing", "resources/read of an unknown URI succeeds with empty contents"},
	{FaultBlobNotBase64, "resources.contents.binary-encoded", "blob resource contents are sent as raw text instead of base64"},
	{FaultInvalidCursorAccepted, "pagination.errors.invalid-cursor", "an invalid pagination cursor is treated as the first page instead of -32602"},
	{FaultBadLogLevelAccepted, "logging.errors.standard-codes-legacy", "logging/setLevel accepts an unknown level instead of answering -32602"},
	{FaultLogWithoutLevel, "logging.per-request.silent-without-level", "stateless requests without a logLevel in _meta still get log notifications"},
	{FaultProgressDecreasing, "progress.notify.value-increases", "progress notifications go backwards"},
	{FaultProgressAfterCompletion, "progress.notify.stop-after-completion", "a progress notification is sent after the request's response"},
	{FaultRespondAfterCancel, "cancellation.receiver.stop-and-stay-silent", "a cancelled request still gets a response"},
	{FaultSessionIDNotASCII, "transport-http.session.id-visible-ascii", "Mcp-Session-Id contains a space, which is not visible ASCII"},
	{FaultTerminatedSessionServed, "transport-http.session.terminated-404", "requests on a deleted session are served instead of answered 404"},
	{FaultProtocolHeaderIgnored, "transport-http.protocol-version-header.invalid-400", "an invalid MCP-Protocol-Version header is ignored instead of answered 400"},
	{FaultOriginNotValidated, "transport-http.security.invalid-origin-403", "requests with a foreign Origin are served instead of answered 403"},
	{FaultStdoutBanner, "transport-stdio.stdout.only-mcp-messages", "a banner line that is not an MCP message is written to stdout at start"},
	{FaultNoResultType, "base.result-type.present", "2026-07-28 results are sent without resultType"},
	{FaultAcceptTamperedState, "mrtr.server.request-state-reject-tampered", "a requestState whose integrity check fails is accepted"},
	{FaultRetiredNotFoundCode, "base.error-code.retired-codes-not-emitted", "2026-07-28 resource-not-found is answered with the retired code -32002"},
	{FaultReplayAllStreams, "transport-http.resume.no-cross-stream-replay", "a resumed stream replays events of every stream of the session, not just its own"},
	{FaultTasksGetSSE, "tasks.http.no-sse-for-tasks-get", "on streamable HTTP tasks/get is answered on an SSE stream instead of with plain JSON"},
}

// Faults returns every fault switch, sorted by name.
func Faults() []Fault {
	out := append([]Fault(nil), faultTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// faultSet is the set of switches that are on.
type faultSet map[string]bool

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
