// A short MCP client on mcp-go, with a fault switch per client-side rule
// (issue 30): a third-party client mcpcheck's client suite is proven on.
// In its own module, so mcpcheck never depends on mcp-go.
module github.com/mcpcheck/mcpcheck/cmd/interop/clients/mcpgo-client

go 1.26

require github.com/mark3labs/mcp-go v1.2.1

require (
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/text v0.14.0 // indirect
)
