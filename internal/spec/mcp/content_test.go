package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContentBlockRejectsBadType(t *testing.T) {
	cases := []struct {
		name, in, wantErr string
	}{
		{"unknown", `{"type":"video","data":"x"}`, `unknown type "video"`},
		{"missing", `{"text":"hi"}`, `no "type" member`},
		{"number", `{"type":3,"text":"hi"}`, `"type" is a number`},
		{"null", `{"type":null}`, `"type" is null`},
		{"not an object", `"hello"`, `is a string`},
		{"array", `[{"type":"text","text":"x"}]`, `is an array`},
		{"bad variant body", `{"type":"image","data":5,"mimeType":"image/png"}`, `image content block`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b ContentBlock
			err := json.Unmarshal([]byte(c.in), &b)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("Unmarshal(%s) error = %v, want one containing %q", c.in, err, c.wantErr)
			}
		})
	}
}

func TestContentBlockEmptyMarshal(t *testing.T) {
	_, err := json.Marshal(ContentBlock{})
	if err == nil || !strings.Contains(err.Error(), "content block is empty") {
		t.Fatalf("Marshal(empty block) error = %v, want an 'empty' error", err)
	}
}

func TestContentBlockVariants(t *testing.T) {
	tr := true
	cases := []struct {
		c    Content
		want string
	}{
		{&TextContent{Text: "a"}, `{"type":"text","text":"a"}`},
		{&ImageContent{Data: "AA==", MimeType: "image/png"}, `{"type":"image","data":"AA==","mimeType":"image/png"}`},
		{&AudioContent{Data: "AA==", MimeType: "audio/mpeg"}, `{"type":"audio","data":"AA==","mimeType":"audio/mpeg"}`},
		{&ResourceLink{Resource{URI: "x://a", Name: "a"}}, `{"type":"resource_link","uri":"x://a","name":"a"}`},
		{&EmbeddedResource{Resource: TextContents("x://a", "", "t")}, `{"type":"resource","resource":{"uri":"x://a","text":"t"}}`},
		{&ToolUseContent{ID: "1", Name: "n", Input: json.RawMessage(`{}`)}, `{"type":"tool_use","id":"1","name":"n","input":{}}`},
		{&ToolResultContent{ToolUseID: "1", Content: []ContentBlock{Text("r")}, IsError: &tr}, `{"type":"tool_result","toolUseId":"1","content":[{"type":"text","text":"r"}],"isError":true}`},
	}
	seen := map[ContentType]bool{}
	for _, c := range cases {
		b, err := json.Marshal(Block(c.c))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("Marshal(%T) = %s, want %s", c.c, b, c.want)
		}
		var back ContentBlock
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Unmarshal(%s): %v", b, err)
		}
		if back.Type() != c.c.ContentType() {
			t.Errorf("decoded type %q, want %q", back.Type(), c.c.ContentType())
		}
		if d := cmp.Diff(c.c, back.Content); d != "" {
			t.Errorf("%T round trip (-want +got):\n%s", c.c, d)
		}
		seen[c.c.ContentType()] = true
	}
	for _, ct := range ContentTypes {
		if !seen[ct] {
			t.Errorf("content type %q has no case", ct)
		}
		if ct.Since() == "" {
			t.Errorf("%q has no Since version", ct)
		}
		if newContent(ct) == nil {
			t.Errorf("newContent(%q) is nil", ct)
		}
	}
	if ContentToolUse.InContentBlock() || !ContentToolUse.InSampling() {
		t.Error("tool_use belongs to sampling content only")
	}
	if !ContentResourceLink.InContentBlock() || ContentResourceLink.InSampling() {
		t.Error("resource_link belongs to content blocks only")
	}
	if ContentType("video").Since() != "" {
		t.Error("unknown type has a Since version")
	}
}

func TestSamplingContentForms(t *testing.T) {
	cases := []struct {
		in    string
		array bool
		n     int
	}{
		{`{"type":"text","text":"a"}`, false, 1},
		{`[{"type":"text","text":"a"}]`, true, 1},
		{`[{"type":"text","text":"a"},{"type":"tool_use","id":"1","name":"f","input":{}}]`, true, 2},
		{`[]`, true, 0},
	}
	for _, c := range cases {
		var s SamplingContent
		if err := json.Unmarshal([]byte(c.in), &s); err != nil {
			t.Fatalf("Unmarshal(%s): %v", c.in, err)
		}
		if s.Array != c.array || len(s.Blocks) != c.n {
			t.Errorf("Unmarshal(%s) = array %v, %d blocks; want %v, %d", c.in, s.Array, len(s.Blocks), c.array, c.n)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameJSON([]byte(c.in), out, "SamplingContent"); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []string{`"text"`, `3`, `{"type":"nope"}`, `[{"text":"x"}]`} {
		var s SamplingContent
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("Unmarshal(%s) succeeded, want an error", bad)
		}
	}
	if b, _ := json.Marshal(Many(&TextContent{Text: "x"})); string(b) != `[{"type":"text","text":"x"}]` {
		t.Errorf("Many encodes as %s, want an array", b)
	}
	if b, _ := json.Marshal(Single(&TextContent{Text: "x"})); string(b) != `{"type":"text","text":"x"}` {
		t.Errorf("Single encodes as %s, want an object", b)
	}
}

func TestResourceContentsTextOrBlob(t *testing.T) {
	for _, c := range []struct{ in, wantErr string }{
		{`{"uri":"x://a"}`, "neither"},
		{`{"uri":"x://a","text":"t","blob":"AA=="}`, "both"},
	} {
		var r ResourceContents
		if err := json.Unmarshal([]byte(c.in), &r); err != nil {
			t.Fatalf("Unmarshal(%s): %v; decoding must accept it", c.in, err)
		}
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("Validate(%s) = %v, want an error containing %q", c.in, err, c.wantErr)
		}
	}
	var r ResourceContents
	if err := json.Unmarshal([]byte(`{"uri":"x://a","blob":""}`), &r); err != nil || !r.IsBlob() || r.IsText() || r.Validate() != nil {
		t.Errorf("empty blob: IsBlob %v IsText %v err %v", r.IsBlob(), r.IsText(), err)
	}
}
