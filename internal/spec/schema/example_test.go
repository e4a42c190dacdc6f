package schema_test

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
)

func ExampleValidate() {
	// A server answers tools/call with a content block of an unknown type
	// and a boolean in the wrong place.
	raw := []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"html","text":"<b>hi</b>"}],"isError":"no"}}`)
	for _, v := range schema.Validate(spec.V20251125, spec.ServerToClient, "tools/call", raw) {
		fmt.Println(v.Pointer, "->", v.Message)
	}
	// Output:
	// /result/content/0/type -> is "html", but must be "audio", "image", "resource", "resource_link" or "text"
	// /result/isError -> is a JSON string, but must be a JSON boolean
}

func ExampleValidate_stateless() {
	// In 2026-07-28 sampling is no longer a JSON-RPC request.
	raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}`)
	for _, v := range schema.Validate(spec.V20260728, spec.ServerToClient, "", raw) {
		fmt.Println(v.Kind, v.Pointer)
	}
	// Output:
	// carrier-as-message /method
}

func ExampleValidateDef() {
	tool := []byte(`{"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`)
	fmt.Println(len(schema.ValidateDef(spec.V20251125, "Tool", tool)))
	// Output:
	// 0
}
