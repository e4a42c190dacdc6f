package client

import (
	"github.com/mcpcheck/mcpcheck/reports"
)

// Discovery (2026-07-28): on stdio, where no HTTP status can tell a
// legacy server, a client opens with server/discover; the stdio binding
// asks the same (client/transport-stdio/stateless-probe-first), this check holds
// the client to the discovery page's wording of it.

var _ = Register(Def{
	ID: "client/discovery/probe-first-on-stdio", Area: "discovery", Eras: StatelessEra, Transports: StatelessStdio,
	Title:        "on stdio the client sends server/discover before any other request",
	Requirements: []string{"discovery.client.probe-first-on-stdio"},
	Proofs:       []Proof{{Fault: "request-before-discover", Want: reports.Warn}},
	Body:         StatelessProbeFirst,
})
