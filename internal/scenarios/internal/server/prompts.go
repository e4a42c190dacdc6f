package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Prompts: content of prompts/get (images, embedded resources), missing
// required arguments and unknown prompts (-32602), list changes and the
// 2026-07-28 list rules.

// promptsListed returns the listed prompts (every page).
func promptsListed(t *T, s Sess) ([]mcp.Prompt, error) {
	items, err := t.Walk(s, spec.MethodPromptsList, "prompts")
	out := make([]mcp.Prompt, 0, len(items))
	for _, it := range items {
		var p mcp.Prompt
		if json.Unmarshal(it, &p) == nil {
			out = append(out, p)
		}
	}
	return out, err
}

// promptsArgs fills every required argument of p with a plain value (a URI
// for arguments whose name says they hold one).
func promptsArgs(p mcp.Prompt, all bool) map[string]string {
	out := map[string]string{}
	for _, a := range p.Arguments {
		if !all && (a.Required == nil || !*a.Required) {
			continue
		}
		v := "mcpcheck"
		if n := strings.ToLower(a.Name); strings.Contains(n, "uri") || strings.Contains(n, "url") {
			v = "test://mcpcheck"
		}
		out[a.Name] = v
	}
	return out
}

func promptsRequired(p mcp.Prompt) []string {
	var out []string
	for _, a := range p.Arguments {
		if a.Required != nil && *a.Required {
			out = append(out, a.Name)
		}
	}
	return out
}

// promptsContent judges the content blocks of prompt messages: images
// carry base64 data and an image MIME type, embedded resources a valid uri,
// a mimeType when given, and text or base64 blob.
func promptsContent(t *T, name string, raw json.RawMessage) (images, resources int) {
	var res struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(raw, &res)
	for _, m := range res.Messages {
		var blocks []map[string]json.RawMessage
		if json.Unmarshal(m.Content, &blocks) != nil {
			var one map[string]json.RawMessage
			if json.Unmarshal(m.Content, &one) == nil {
				blocks = []map[string]json.RawMessage{one}
			}
		}
		for _, b := range blocks {
			var typ string
			_ = json.Unmarshal(b["type"], &typ)
			switch typ {
			case "image":
				images++
				var data, mime string
				_ = json.Unmarshal(b["data"], &data)
				_ = json.Unmarshal(b["mimeType"], &mime)
				if _, err := base64.StdEncoding.DecodeString(data); err != nil || data == "" {
					t.Violation("prompts.content.image-base64-mime", "image content carries base64 data", fmt.Sprintf("prompt %s: image data %q is not base64", name, Clip([]byte(data))))
				}
				if !strings.HasPrefix(mime, "image/") {
					t.Violation("prompts.content.image-base64-mime", "image content carries an image MIME type", fmt.Sprintf("prompt %s: mimeType %q", name, mime))
				}
			case "resource":
				resources++
				var r struct {
					URI      string  `json:"uri"`
					MimeType *string `json:"mimeType"`
					Text     *string `json:"text"`
					Blob     *string `json:"blob"`
				}
				_ = json.Unmarshal(b["resource"], &r)
				if p, err := url.Parse(r.URI); err != nil || p.Scheme == "" {
					t.Violation("prompts.content.embedded-resource-fields", "an embedded resource has a valid uri", fmt.Sprintf("prompt %s: uri %q", name, r.URI))
				}
				if r.MimeType != nil && !strings.Contains(*r.MimeType, "/") {
					t.Violation("prompts.content.embedded-resource-fields", "an embedded resource has a fitting mimeType", fmt.Sprintf("prompt %s: mimeType %q", name, *r.MimeType))
				}
				switch {
				case (r.Text == nil) == (r.Blob == nil):
					t.Violation("prompts.content.embedded-resource-fields", "an embedded resource has either text or blob", fmt.Sprintf("prompt %s: %s", name, Clip(b["resource"])))
				case r.Blob != nil:
					if _, err := base64.StdEncoding.DecodeString(*r.Blob); err != nil {
						t.Violation("prompts.content.embedded-resource-fields", "an embedded resource blob is base64", fmt.Sprintf("prompt %s: blob is not base64", name))
					}
				}
			}
		}
	}
	return images, resources
}

var _ = Register(
	Def{
		ID: "prompts/get-content", Area: "prompts",
		Title:        "prompts/get messages carry images as base64 with an image MIME type and embedded resources with uri, mimeType and text or base64 blob",
		Requirements: []string{"prompts.content.image-base64-mime", "prompts.content.embedded-resource-fields"},
		Proofs:       []Proof{{Fault: "prompt-image-not-base64", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.RequireCapability("prompts") {
				return
			}
			c := t.Session()
			s := c.S()
			ps, err := promptsListed(t, s)
			if t.listFailed(err, spec.MethodPromptsList) {
				return
			}
			if !t.RequireFixture(len(ps) > 0, "the server lists no prompt") {
				return
			}
			imgs, ress := 0, 0
			for i, p := range ps {
				if i >= 10 {
					break
				}
				r := s.Call(t.Ctx, spec.MethodPromptsGet, map[string]any{"name": p.Name, "arguments": promptsArgs(p, false)})
				if !r.OK() {
					t.Saw("prompts/get %s: %s", p.Name, r.Describe())
					continue
				}
				a, b := promptsContent(t, p.Name, r.Result)
				imgs += a
				ress += b
			}
			if imgs+ress == 0 {
				if t.Open() {
					t.Untestable("no prompt returned image or embedded resource content to judge")
				}
				return
			}
			if t.Open() {
				t.Saw("%d image and %d embedded resource blocks", imgs, ress)
				t.Pass()
			}
		},
	},
	Def{
		ID: "prompts/missing-argument", Area: "prompts",
		Title:        "prompts/get without a required argument is refused with -32602",
		Requirements: []string{"prompts.errors.standard-codes", "prompts.get.server-validates-arguments"},
		Proofs:       []Proof{{Fault: "prompt-arguments-unchecked", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !t.RequireCapability("prompts") {
				return
			}
			c := t.Session()
			s := c.S()
			ps, err := promptsListed(t, s)
			if t.listFailed(err, spec.MethodPromptsList) {
				return
			}
			var target *mcp.Prompt
			for i := range ps {
				if len(promptsRequired(ps[i])) > 0 {
					target = &ps[i]
					break
				}
			}
			if !t.RequireFixture(target != nil, "the server lists no prompt with a required argument") {
				return
			}
			args := promptsArgs(*target, true)
			missing := promptsRequired(*target)[0]
			delete(args, missing)
			id, st := t.Ask(c, spec.MethodPromptsGet, map[string]any{"name": target.Name, "arguments": args})
			t.Expect("prompts/get %s without its required argument %q", target.Name, missing)
			o := t.AnswerOn(s, st, expect.Error(id, jsonrpc.InvalidParams))
			// A refusal with another code checked the arguments and broke
			// only the error-code rule (kubernetes' prompts in the census:
			// -32603 "Keyword parameter is required"); any other answer,
			// a result above all, did not check them.
			req := "prompts.get.server-validates-arguments"
			if o.Frame.IsResponseTo(id) && o.Frame.Msg.Error != nil {
				req = "prompts.errors.standard-codes"
			}
			t.JudgeAs(o, req)
		},
	},
	Def{
		ID: "prompts/unknown-prompt", Area: "prompts",
		Title:        "prompts/get of a prompt the server does not have is refused with -32602",
		Requirements: []string{"prompts.errors.standard-codes"},
		Proofs:       []Proof{{Fault: "unknown-prompt-wrong-code", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !t.RequireCapability("prompts") {
				return
			}
			c := t.Session()
			t.Judge(t.AskError(c, spec.MethodPromptsGet, map[string]any{"name": "mcpcheck_no_such_prompt_7f3a"}, jsonrpc.InvalidParams))
		},
	},
	// Exclusive: ref_change_lists changes the prompt list every session sees and announces it to all of them.
	Def{
		ID: "prompts/list-changed", Exclusive: true, Area: "prompts", Eras: Stateful, Labels: []string{FeatureFixture("ref_change_lists")},
		Title:        "a server with prompts.listChanged announces a change of its prompt list with notifications/prompts/list_changed",
		Requirements: []string{"prompts.list-changed.server-notifies"},
		Proofs:       []Proof{{Fault: "no-prompts-list-changed", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			featuresListChanged(t, "prompts", "prompts.listChanged", spec.MethodPromptsListChanged)
		},
	},
	// Exclusive: it compares listings taken at different moments, which a tool another check calls could change.
	Def{
		ID: "prompts/list-stable", Exclusive: true, Area: "prompts", Eras: Stateless,
		Title:        "in 2026-07-28 prompts/list gives the current set, the same on every connection",
		Requirements: []string{"prompts.list.current-set-for-caller", "prompts.list.no-connection-dependence"},
		Proofs:       []Proof{{Fault: "prompts-list-refused-stateless", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			featuresListStable(t, "prompts", spec.MethodPromptsList, "prompts", "name", "prompts.list.current-set-for-caller", "prompts.list.no-connection-dependence", "")
		},
	},
)
