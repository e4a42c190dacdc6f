package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestOldVersionCarriesNoNewFields scans what a 2024-11-05 session sees
// for members later versions introduced.
func TestOldVersionCarriesNoNewFields(t *testing.T) {
	c := startStdio(t, newTestServer(t, Options{}))
	res := c.initialize(spec.V20241105, nil)
	all := []json.RawMessage{res}
	for _, m := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		r, _ := c.call(m, nil)
		all = append(all, r)
	}
	for _, name := range []string{"ref_all_content", "ref_structured", "test_multiple_content_types"} {
		r, _ := c.call("tools/call", map[string]any{"name": name, "arguments": map[string]any{"a": 1, "b": 2}})
		all = append(all, r)
	}
	r, _ := c.call("resources/read", map[string]any{"uri": "ref://annotated"})
	all = append(all, r)
	r, _ = c.call("prompts/get", map[string]any{"name": "test_prompt_with_image"})
	all = append(all, r)
	for _, raw := range all {
		for _, k := range []string{`"title"`, `"icons"`, `"structuredContent"`, `"outputSchema"`, `"execution"`, `"type":"audio"`, `"type":"resource_link"`, `"lastModified"`, `"websiteUrl"`, `"completions"`, `"tasks"`, `"resultType"`, `"ttlMs"`} {
			if strings.Contains(string(raw), k) {
				t.Errorf("2024-11-05 message carries %s: %s", k, raw)
			}
		}
	}
}
