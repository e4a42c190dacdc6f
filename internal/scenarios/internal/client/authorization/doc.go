// Package authorization holds the client suite's checks of authorization
// (the client as an OAuth 2.1 client of a protected MCP server): the
// official auth scenarios and mcpcheck's own (authorization.go), metadata
// discovery (discovery.go), registration, the authorization code flow,
// tokens and step-up (flow.go), and the stage that plays the protected
// resource and its authorization server (stage.go). It registers them into
// the suite's registry (internal/scenarios/internal/client), which lists them where
// authorization*.go stood.
package authorization
