package server

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Negotiated capabilities, per session (lifecycle/capabilities-respected):
// every request the server sent is held to the client capabilities of the
// session it came on, as that session's initialize declared them (a raw
// handshake of a lifecycle check as much as the built-in client's), and
// every capability-bound notification to the capabilities the server
// declared to that session. Logging and prompt notifications have checks
// of their own (logging/declared-if-sent, prompts/capability-notifications).

// negotiatedIDs are the requirement, by version window.
var negotiatedIDs = []string{"lifecycle.operation.respect-negotiated", "lifecycle.operation.respect-negotiated-advisory"}

// judgeNegotiated is the body of lifecycle/capabilities-respected.
func judgeNegotiated(t *T) {
	obs, _ := t.Observed()
	n, bad := 0, 0
	for _, o := range obs {
		if o.Kind != wire.KindMessage || o.Msg.Method == "" {
			continue
		}
		need, theirs := rules.NeedsCapability(t.Version(), spec.ServerToClient, o.Msg)
		for i, nd := range need {
			if theirs[i] {
				if !rules.IsRequest(o.Msg) || o.Session == nil || !o.Session.Initialize {
					// Requests before any initialize are judged by the
					// lifecycle checks of the handshake.
					continue
				}
				n++
				if !rules.Declared(o.Session.Client, nd.Path) {
					bad++
					t.ViolateFirst(negotiatedIDs, "the server asks a client only for capabilities that session declared",
						fmt.Sprintf("%s on %s, without %s: %s", nd.Why, SessionText(o), nd.Path, wire.Excerpt(o.Raw, 200)))
					break
				}
				continue
			}
			if nd.Path == "logging" || strings.HasPrefix(nd.Path, "prompts.") {
				continue
			}
			n++
			declared, to := serverDeclared(t, o, nd.Path)
			if !declared {
				bad++
				t.ViolateFirst(negotiatedIDs, "notifications only for capabilities the server declared to the session",
					fmt.Sprintf("%s sent although the server did not declare %s %s: %s", nd.Why, nd.Path, to, wire.Excerpt(o.Raw, 200)))
				break
			}
		}
	}
	switch {
	case bad > 0:
	case n == 0:
		t.ObservedUnjudged("the server sent no request to the client and no capability-bound notification in this run", true)
	default:
		t.Saw("%d server requests and capability-bound notifications, each within what its session negotiated", n)
		t.Pass()
	}
}

// serverDeclared reports whether the server declared the capability path
// to the session o came on (its initialize result), or, for a session
// without one (the stateless era, a fresh connection), in the version;
// to says which, for an Actual text.
func serverDeclared(t *T, o Observation, path string) (declared bool, to string) {
	if o.Session != nil && o.Session.Server != nil {
		return o.Session.Server.Has(path), fmt.Sprintf("to connection %d", o.Conn)
	}
	return t.HasCapability(path), "in this version"
}
