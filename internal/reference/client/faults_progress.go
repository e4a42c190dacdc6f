package client

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of progress: rewrites of the tokens the client puts on
// its requests, and of the progress it reports.

func init() {
	registerFaults(nil,
		Fault{Name: "progress-token-float", Requirement: "progress.token.string-or-integer", Description: "progressToken is sent as the number 1.5",
			Rewrite: onParams(setProgressToken(`1.5`))},
		Fault{Name: "progress-token-reused", Requirement: "progress.token.unique-among-active", Description: "every request asking for progress carries the same progressToken",
			Rewrite: onParams(setProgressToken(`"mcpcheck-same-token"`))},
		Fault{Name: "progress-unknown-token", Requirement: "progress.notify.only-active-tokens", Description: "right after initialization the client reports progress for a token nobody gave it",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method != spec.MethodInitialized {
					return [][]byte{w.Msg}
				}
				return [][]byte{w.Msg, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpcheck-nobody","progress":1}}`)}
			}},
	)
}

// setProgressToken replaces the progressToken of every request carrying
// one with the JSON value tok.
func setProgressToken(tok string) func(string, map[string]json.RawMessage) bool {
	return func(_ string, p map[string]json.RawMessage) bool {
		var meta map[string]json.RawMessage
		if json.Unmarshal(p["_meta"], &meta) != nil || meta == nil {
			return false
		}
		if _, ok := meta[mcp.MetaProgressToken]; !ok {
			return false
		}
		meta[mcp.MetaProgressToken] = json.RawMessage(tok)
		p["_meta"], _ = json.Marshal(meta)
		return true
	}
}
