package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
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

// TestToolListEncodesAsListToolsResult: the tools/list result built from
// tools encoded once per version has the bytes mcp.ListToolsResult would
// have, in every version, with and without a cursor and cache members,
// and on the second listing (from the encoded tools kept) as on the first.
func TestToolListEncodesAsListToolsResult(t *testing.T) {
	srv := newTestServer(t, Options{})
	for _, v := range spec.Versions {
		all := srv.fx.sortedTools(v)
		if len(all) == 0 {
			t.Fatalf("%s: no tools listed", v)
		}
		for _, extra := range []func(*mcp.ListToolsResult){
			func(*mcp.ListToolsResult) {},
			func(r *mcp.ListToolsResult) {
				r.NextCursor = "next"
				r.Cacheable = mcp.Cacheable{TTLMs: mcp.Int(300000), CacheScope: mcp.CachePublic}
			},
		} {
			want := mcp.ListToolsResult{Tools: make([]mcp.Tool, len(all))}
			extra(&want)
			for i, tf := range all {
				want.Tools[i] = shapeTool(v, tf.def)
			}
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			for pass := range 2 {
				got := toolList{PaginatedResult: want.PaginatedResult, Cacheable: want.Cacheable, Tools: make([]json.RawMessage, len(all))}
				for i, tf := range all {
					if got.Tools[i], err = tf.encoded(v); err != nil {
						t.Fatal(err)
					}
				}
				gotJSON, err := json.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				if string(gotJSON) != string(wantJSON) {
					t.Errorf("%s, listing %d: the encoded list differs from mcp.ListToolsResult's:\n got %s\nwant %s", v, pass+1, gotJSON, wantJSON)
				}
			}
		}
	}
	empty, err := json.Marshal(toolList{Tools: []json.RawMessage{}})
	if err != nil || string(empty) != `{"tools":[]}` {
		t.Errorf("an empty page encodes as %s (%v), want {\"tools\":[]}", empty, err)
	}
}
