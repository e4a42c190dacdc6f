package server

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
	// The JSON Schema handling rules bind whichever side validates a schema
	// it was given. In the core protocol every schema a server meets is its
	// own (tool input and output schemas, elicitation requests it writes):
	// no message lets a client hand a server a schema to validate, so a
	// black-box run cannot reach the server's validator. The client suite
	// judges these rules on the client, which does receive schemas.
	"base.schema.unresolved-ref-rejected":       "a server receives no schema from the client in the core protocol, so its treatment of an unresolvable external $ref cannot be provoked over the wire",
	"base.schema.unsupported-dialect-error":     "a server receives no schema from the client in the core protocol, so its treatment of an unknown $schema dialect cannot be provoked over the wire",
	"security.schema-ref.no-auto-network-deref": "a server receives no schema from the client in the core protocol, so no client-supplied network $ref can be offered to it",
	"security.schema-ref.opt-in-off-by-default": "a server receives no schema from the client in the core protocol; whether a fetching mode is off by default is configuration the wire cannot see",
	"security.schema.composition-bounds":        "a server receives no schema from the client in the core protocol, so no deeply composed schema can be put in front of its validator",
}

// Exclude adds reasons (requirement ID: why it has no check) to Exclusions;
// the area files call it from init.
func Exclude(reasons map[string]string) {
	for k, v := range reasons {
		Exclusions[k] = v
	}
}
