package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
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
	Name: cachingScenario, Eras: StatelessEra,
	Title: "as the baseline, but each tools/list answer carries another short ttlMs (600, 300, 900 ms, ...); the case ends once the client has re-fetched the list ten times",
	Stage: func(Env) stage.Config {
		var n atomic.Int64
		cfg := StatelessFlowStage()
		cfg.Server.Rewrite = func(o server.Outgoing) [][]byte {
			if o.Method != spec.MethodToolsList || o.Request.IsZero() {
				return [][]byte{o.Msg}
			}
			ttl := cachingTTLs[int(n.Add(1)-1)%len(cachingTTLs)]
			return [][]byte{cachingWithTTL(o.Msg, ttl)}
		}
		return cfg
	},
	Done: func(c *Case) bool { return len(c.Requests(spec.MethodToolsList)) > 10 },
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

// cachingAt is when a message crossed the wire as close to the client as
// the stage saw it: over HTTP when the handler took the request or first
// wrote the answer (Began), else when it was recorded.
func cachingAt(m Msg) time.Time {
	if !m.Began.IsZero() {
		return m.Began
	}
	return m.Time
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
			if m.Msg.Method != spec.MethodToolsList || StatelessParams(m)["cursor"] != nil {
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
					run = append(run, cachingRefetch{gap: cachingAt(m).Sub(cachingAt(ans)), ttl: ttl, at: Where(c, m)})
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

// cachingTTLPaced reads a run's gaps against the previous answers' ttlMs.
// Delays on the way (see the fixed-rate verdict below) only ever add to a
// gap, so a client that re-fetches when the TTL runs out shows gaps from
// 0.8 to 1.25 times the TTL (plus 80 ms) on at least two in three of
// them, the delayed ones above: paced. A gap shorter than 0.8 times its
// TTL, or two in three of them later than delays can explain
// (cachingNoise), is a client that does not keep time by the TTL: not
// paced. In between, the figures do not tell a TTL-paced client delayed
// by a busy machine from one that is not: undecided.
func cachingTTLPaced(run []cachingRefetch) (paced, undecided bool) {
	// late is how far past its window each gap came, as a share of what
	// delays can explain for that gap's TTL (over 1: more than delays).
	late := make([]float64, 0, len(run))
	for _, r := range run {
		if r.ttl <= 0 || r.gap < r.ttl*8/10 {
			return false, false
		}
		over := max(0, r.gap-(r.ttl*5/4+80*time.Millisecond))
		late = append(late, float64(over)/float64(cachingNoise(r.ttl)))
	}
	if len(late) == 0 {
		return false, false
	}
	slices.Sort(late)
	least := late[:(2*len(late)+2)/3] // the smallest two thirds, rounded up
	switch worst := least[len(least)-1]; {
	case worst == 0:
		return true, false
	case worst > 1:
		return false, false
	}
	return false, true
}

// The fixed-rate verdict. A gap as the stage sees it is the client's
// interval plus delays (the answer's way to the client, the client's timer
// firing late, the request's way back), and the delays only ever add:
// under load they grow to tens or hundreds of milliseconds, now and then
// to seconds. A fixed-rate poller's gaps therefore pile up at their least
// value, with the delayed ones above; a jittering client's spread over
// its jitter range; a backing-off client's grow by a factor. So the
// verdict looks at the smallest two thirds of the gaps (the delayed ones
// fall in the rest): all within cachingFixedTol of the least is a fixed
// rate; spread by more than cachingNoise of the least cannot be delay
// alone on two gaps in three, and shows jitter or backoff; in between,
// the figures do not tell jitter from delay and the run is undecided.

// cachingFixedMin is how many gaps a fixed-rate verdict asks for. The
// tolerance is tight (a jitter of +-10% spreads gaps over 20% of the
// interval), and so many gaps keep random jitter from being taken for a
// fixed rate by chance.
const cachingFixedMin = 8

// cachingNoise is how much delay on the way can add to two gaps in three
// above the least gap lo: 20% of lo, at least 100 ms.
func cachingNoise(lo time.Duration) time.Duration {
	return max(lo/5, 100*time.Millisecond)
}

// cachingFixedTol is how far above the least gap lo the clustered gaps of
// a fixed-rate poller may lie: 2% of lo, at least 5 ms.
func cachingFixedTol(lo time.Duration) time.Duration {
	return max(lo/50, 5*time.Millisecond)
}

// cachingRate is the verdict on a run's gaps.
type cachingRate int

const (
	cachingVaried    cachingRate = iota // jitter or backoff shows
	cachingFixed                        // a fixed rate shows
	cachingUndecided                    // delay alone can explain the spread
)

// cachingRateOf judges the gaps of a run (see cachingFixedMin).
func cachingRateOf(gaps []time.Duration) cachingRate {
	s := slices.Clone(gaps)
	slices.Sort(s)
	if len(s) == 0 {
		return cachingUndecided
	}
	lo, hi := s[0], s[(2*len(s)+2)/3-1]
	switch {
	case hi-lo > cachingNoise(lo):
		return cachingVaried
	case len(s) >= cachingFixedMin && hi-lo <= cachingFixedTol(lo):
		return cachingFixed
	}
	return cachingUndecided
}

func cachingGaps(run []cachingRefetch) []time.Duration {
	out := make([]time.Duration, len(run))
	for i, r := range run {
		out[i] = r.gap
	}
	return out
}

func cachingDescribe(run []cachingRefetch) string {
	var parts []string
	for _, r := range run {
		parts = append(parts, fmt.Sprintf("%v after an answer with ttlMs %d", r.gap.Round(time.Millisecond), r.ttl.Milliseconds()))
	}
	return strings.Join(parts, ", ") + " (" + run[0].at + " on)"
}

// cachingJudge settles a caching check on the background re-fetch runs of
// its cases: bad says what is wrong with a run ("" for nothing), undecided
// why a run could not be judged ("" when it could); a check with an
// undecided run and no bad one is untestable.
func cachingJudge(t *T, expected string, bad, undecided func(run []cachingRefetch) string) {
	n, failed := 0, false
	var open []string
	for _, c := range t.Cases() {
		for _, run := range cachingRuns(c) {
			n++
			if why := bad(run); why != "" {
				failed = true
				t.Fail(expected, why+": "+cachingDescribe(run)+" ("+c.Scenario.Name+")")
			} else if undecided != nil {
				if why := undecided(run); why != "" {
					open = append(open, why+": "+cachingDescribe(run)+" ("+c.Scenario.Name+")")
				}
			}
		}
	}
	if n == 0 {
		t.NotApplicable(fmt.Sprintf("the client did not re-fetch tools/list in the background (%d times in a row with nothing between)", cachingMinRun) + t.WhyNothing())
		return
	}
	if !failed && len(open) > 0 {
		t.Untestable(strings.Join(open, "; "))
		return
	}
	t.Saw("%d runs of background re-fetches", n)
	t.Pass()
}

var _ = Register(
	Def{
		ID: "client/caching/ttl-not-poll-interval", Area: "caching", Eras: StatelessEra, Scenarios: []string{cachingScenario},
		Title:        "the client does not re-fetch a list each time its ttlMs runs out, as if it were a polling timer",
		Requirements: []string{"caching.ttl.not-a-poll-interval"},
		Proofs:       []Proof{{Fault: "poll-at-ttl", Want: reports.Warn}},
		Body: func(t *T) {
			cachingJudge(t, "ttlMs is a freshness hint: the client re-fetches when it needs the data, not when the TTL runs out", func(run []cachingRefetch) string {
				if paced, _ := cachingTTLPaced(run); paced {
					return "the client re-fetched tools/list, with nothing else between, each time the previous answer's ttlMs ran out (two in three of the gaps at the TTL, the others later)"
				}
				return ""
			}, func(run []cachingRefetch) string {
				if _, undecided := cachingTTLPaced(run); undecided {
					return "the gaps between background re-fetches are all at least 0.8 times the TTL, and later than a TTL-paced client's by no more than delays on the way (machine load) can explain: paced by the TTL or not, the figures do not tell"
				}
				return ""
			})
		},
	},
	Def{
		ID: "client/caching/poll-jitter-backoff", Area: "caching", Eras: StatelessEra, Scenarios: []string{cachingScenario},
		Title:        "a client that polls spreads its re-fetches with jitter and backs off",
		Requirements: []string{"caching.ttl.polling-jitter-backoff"},
		// Over HTTP the stage stamps the client's requests when its handler
		// takes them: no relay process between, less delay in the gaps.
		Proofs: []Proof{{Fault: "poll-fixed-rate", Transport: Streamable, Want: reports.Fail, Quiet: true}},
		Body: func(t *T) {
			cachingJudge(t, "background re-fetches come at varying (jittered), growing (backed-off) intervals", func(run []cachingRefetch) string {
				if cachingRateOf(cachingGaps(run)) == cachingFixed {
					return fmt.Sprintf("the client polled tools/list at a fixed rate (two thirds of the gaps within %v of the least)", cachingFixedTol(slices.Min(cachingGaps(run))).Round(time.Millisecond))
				}
				return ""
			}, func(run []cachingRefetch) string {
				switch {
				case cachingRateOf(cachingGaps(run)) != cachingUndecided:
					return ""
				case len(run) < cachingFixedMin:
					return fmt.Sprintf("%d gaps between background re-fetches, too few to tell a fixed rate from jitter (%d needed), and they differ by less than delays can", len(run), cachingFixedMin)
				}
				lo := slices.Min(cachingGaps(run))
				return fmt.Sprintf("the least two thirds of the gaps between background re-fetches differ by more than a fixed rate allows (%v) and by less than delays on the way (machine load) can explain (%v)", cachingFixedTol(lo).Round(time.Millisecond), cachingNoise(lo).Round(time.Millisecond))
			})
		},
	},
)
