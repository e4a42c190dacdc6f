package reports

import "maps"

// checkAliases maps every check ID that was renamed to the ID the check
// carries now. Since 0.x every check's ID starts with the catalog area it
// is filed under (issue 28: auth/… became authorization/…, http/…
// transport-http/…, a stateless/… check moved under its area as
// AREA/stateless-…); baselines, run JSON, matrices and census files
// written before the rename still name the old IDs, and every reader of
// IDs resolves them through CanonicalCheckID. An entry is never removed:
// an old ID must keep meaning the check it named. A key is never a live
// ID and a value always is (the registries' tests hold both).
var checkAliases = map[string]string{
	"auth/authorization-server-2025-03-26":      "authorization/authorization-server-2025-03-26",
	"auth/forged-token-401":                     "authorization/forged-token-401",
	"auth/insufficient-scope":                   "authorization/insufficient-scope",
	"auth/protected-resource-metadata":          "authorization/protected-resource-metadata",
	"auth/token-audience":                       "authorization/token-audience",
	"auth/token-bad-signature":                  "authorization/token-bad-signature",
	"auth/token-expired":                        "authorization/token-expired",
	"auth/token-not-yet-valid":                  "authorization/token-not-yet-valid",
	"auth/token-other-resource":                 "authorization/token-other-resource",
	"auth/token-passthrough":                    "authorization/token-passthrough",
	"auth/token-query-string":                   "authorization/token-query-string",
	"auth/token-wrong-issuer":                   "authorization/token-wrong-issuer",
	"auth/unauthorized-challenge":               "authorization/unauthorized-challenge",
	"capabilities/client-undeclared":            "lifecycle/client-capabilities-undeclared",
	"capabilities/extension-names":              "extensions/identifier-names",
	"capabilities/features-declared":            "lifecycle/features-declared",
	"capabilities/prompt-notifications":         "prompts/capability-notifications",
	"capabilities/stateless-undeclared":         "base/stateless-undeclared-capabilities",
	"http/get-stream-no-responses":              "transport-http/get-stream-no-responses",
	"http/get-stream-or-405":                    "transport-http/get-stream-or-405",
	"http/modern-only-legacy-traffic":           "transport-http/modern-only-legacy-traffic",
	"http/no-requests-on-response-streams":      "transport-http/no-requests-on-response-streams",
	"http/notification-202":                     "transport-http/notification-202",
	"http/origin-403":                           "transport-http/origin-403",
	"http/post-content-type":                    "transport-http/post-content-type",
	"http/protocol-version-header-absent":       "transport-http/protocol-version-header-absent",
	"http/protocol-version-header-invalid":      "transport-http/protocol-version-header-invalid",
	"http/responses-on-own-streams":             "transport-http/responses-on-own-streams",
	"http/resume-same-stream":                   "transport-http/resume-same-stream",
	"http/session-id":                           "transport-http/session-id",
	"http/session-missing-id-400":               "transport-http/session-missing-id-400",
	"http/session-terminated-404":               "transport-http/session-terminated-404",
	"http/sse-close-after-response":             "transport-http/sse-close-after-response",
	"http/sse-cut-streams":                      "transport-http/sse-cut-streams",
	"http/sse-event-ids-unique":                 "transport-http/sse-event-ids-unique",
	"http/sse-priming-event":                    "transport-http/sse-priming-event",
	"http/sse-x-accel-buffering":                "transport-http/sse-x-accel-buffering",
	"sse/endpoint-event-first":                  "transport-sse/endpoint-event-first",
	"sse/post-and-stream":                       "transport-sse/post-and-stream",
	"stateless/header-mismatch":                 "transport-http/stateless-header-mismatch",
	"stateless/header-names-case-insensitive":   "transport-http/stateless-header-names-case-insensitive",
	"stateless/interleaved-conversations":       "base/stateless-interleaved-conversations",
	"stateless/listen-implemented":              "base/stateless-listen-implemented",
	"stateless/meta-missing-400":                "base/stateless-meta-missing-400",
	"stateless/missing-capability":              "base/stateless-missing-capability",
	"stateless/name-header-base64":              "transport-http/stateless-name-header-base64",
	"stateless/no-connection-affinity":          "base/stateless-no-connection-affinity",
	"stateless/no-connection-context":           "base/stateless-no-connection-context",
	"stateless/protocol-version-header-missing": "transport-http/stateless-protocol-version-header-missing",
	"stateless/unknown-method-404":              "transport-http/stateless-unknown-method-404",
	"stateless/unsupported-version-400":         "transport-http/stateless-unsupported-version-400",
	"stateless/x-mcp-header-annotations":        "transport-http/stateless-x-mcp-header-annotations",
	"stdio/exit-on-stdin-close":                 "transport-stdio/exit-on-stdin-close",
	"stdio/no-server-requests":                  "transport-stdio/no-server-requests",
	"stdio/stdout-only-messages":                "transport-stdio/stdout-only-messages",
}

// CanonicalCheckID returns the ID a check carries now: the renamed
// check's ID for an ID in the alias table, id itself otherwise.
func CanonicalCheckID(id string) string {
	if n, ok := checkAliases[id]; ok {
		return n
	}
	return id
}

// RenamedCheckID reports whether id is an old ID of a renamed check, and
// the ID it carries now.
func RenamedCheckID(id string) (string, bool) {
	n, ok := checkAliases[id]
	return n, ok
}

// CheckIDAliases returns the alias table's old IDs, sorted, with the ID
// each resolves to (a copy: the table itself cannot be changed).
func CheckIDAliases() map[string]string { return maps.Clone(checkAliases) }
