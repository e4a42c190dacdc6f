package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Caching fields of cacheable results (2026-07-28): a ttl is never
// negative.

var _ = Register(
	Def{
		ID: "caching/ttl-non-negative", Area: "caching", Eras: Stateless, Passive: true,
		Title:        "every ttlMs on a result is a non-negative integer",
		Requirements: []string{"caching.ttl.server-non-negative"},
		Proofs:       []Proof{{Proxy: "ttl-negative", Good: "plain", Version: spec.V20260728, Transport: "streamable", Also: []string{"discovery/discover-result"}, Want: reports.Fail}},
		Body: func(t *T) {
			t.JudgeObserved(PassiveRule{
				Expected: "ttlMs a non-negative integer",
				Limit:    1,
				None:     "no result carried ttlMs",
				Saw:      "%d results with ttlMs, all non-negative integers",
			}, func(o Observation) (bool, string) {
				if o.Kind != wire.KindMessage || o.Msg.Result == nil {
					return false, ""
				}
				m, err := resultObject(o.Msg.Result)
				if err != nil {
					return false, ""
				}
				raw, ok := m["ttlMs"]
				if !ok {
					return false, ""
				}
				var v json.Number
				d := json.NewDecoder(strings.NewReader(string(raw)))
				d.UseNumber()
				if d.Decode(&v) != nil {
					return true, fmt.Sprintf("the %s result has ttlMs %s", o.Answers, raw)
				}
				if i, err := v.Int64(); err != nil || i < 0 {
					return true, fmt.Sprintf("the %s result has ttlMs %s", o.Answers, raw)
				}
				return true, ""
			})
		},
	},
)
