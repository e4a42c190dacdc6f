package client

import (
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of pagination and of the list and call requests that
// ride on it: all rewrites of the requests the client sends. A request
// turned into a ping is answered with an empty result, which the client
// reads as a last page: on the wire, the client stopped following.

func init() {
	var shortFollow atomic.Int32
	var pastEnd atomic.Int32
	registerFaults(nil,
		Fault{Name: "cursor-trimmed", Requirement: "pagination.client.cursor-opaque", Description: "cursors are sent back with their surrounding blanks trimmed",
			Rewrite: onParams(func(method string, p map[string]json.RawMessage) bool {
				var cur string
				if json.Unmarshal(p["cursor"], &cur) != nil || strings.TrimSpace(cur) == cur {
					return false
				}
				p["cursor"], _ = json.Marshal(strings.TrimSpace(cur))
				return true
			})},
		Fault{Name: "stop-after-short-page", Requirement: "pagination.client.no-fixed-page-size", Description: "tools/list is not followed past its second page (the short one)",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method == spec.MethodToolsList && hasCursor(w) && shortFollow.Add(1) == 2 {
					return [][]byte{asPing(w)}
				}
				return [][]byte{w.Msg}
			}},
		Fault{Name: "empty-cursor-is-end", Requirement: "pagination.client.empty-cursor-not-end", Description: "nextCursor \"\" ends the listing: the request with cursor \"\" is never made",
			Rewrite: func(w Written) [][]byte {
				var p struct {
					Cursor *string `json:"cursor"`
				}
				if w.Decoded.Method == spec.MethodToolsList && json.Unmarshal(w.Decoded.Params, &p) == nil && p.Cursor != nil && *p.Cursor == "" {
					return [][]byte{asPing(w)}
				}
				return [][]byte{w.Msg}
			}},
		Fault{Name: "page-past-end", Requirement: "pagination.client.end-and-both-flows", Description: "the last tools/list page is asked for twice, the second time after it ended the list",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method != spec.MethodToolsList || !hasCursor(w) || pastEnd.Add(1) != 2 {
					return [][]byte{w.Msg}
				}
				again := strings.Replace(string(w.Msg), `"id":`+w.Decoded.ID.String(), `"id":"mcpcheck-past-end"`, 1)
				return [][]byte{w.Msg, []byte(again)}
			}},
		Fault{Name: "prompts-first-page-only", Requirement: "prompts.list.client-paginates", Description: "prompts/list is never followed past its first page",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method == spec.MethodPromptsList && hasCursor(w) {
					return [][]byte{asPing(w)}
				}
				return [][]byte{w.Msg}
			}},
		Fault{Name: "prompts-without-capability", Requirement: "prompts.capability.both-respect-negotiation", Description: "prompts/list is sent right after initialization, whatever the server declared",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method != spec.MethodInitialized {
					return [][]byte{w.Msg}
				}
				return [][]byte{w.Msg, []byte(`{"jsonrpc":"2.0","id":"mcpcheck-prompts","method":"prompts/list"}`)}
			}},
		Fault{Name: "undeclared-feature-request", Requirement: "lifecycle.operation.respect-negotiated", Description: "right after initialization the client lists prompts, whatever the server declared",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method != spec.MethodInitialized {
					return [][]byte{w.Msg}
				}
				return [][]byte{w.Msg, []byte(`{"jsonrpc":"2.0","id":"mcpcheck-undeclared","method":"prompts/list"}`)}
			}},
		Fault{Name: "tool-names-lowercased", Requirement: "tools.name.case-sensitive", Description: "tools/call sends tool names in lower case",
			Rewrite: onParams(func(method string, p map[string]json.RawMessage) bool {
				var name string
				if method != spec.MethodToolsCall || json.Unmarshal(p["name"], &name) != nil || strings.ToLower(name) == name {
					return false
				}
				p["name"], _ = json.Marshal(strings.ToLower(name))
				return true
			})},
	)
}

// hasCursor reports whether a request carries params.cursor.
func hasCursor(w Written) bool {
	var p map[string]json.RawMessage
	if json.Unmarshal(w.Decoded.Params, &p) != nil {
		return false
	}
	_, ok := p["cursor"]
	return ok
}

// asPing turns a request into a ping with the same id.
func asPing(w Written) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + w.Decoded.ID.String() + `,"method":"ping"}`)
}

// onParams rewrites the params of every request edit reports it changed
// (see editParams).
func onParams(edit func(method string, p map[string]json.RawMessage) bool) func(Written) [][]byte {
	return func(w Written) [][]byte {
		if w.Decoded.Method == "" {
			return [][]byte{w.Msg}
		}
		changed := false
		out := editParams(w.Msg, func(p map[string]json.RawMessage) { changed = edit(w.Decoded.Method, p) })
		if !changed {
			return [][]byte{w.Msg}
		}
		return [][]byte{out}
	}
}
