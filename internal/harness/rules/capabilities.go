package rules

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Capabilities is a capabilities object as a peer declared it (the
// capabilities member of initialize or of its result), decoded generically
// so that members this version of mcpcheck does not model still count.
type Capabilities map[string]any

// DecodeCapabilities decodes the capabilities member of raw (an initialize
// request's params or an initialize result). ok is false when raw has no
// capabilities object.
func DecodeCapabilities(raw json.RawMessage) (Capabilities, bool) {
	var p struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	if json.Unmarshal(raw, &p) != nil || p.Capabilities == nil {
		return nil, false
	}
	return p.Capabilities, true
}

// Has reports whether the dotted capability path is declared: every member
// on the way present and not null, a final boolean true ("sampling",
// "tools.listChanged", "resources.subscribe").
func (c Capabilities) Has(path string) bool {
	var v any = map[string]any(c)
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[part]; !ok || v == nil {
			return false
		}
	}
	if b, ok := v.(bool); ok {
		return b
	}
	return true
}

// String renders the capabilities compactly for a report.
func (c Capabilities) String() string {
	if c == nil {
		return "(none)"
	}
	b, _ := json.Marshal(map[string]any(c))
	return string(b)
}

// Needed is what one message asks of its receiver's declared capabilities:
// Path is the capability it uses ("sampling", "tools.listChanged"), Why
// says how in a few words.
type Needed struct {
	Path, Why string
}

// NeedsCapability lists what m, a request or notification the peer sending
// as from puts on the wire, uses of the capabilities the two sides
// declared: for a server, the client capabilities its requests need
// (sampling, sampling.tools, elicitation and its modes, roots) in the
// client's list, and the server capabilities its notifications announce
// (tools.listChanged, resources.subscribe, ...) in the server's own; for a
// client, the server capabilities its requests use. receiver says whose
// list each entry is checked against: true for the receiver's, false for
// the sender's own declaration. Messages that need nothing give none.
//
// Elicitation modes: an elicitation capability without form and url
// members supports form mode only (as in 2025-06-18, where modes did not
// exist).
func NeedsCapability(v spec.Version, from spec.Direction, m jsonrpc.Message) (need []Needed, receiver []bool) {
	add := func(path, why string, theirs bool) {
		need = append(need, Needed{Path: path, Why: why})
		receiver = append(receiver, theirs)
	}
	if from == spec.ServerToClient {
		switch m.Method {
		case spec.MethodSamplingCreateMessage:
			add("sampling", "a sampling/createMessage request", true)
			var p struct {
				Tools      json.RawMessage `json:"tools"`
				ToolChoice json.RawMessage `json:"toolChoice"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if present(p.Tools) || present(p.ToolChoice) {
				add("sampling.tools", "a sampling/createMessage request offering tools", true)
			}
		case spec.MethodElicitationCreate:
			add("elicitation", "an elicitation/create request", true)
			var p struct {
				Mode string `json:"mode"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if v.Compare(spec.V20251125) >= 0 {
				mode := p.Mode
				if mode == "" {
					mode = "form"
				}
				add("elicitation."+mode, fmt.Sprintf("a %s-mode elicitation/create request", mode), true)
			}
		case spec.MethodRootsList:
			add("roots", "a roots/list request", true)
		case spec.MethodToolsListChanged:
			add("tools.listChanged", "notifications/tools/list_changed", false)
		case spec.MethodPromptsListChanged:
			add("prompts.listChanged", "notifications/prompts/list_changed", false)
		case spec.MethodResourcesListChanged:
			add("resources.listChanged", "notifications/resources/list_changed", false)
		case spec.MethodResourcesUpdated:
			add("resources.subscribe", "notifications/resources/updated", false)
		case spec.MethodLoggingMessage:
			add("logging", "notifications/message", false)
		}
		return need, receiver
	}
	switch {
	case strings.HasPrefix(m.Method, "tools/"):
		add("tools", "a "+m.Method+" request", true)
	case strings.HasPrefix(m.Method, "prompts/"):
		add("prompts", "a "+m.Method+" request", true)
	case m.Method == spec.MethodResourcesSubscribe || m.Method == spec.MethodResourcesUnsubscribe:
		add("resources.subscribe", "a "+m.Method+" request", true)
	case strings.HasPrefix(m.Method, "resources/"):
		add("resources", "a "+m.Method+" request", true)
	case m.Method == spec.MethodLoggingSetLevel:
		add("logging", "a logging/setLevel request", true)
	case m.Method == spec.MethodCompletionComplete:
		add("completions", "a completion/complete request", true)
	}
	return need, receiver
}

// Declared reports whether caps declare path, reading elicitation modes as
// the protocol does: an elicitation object without form and url members
// supports form mode only.
func Declared(caps Capabilities, path string) bool {
	switch path {
	case "elicitation.form":
		if !caps.Has("elicitation") {
			return false
		}
		return caps.Has("elicitation.form") || !caps.Has("elicitation.url")
	}
	return caps.Has(path)
}

func present(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}
