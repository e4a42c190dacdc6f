package client

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// Caching (2026-07-28): ttlMs says how long a result stays fresh; it is no
// polling timer, and a client that polls anyway spreads its re-fetches
// with jitter and backs off.
//
// The scenario answers tools/list with ttlMs values that change from one
// answer to the next in no monotonic order (600, 300, 900 ms, ...). A
// client whose unprompted re-fetches follow each answer's ttlMs is using
// it as a timer; a fixed-rate poller or one that backs off cannot follow
// that sequence. Re-fetches count as unprompted ("background") when the
// client sent nothing else between them; only runs of at least three are
// judged. A client that exits after its flow (as scripted clients do)
// shows no polling, and the checks are then n/a.

const cachingScenario = "mcpcheck-caching-ttl"

// cachingTTLs are the ttlMs of the stage's successive tools/list answers
// (cycled).
var cachingTTLs = []int{600, 300, 900}

// cachingMinRun is the shortest run of background re-fetches judged.
const cachingMinRun = 3

var _ = RegisterScenarios(Scenario{
	Name: cachingScenario, Eras: slEra,
	Title: "as the baseline, but each tools/list answer carries another short ttlMs (600, 300, 900 ms, ...); the case ends once the client has re-fetched the list five times",
	Stage: func(Env) stage.Config {
		var n atomic.Int64
		cfg := slFlowStage()
		cfg.Server.Rewrite = func(o server.Outgoing) [][]byte {
			if o.Method != spec.MethodToolsList || o.Request.IsZero() {
				return [][]byte{o.Msg}
			}
			ttl := cachingTTLs[int(n.Add(1)-1)%len(cachingTTLs)]
			return [][]byte{cachingWithTTL(o.Msg, ttl)}
		}
		return cfg
	},
	Done: func(c *Case) bool { return len(c.Requests(spec.MethodToolsList)) > 5 },
})

// cachingWithTTL sets ttlMs of a result message.
func cachingWithTTL(msg []byte, ttl int) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m["result"] == nil {
		return msg
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(m["result"], &res) != nil {
		return msg
	}
	res["ttlMs"] = json.RawMessage(fmt.Sprint(ttl))
	m["result"], _ = json.Marshal(res)
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// cachingRefetch is one background re-fetch: how long after the previous answer
// it came, and the ttlMs that answer carried.
type cachingRefetch struct {
	gap time.Duration
	ttl time.Duration
	at  string
}

// cachingRuns returns the runs of at least cachingMinRun consecutive background
// re-fetches of tools/list (no cursor) in a case.
func cachingRuns(c *Case) [][]cachingRefetch {
	var runs [][]cachingRefetch
	for _, conn := range slConnections(c) {
		var last *Msg
		var run []cachingRefetch
		end := func() {
			if len(run) >= cachingMinRun {
				runs = append(runs, run)
			}
			run = nil
		}
		for i := range conn {
			m := conn[i]
			if m.Msg.Shape != jsonrpc.KindRequest {
				continue
			}
			if m.Msg.Method != spec.MethodToolsList || slParams(m)["cursor"] != nil {
				end()
				last = nil
				continue
			}
			if last != nil {
				if ans, ok := c.StageAnswer(*last); ok && ans.Msg.Shape == jsonrpc.KindResponse {
					var r struct {
						TTL *int64 `json:"ttlMs"`
					}
					_ = json.Unmarshal(ans.Msg.Result, &r)
					ttl := time.Duration(-1)
					if r.TTL != nil {
						ttl = time.Duration(*r.TTL) * time.Millisecond
					}
					run = append(run, cachingRefetch{gap: m.Time.Sub(ans.Time), ttl: ttl, at: at(c, m)})
				} else {
					end()
				}
			}
			last = &conn[i]
		}
		end()
	}
	return runs
}

// cachingTTLPaced reports whether every re-fetch of a run came when the previous
// answer's ttlMs ran out (from 0.8 to 1.25 times it, plus 80 ms).
func cachingTTLPaced(run []cachingRefetch) bool {
	for _, r := range run {
		if r.ttl <= 0 || r.gap < r.ttl*8/10 || r.gap > r.ttl*5/4+80*time.Millisecond {
			return false
		}
	}
	return true
}

// cachingFixedRate reports whether the gaps of a run all lie within 5% (at least
// 15 ms) of their mean: no jitter and no backoff.
func cachingFixedRate(run []cachingRefetch) bool {
	var sum time.Duration
	for _, r := range run {
		sum += r.gap
	}
	mean := sum / time.Duration(len(run))
	tol := max(mean/20, 15*time.Millisecond)
	for _, r := range run {
		if d := r.gap - mean; d > tol || d < -tol {
			return false
		}
	}
	return true
}

func cachingDescribe(run []cachingRefetch) string {
	var parts []string
	for _, r := range run {
		parts = append(parts, fmt.Sprintf("%v after an answer with ttlMs %d", r.gap.Round(time.Millisecond), r.ttl.Milliseconds()))
	}
	return strings.Join(parts, ", ") + " (" + run[0].at + " on)"
}

// cachingJudge settles a caching check on the background re-fetch runs of
// its cases: bad says what is wrong with a run ("" for nothing).
func cachingJudge(t *T, expected string, bad func(run []cachingRefetch) string) {
	n := 0
	for _, c := range t.Cases() {
		for _, run := range cachingRuns(c) {
			n++
			if why := bad(run); why != "" {
				t.Fail(expected, why+": "+cachingDescribe(run)+" ("+c.Scenario.Name+")")
			}
		}
	}
	if n == 0 {
		t.NotApplicable(fmt.Sprintf("the client did not re-fetch tools/list in the background (%d times in a row with nothing between)", cachingMinRun) + t.whyNothing())
		return
	}
	t.Saw("%d runs of background re-fetches", n)
	t.Pass()
}

var _ = Register(
	Def{
		ID: "client/caching/ttl-not-poll-interval", Area: "caching", Eras: slEra, Scenarios: []string{cachingScenario},
		Title:        "the client does not re-fetch a list each time its ttlMs runs out, as if it were a polling timer",
		Requirements: []string{"caching.ttl.not-a-poll-interval"},
		Proofs:       []Proof{{Fault: "poll-at-ttl", Want: reports.Warn}},
		Body: func(t *T) {
			cachingJudge(t, "ttlMs is a freshness hint: the client re-fetches when it needs the data, not when the TTL runs out", func(run []cachingRefetch) string {
				if cachingTTLPaced(run) {
					return "the client re-fetched tools/list, with nothing else between, each time the previous answer's ttlMs ran out"
				}
				return ""
			})
		},
	},
	Def{
		ID: "client/caching/poll-jitter-backoff", Area: "caching", Eras: slEra, Scenarios: []string{cachingScenario},
		Title:        "a client that polls spreads its re-fetches with jitter and backs off",
		Requirements: []string{"caching.ttl.polling-jitter-backoff"},
		Proofs:       []Proof{{Fault: "poll-fixed-rate", Want: reports.Fail}},
		Body: func(t *T) {
			cachingJudge(t, "background re-fetches come at varying (jittered), growing (backed-off) intervals", func(run []cachingRefetch) string {
				if cachingFixedRate(run) {
					return "the client polled tools/list at a fixed rate"
				}
				return ""
			})
		},
	},
)
