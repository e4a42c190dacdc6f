package client

import (
	"context"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	refclient "github.com/mcpcheck/mcpcheck/internal/reference/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// mcpcheckBinary builds cmd/mcpcheck once per test process: it is both the
// relay stdio clients start and the reference client the suite judges.
func mcpcheckBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and launches the mcpcheck binary")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpcheck-client-suite")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "mcpcheck")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/mcpcheck/mcpcheck/cmd/mcpcheck").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// referenceLaunch is the reference client in conformance mode, with fault
// switches, over transport.
func referenceLaunch(t testing.TB, transport wire.Transport, faults ...string) Launch {
	bin := mcpcheckBinary(t)
	flags := ""
	for _, f := range faults {
		flags += " --fault " + f
	}
	if transport == Stdio {
		return Launch{Command: bin + " reference client --timeout 10s" + flags + " conformance --stdio {server-line}", Stdio: true, Relay: bin}
	}
	return Launch{Command: bin + " reference client --timeout 10s" + flags + " conformance"}
}

func runSuite(t *testing.T, cfg Config) Result {
	t.Helper()
	if cfg.CaseTimeout == 0 {
		cfg.CaseTimeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("client suite: %v", err)
	}
	for _, p := range res.Problems {
		t.Errorf("harness problem: %v", p)
	}
	return res
}

func describe(c reports.Check) string {
	s := fmt.Sprintf("%s [%s %s]: %s", c.ID, c.Version, c.Transport, c.Outcome)
	if c.Reason != "" {
		s += " — " + c.Reason
	}
	if c.Actual != "" {
		s += "\n    expected: " + c.Expected + "\n    actual:   " + c.Actual
	}
	return s
}

// TestReferenceClientIsClean: the reference client, acting out every
// scenario, breaks no requirement in any version over stdio or HTTP.
func TestReferenceClientIsClean(t *testing.T) {
	t.Parallel()
	for _, tr := range []wire.Transport{Stdio, Streamable} {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			res := runSuite(t, Config{Launch: referenceLaunch(t, tr)})
			for _, c := range res.Report.Checks {
				if c.Outcome == reports.Fail || c.Outcome == reports.Warn || c.Outcome == reports.Error {
					t.Errorf("%s", describe(c))
				}
			}
			if res.Silent > 0 {
				t.Errorf("the reference client sent nothing in %d of %d cases", res.Silent, res.Cases)
			}
		})
	}
}

// newestVersion is the newest version in which d applies.
func newestVersion(d Def) spec.Version {
	cat, _ := catalog.Default()
	for i := len(spec.Versions) - 1; i >= 0; i-- {
		v := spec.Versions[i]
		if ok, _ := d.InWindow(v); !ok {
			continue
		}
		for _, id := range d.Requirements {
			if r, ok := cat.Get(id); ok && r.In(v) {
				return v
			}
		}
	}
	return ""
}

// TestProofs runs every proof but the quiet ones (TestQuietProofs): the check against the reference client with
// the fault switch on gives the outcome the proof expects. A proof listed
// in proofScenariosFile is run first on the scenario listed there, where
// its fault shows (one launch of the client instead of every scenario its
// check judges); when that does not give the proof's outcome, on all of
// them, as every other proof is.
func TestProofs(t *testing.T) {
	t.Parallel()
	runProofs(t, false)
}

// TestQuietProofs runs the proofs that hold only on a quiet machine
// (Proof.Quiet), in the slow tier, where nothing else runs beside them.
func TestQuietProofs(t *testing.T) {
	sharedtest.SlowTier(t)
	runProofs(t, true)
}

// runProofs runs every proof whose Quiet is quiet, each as a subtest.
func runProofs(t *testing.T, quiet bool) {
	mcpcheckBinary(t)
	hints := proofScenarios(t)
	for _, d := range Checks() {
		for i, p := range d.Proofs {
			d, p := d, p
			if p.Quiet != quiet {
				continue
			}
			v, tr := proofSetting(d, p)
			t.Run(fmt.Sprintf("%s/%d-%s", d.ID, i, p.Fault), func(t *testing.T) {
				t.Parallel()
				cfg := Config{Launch: referenceLaunch(t, tr, p.Fault), Versions: []spec.Version{v}, Only: []string{d.ID}}
				if hint := hints[proofKey(p.Fault, v, tr)]; len(hint) > 0 {
					narrow := cfg
					narrow.scenarios = hint
					c := proofCheck(t, runSuite(t, narrow))
					if c.Outcome == p.Want {
						return
					}
					t.Logf("on %v alone: %s; running every scenario of the check (derive %s again)", hint, describe(c), proofScenariosFile)
				}
				if c := proofCheck(t, runSuite(t, cfg)); c.Outcome != p.Want {
					t.Errorf("with fault %s in %s over %s: %s, want %s", p.Fault, v, tr, describe(c), p.Want)
				}
			})
		}
	}
}

// proofCheck is the one check a proof's run judged.
func proofCheck(t *testing.T, res Result) reports.Check {
	t.Helper()
	if len(res.Report.Checks) != 1 {
		t.Fatalf("%d checks ran, want 1", len(res.Report.Checks))
	}
	return res.Report.Checks[0]
}

// TestEveryCheckIsProvenToFire: every client check has a proof or a written
// reason why none can exist; every proof names a fault switch of the
// reference client that breaks a requirement the check cites.
func TestEveryCheckIsProvenToFire(t *testing.T) {
	faults := map[string]refclient.Fault{}
	for _, f := range refclient.Faults() {
		faults[f.Name] = f
	}
	var missing []string
	for _, d := range Checks() {
		if len(d.Proofs) == 0 && d.Unprovable == "" {
			missing = append(missing, d.ID)
		}
		for _, p := range d.Proofs {
			f, ok := faults[p.Fault]
			switch {
			case !ok:
				t.Errorf("%s: proof names fault %q, which the reference client does not have", d.ID, p.Fault)
			case !contains(d.Requirements, f.Requirement):
				t.Errorf("%s: fault %s breaks %s, which the check does not cite", d.ID, p.Fault, f.Requirement)
			}
			if v := p.Version; v != "" {
				if ok, why := d.InWindow(v); !ok {
					t.Errorf("%s: proof in %s, where the check does not run: %s", d.ID, v, why)
				}
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d client checks have neither a proof nor a reason why none can exist: %s", len(missing), strings.Join(missing, ", "))
	}
	used := map[string]bool{}
	for _, d := range Checks() {
		for _, p := range d.Proofs {
			used[p.Fault] = true
		}
	}
	for name := range faults {
		if !used[name] {
			t.Errorf("reference client fault %s proves no check", name)
		}
	}
}
