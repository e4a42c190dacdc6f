package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// proofScenariosFile holds, per proof whose check judges more than two
// scenarios, one scenario (or two) whose recordings alone show its fault:
// the check, judging those cases alone, ends as the proof wants.
// TestProofs launches the faulty client for those scenarios only (one or
// two launches instead of up to 25), and launches every scenario when the
// outcome differs.
// The file is derived, never written by hand:
//
//	MCPCHECK_DERIVE_PROOF_SCENARIOS=1 go test -race -count=1 -run '^TestDeriveProofScenarios$' ./internal/scenarios/client
//
// Keys are "fault version transport" (a fault proves one check in a
// version over a transport), so renaming a check leaves them valid.
const proofScenariosFile = "testdata/proof_scenarios.json"

// proofKey names a proof in proofScenariosFile.
func proofKey(fault string, v spec.Version, transport wire.Transport) string {
	return fmt.Sprintf("%s %s %s", fault, v, transport)
}

var (
	hintsOnce sync.Once
	hints     map[string][]string
	hintsErr  error
)

// proofScenarios reads proofScenariosFile (none: no proof is narrowed).
func proofScenarios(t testing.TB) map[string][]string {
	t.Helper()
	hintsOnce.Do(func() {
		b, err := os.ReadFile(proofScenariosFile)
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err != nil {
			hintsErr = err
			return
		}
		if err := json.Unmarshal(b, &hints); err != nil {
			hintsErr = fmt.Errorf("%s: %v", proofScenariosFile, err)
		}
	})
	if hintsErr != nil {
		t.Fatal(hintsErr)
	}
	return hints
}

// proofSetting is where a proof runs: its version ("" in the proof: the
// newest the check applies to) and transport (default stdio).
func proofSetting(d Def, p Proof) (spec.Version, wire.Transport) {
	v := p.Version
	if v == "" {
		v = newestVersion(d)
	}
	tr := p.Transport
	if tr == "" {
		tr = Stdio
	}
	return v, tr
}

// TestProofScenarioHintsAreValid: every entry of proofScenariosFile names
// a proof that exists, and scenarios of its check that run in the
// proof's version over its transport. It launches nothing.
func TestProofScenarioHintsAreValid(t *testing.T) {
	proofs := map[string]Def{}
	for _, d := range Checks() {
		for _, p := range d.Proofs {
			v, tr := proofSetting(d, p)
			proofs[proofKey(p.Fault, v, tr)] = d
		}
	}
	for key, names := range proofScenarios(t) {
		d, ok := proofs[key]
		if !ok {
			t.Errorf("%s names the proof %q, which no check has: derive the file again (see proofScenariosFile)", proofScenariosFile, key)
			continue
		}
		if len(names) == 0 {
			t.Errorf("%s: proof %q lists no scenario", proofScenariosFile, key)
		}
		var v spec.Version
		var tr, fault string
		fmt.Sscanf(key, "%s %s %s", &fault, &v, &tr)
		for _, name := range names {
			s := scenarioNamed(name)
			switch {
			case s == nil:
				t.Errorf("%s: proof %q of %s names scenario %q, which is not registered", proofScenariosFile, key, d.ID, name)
			case !s.runsIn(v, wire.Transport(tr)):
				t.Errorf("%s: proof %q of %s names scenario %q, which does not run in %s over %s", proofScenariosFile, key, d.ID, name, v, tr)
			case len(d.Scenarios) > 0 && !contains(d.Scenarios, name):
				t.Errorf("%s: proof %q of %s names scenario %q, which the check does not judge", proofScenariosFile, key, d.ID, name)
			}
		}
	}
}

// judgeAlone is d's verdict on the cases cs alone, as a run of their
// scenarios only would judge them.
func judgeAlone(d Def, v spec.Version, transport wire.Transport, cs ...*Case) reports.Check {
	run, err := harness.NewRun(harness.RunOptions{Transport: transport})
	if err != nil {
		return reports.Check{Outcome: reports.Error, Reason: err.Error()}
	}
	return run.Scope(v, transport).Do(d.ID, d.Title, d.Requirements, func(c *harness.Check) {
		d.Body(&T{Check: c, Ctx: context.Background(), transport: transport, cases: cs})
	})
}

// cost ranks the cases a proof may be narrowed to: each case the harness
// had to time out counts as much as a thousand events of traffic.
func cost(cs ...*Case) int {
	n := 0
	for _, c := range cs {
		n += len(c.Events)
		if c.TimedOut {
			n += 1000
		}
	}
	return n
}

// narrowest is the cheapest one case, or else pair of cases, of cases on
// which d alone gives want (nil: none).
func narrowest(d Def, v spec.Version, transport wire.Transport, want reports.Outcome, cases []*Case) []*Case {
	var best []*Case
	for _, c := range cases {
		if judgeAlone(d, v, transport, c).Outcome == want && (best == nil || cost(c) < cost(best...)) {
			best = []*Case{c}
		}
	}
	if best != nil {
		return best
	}
	for i, a := range cases {
		for _, b := range cases[i+1:] {
			if judgeAlone(d, v, transport, a, b).Outcome == want && (best == nil || cost(a, b) < cost(best...)) {
				best = []*Case{a, b}
			}
		}
	}
	return best
}

// TestDeriveProofScenarios writes proofScenariosFile: it runs every proof
// that fails or warns on more than two scenarios once, over all of them,
// and judges its check on each case alone, then on each pair; the
// cheapest case (or else pair) that alone gives the proof's outcome is the
// proof's. A proof no case or pair proves gets no entry (TestProofs runs
// it on every scenario).
func TestDeriveProofScenarios(t *testing.T) {
	if os.Getenv("MCPCHECK_DERIVE_PROOF_SCENARIOS") != "1" {
		t.Skip("writes " + proofScenariosFile + "; set MCPCHECK_DERIVE_PROOF_SCENARIOS=1")
	}
	mcpcheckBinary(t)
	var mu sync.Mutex
	out := map[string][]string{}
	t.Run("proofs", func(t *testing.T) {
		for _, d := range Checks() {
			for i, p := range d.Proofs {
				d, p := d, p
				if p.Want != reports.Fail && p.Want != reports.Warn {
					continue
				}
				v, tr := proofSetting(d, p)
				t.Run(fmt.Sprintf("%s/%d-%s", d.ID, i, p.Fault), func(t *testing.T) {
					t.Parallel()
					res := runSuite(t, Config{Launch: referenceLaunch(t, tr, p.Fault), Versions: []spec.Version{v}, Only: []string{d.ID}})
					if len(res.cases) < 3 {
						return
					}
					best := narrowest(d, v, tr, p.Want, res.cases)
					if best == nil {
						t.Logf("no case or pair of the %d gives %s", len(res.cases), p.Want)
						return
					}
					var names []string
					for _, c := range best {
						names = append(names, c.Scenario.Name)
					}
					t.Logf("%v alone give %s (%d cases ran)", names, p.Want, len(res.cases))
					mu.Lock()
					out[proofKey(p.Fault, v, tr)] = names
					mu.Unlock()
				})
			}
		}
	})
	if t.Failed() {
		t.Fatal("not written: a proof failed")
	}
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b, err := json.MarshalIndent(out, "", "  ") // encoding/json sorts map keys
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(proofScenariosFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(proofScenariosFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d proofs narrowed: %v", len(keys), keys)
}
