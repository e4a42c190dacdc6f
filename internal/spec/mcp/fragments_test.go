package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fragmentDecoder reads a page example that is not a whole JSON-RPC message
// but a piece of one (a content block, a tool, a capabilities object, an
// MRTR carrier request, ...). It returns "" when the shape is not one this
// package models, such as OAuth metadata or a bare JSON Schema.
func fragmentDecoder(v any) (string, func(json.RawMessage) (any, error)) {
	into := func(mk func() any) func(json.RawMessage) (any, error) {
		return func(r json.RawMessage) (any, error) {
			x := mk()
			return x, json.Unmarshal(r, x)
		}
	}
	switch x := v.(type) {
	case []any:
		if len(x) > 0 {
			if m, ok := x[0].(map[string]any); ok && m["uri"] != nil {
				return "[]Root", into(func() any { return &[]Root{} })
			}
		}
		return "", nil
	case map[string]any:
		has := func(k string) bool { _, ok := x[k]; return ok }
		onlyKeys := func(ks ...string) bool {
			if len(x) != len(ks) {
				return false
			}
			for _, k := range ks {
				if !has(k) {
					return false
				}
			}
			return true
		}
		allValues := func(key string) bool {
			if len(x) == 0 {
				return false
			}
			for _, v := range x {
				m, ok := v.(map[string]any)
				if !ok || m[key] == nil {
					return false
				}
			}
			return true
		}
		t, _ := x["type"].(string)
		switch {
		case has("method") && !has("jsonrpc"):
			return "InputRequest", into(func() any { return &InputRequest{} })
		case allValues("method"):
			return "InputRequests", into(func() any { return &map[string]InputRequest{} })
		case len(x) > 1 && allValuesAny(x, "action", "roots", "model"):
			return "InputResponses", into(func() any { return &map[string]InputResponse{} })
		case ContentType(t).Since() != "":
			return "ContentBlock", into(func() any { return &ContentBlock{} })
		case t == "string" || t == "number" || t == "integer" || t == "boolean" || t == "array":
			return "PrimitiveSchema", into(func() any { return &PrimitiveSchema{} })
		case has("name") && has("arguments") && !has("role"):
			return "CallToolParams", into(func() any { return &CallToolParams{} })
		case has("content") && (has("structuredContent") || has("isError")):
			return "CallToolResult", into(func() any { return &CallToolResult{} })
		case has("name") && has("inputSchema"):
			return "Tool", into(func() any { return &Tool{} })
		case onlyKeys("capabilities"):
			return "capabilities", func(r json.RawMessage) (any, error) {
				var s struct {
					C ServerCapabilities `json:"capabilities"`
				}
				var c struct {
					C ClientCapabilities `json:"capabilities"`
				}
				if err := json.Unmarshal(r, &s); err == nil && roundTripValue(r, s) == nil {
					return s, nil
				}
				return c, json.Unmarshal(r, &c)
			}
		case onlyKeys("_meta"):
			return "RequestParams", into(func() any { return &RequestParams{} })
		case onlyKeys("task"):
			return "task member", into(func() any {
				return &struct {
					Task TaskMetadata `json:"task"`
				}{}
			})
		case has(MetaRelatedTask):
			return "Meta", func(r json.RawMessage) (any, error) {
				var m Meta
				if err := json.Unmarshal(r, &m); err != nil {
					return nil, err
				}
				_, _, err := m.RelatedTask()
				return m, err
			}
		case has("role") && has("content") && has("model"):
			return "CreateMessageResult", into(func() any { return &CreateMessageResult{} })
		case has("role") && has("content"):
			return "SamplingMessage", into(func() any { return &SamplingMessage{} })
		case has("action"):
			return "ElicitResult", into(func() any { return &ElicitResult{} })
		case has("roots"):
			return "ListRootsResult", into(func() any { return &ListRootsResult{} })
		case has("uri") && (has("text") || has("blob")):
			return "ResourceContents", into(func() any { return &ResourceContents{} })
		case has("uri") && has("name"):
			return "Resource", into(func() any { return &Resource{} })
		case has("hints"):
			return "ModelPreferences", into(func() any { return &ModelPreferences{} })
		}
	}
	return "", nil
}

func allValuesAny(x map[string]any, keys ...string) bool {
	for _, v := range x {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		hit := false
		for _, k := range keys {
			if m[k] != nil {
				hit = true
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

func roundTripValue(raw json.RawMessage, v any) error {
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sameJSON(raw, out, fmt.Sprintf("%T", v))
}

// fragmentSkips lists fragments deliberately not required to round-trip,
// each with the reason.
var fragmentSkips = map[string]string{
	"2025-06-18/server/tools.mdx:279":       annotationsInContents,
	"2025-11-25/server/tools.mdx:304":       annotationsInContents,
	"2026-07-28/server/tools.mdx:478":       annotationsInContents,
	"2025-11-25/client/elicitation.mdx:121": "the example gives the string schema a \"pattern\" member, which StringSchema does not define in the 2025-11-25 schema (nor in any other version)",
}

const annotationsInContents = "the example puts \"annotations\" inside the embedded resource's contents object; TextResourceContents defines no annotations in any schema (they belong on the EmbeddedResource, one level up)"

// TestSpecFragmentsRoundTrip round-trips the page examples that are pieces
// of messages. It complements TestSpecExamplesRoundTrip, which covers whole
// JSON-RPC messages.
func TestSpecFragmentsRoundTrip(t *testing.T) {
	ran := false
	for _, v := range versionsForTest() {
		dir := sharedSpecDir(v)
		if dir == "" {
			continue
		}
		ran = true
		t.Run(v, func(t *testing.T) {
			passed, other, unparsable := 0, 0, 0
			kinds := map[string]int{}
			err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mdx") {
					return err
				}
				rel, _ := filepath.Rel(dir, p)
				exs, err := pageExamples(p, v+"/"+filepath.ToSlash(rel))
				if err != nil {
					return err
				}
				for _, ex := range splitValues(exs) {
					var val any
					if json.Unmarshal([]byte(ex.text), &val) != nil {
						unparsable++
						t.Logf("%s: not JSON even after removing comments; not checked", ex.where)
						continue
					}
					if k, _ := classify(val, []byte(ex.text)); k != kindNone {
						continue // whole messages are TestSpecExamplesRoundTrip's job
					}
					name, dec := fragmentDecoder(val)
					if dec == nil {
						other++
						t.Logf("%s: not a protocol shape this package models; not checked", ex.where)
						continue
					}
					kinds[name]++
					err := roundTrip(json.RawMessage(ex.text), dec)
					if err == nil && name == "Tool" {
						var tool Tool
						_ = json.Unmarshal([]byte(ex.text), &tool)
						if _, herr := HeaderParams(tool.InputSchema); herr != nil {
							err = fmt.Errorf("x-mcp-header check: %v", herr)
						}
					}
					reason, skip := fragmentSkips[ex.where]
					switch {
					case skip && err == nil:
						t.Errorf("%s: listed as skipped (%s) but now round-trips; remove it from fragmentSkips", ex.where, reason)
					case skip:
						t.Logf("%s: skipped: %s", ex.where, reason)
					case err != nil:
						t.Errorf("%s: %s: %v", ex.where, name, err)
					default:
						passed++
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			names := make([]string, 0, len(kinds))
			for k, n := range kinds {
				names = append(names, fmt.Sprintf("%s %d", k, n))
			}
			sort.Strings(names)
			t.Logf("%s: %d fragments round-trip (%s); %d other JSON blocks, %d not JSON", v, passed, strings.Join(names, ", "), other, unparsable)
		})
	}
	if !ran {
		t.Skip("reference pages not found; set MCPCHECK_SHARED to run the spec fragment round-trip")
	}
}

// splitValues turns a block that holds several JSON values one after the
// other (as jsonc blocks showing a conversation do) into one example per
// value, numbered where#1, where#2, ...; other blocks pass through.
func splitValues(exs []example) []example {
	var out []example
	for _, ex := range exs {
		if json.Valid([]byte(ex.text)) {
			out = append(out, ex)
			continue
		}
		dec := json.NewDecoder(strings.NewReader(ex.text))
		var parts []example
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if err != io.EOF {
					parts = nil
				}
				break
			}
			parts = append(parts, example{where: fmt.Sprintf("%s#%d", ex.where, len(parts)+1), text: string(raw)})
		}
		if len(parts) < 2 {
			out = append(out, ex)
			continue
		}
		out = append(out, parts...)
	}
	return out
}
