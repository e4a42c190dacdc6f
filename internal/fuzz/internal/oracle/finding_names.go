package oracle

// Finding names. Every finding's check is "FAMILY/what": crash/…, hang/…,
// resource/…, timeout/…, framing/… (bytes that are no JSON-RPC message),
// jsonrpc/…, response/…, request/…, error/…, http/…, sse/…, schema/… (the
// families of internal/harness/rules' breaches are the same).

// RenamedChecks maps the names findings carried before that scheme to their
// names now, so that a finding written by an earlier mcpcheck still
// replays: a replay file's expected observation is read under its current
// name and its signature computed again (LoadReplay). An entry is never
// removed.
var RenamedChecks = map[string]string{
	"http-post-not-json":                 "framing/http-post-not-json",
	"stdin-not-json":                     "framing/stdin-not-json",
	"http-body-not-json":                 "framing/http-body-not-json",
	"stdout-not-json":                    "framing/stdout-not-json",
	"http-error-body-echoes-response-id": "http/error-body-echoes-response-id",
	"response-to-a-response":             "response/to-a-response",
	"response-id-unknown":                "response/id-unknown",
	"server-sent-request":                "request/server-sent-stateless",
}

// CanonicalCheck is the current name of a finding's check.
func CanonicalCheck(name string) string {
	if now, ok := RenamedChecks[name]; ok {
		return now
	}
	return name
}
