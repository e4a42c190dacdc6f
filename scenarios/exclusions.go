package scenarios

// Exclusions maps wire-testable server-side MUST/SHOULD requirement IDs
// that have no check to the written reason why: coverage is checks plus
// exclusions. A requirement an area simply has not reached yet is not an
// exclusion; it stays missing in `mcpcheck spec coverage`.
var Exclusions = map[string]string{
	"ping.schedule.periodic":                      "whether a server pings an idle client from time to time shows only over long idle periods; no bounded run can tell a server that never pings from one with a long interval",
	"ping.schedule.not-excessive":                 "the specification gives no rate; a bounded run cannot judge 'noticeable network load'",
	"ping.timeout.is-connection-failure":          "servers rarely ping; provoking a server ping needs a server-specific trigger, and how it then treats the connection is not defined on the wire",
	"lifecycle.timeouts.per-request-timeout":      "judging a server's own request timeouts needs a server request the harness can leave unanswered for as long as the server's (unspecified) timeout",
	"lifecycle.timeouts.cancel-on-timeout":        "as lifecycle.timeouts.per-request-timeout: the server's timeout is unspecified, so waiting for its notifications/cancelled has no bound",
	"lifecycle.timeouts.maximum-despite-progress": "the client would have to send progress for the server's requests indefinitely; no bound is specified",
	"logging.server.message-hygiene":              "useful context, consistent logger names and stripped secrets need human judgement; the rate has no specified limit",
}
