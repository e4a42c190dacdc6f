package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"io"
	"net/http/httptest"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Proofs live beside their checks (Def.Proofs); the tests here walk the
// registry. The clean side of every proof, that the check passes against
// the faithful reference server, is the suites' own clean runs
// (TestSuiteAgainstReference, TestSuiteOverHTTPAgainstReference,
// TestTransportSuiteOverHTTP, TestFeatureChecksAgainstReference); a proxy
// proof with a Good mode also runs the check behind that faithful mode.

// faultRequirements lists the reference server's fault switches
// (mcpcheck reference server --list-faults): name -> requirement broken.
func faultRequirements(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command(mcpcheckBinary(t), "reference", "server", "--list-faults").Output()
	if err != nil {
		t.Fatalf("--list-faults: %v", err)
	}
	faults := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); i > 0 && len(f) >= 2 {
			faults[f[0]] = f[1]
		}
	}
	return faults
}

// TestEveryCheckIsProvenToFire: every registered check declares a proof,
// or a written reason why none can exist; every proof names a fault switch
// of the reference server that breaks a requirement the check cites, runs
// in a version where the check applies, and names only registered checks
// as Also; every fault switch proves some check.
func TestEveryCheckIsProvenToFire(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the reference server")
	}
	faults := faultRequirements(t)
	used := map[string]bool{}
	var missing []string
	for _, d := range Checks() {
		if len(d.Proofs) == 0 && d.Unprovable == "" {
			missing = append(missing, d.ID)
		}
		if len(d.Proofs) > 0 && d.Unprovable != "" {
			t.Errorf("%s has proofs and is also called unprovable (%s)", d.ID, d.Unprovable)
		}
		for _, p := range d.Proofs {
			if ok, why := d.InWindow(p.Version); !ok {
				t.Errorf("%s: proof in %s, where the check does not apply: %s", d.ID, p.Version, why)
			}
			for _, id := range p.Also {
				if _, ok := lookupCheck(id); !ok {
					t.Errorf("%s: proof runs %s first, which is not a registered check", d.ID, id)
				}
			}
			if p.Fault == "" {
				continue
			}
			used[p.Fault] = true
			req, ok := faults[p.Fault]
			switch {
			case !ok:
				t.Errorf("%s: the reference server has no fault switch %q", d.ID, p.Fault)
			case !contains(d.Requirements, req):
				t.Errorf("%s: fault %s breaks %s, which the check does not cite (%v)", d.ID, p.Fault, req, d.Requirements)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d check(s) have no proof and no reason why not: %v", len(missing), missing)
	}
	var unused []string
	for name := range faults {
		if !used[name] {
			unused = append(unused, name)
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("reference server fault switches that prove no check: %v", unused)
	}
}

// TestProofs runs every proof: with the fault switched on (or behind the
// misbehaving proxy mode) the check ends as the proof says; behind a Good
// proxy mode it passes.
func TestProofs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	mcpcheckBinary(t)
	for _, d := range Checks() {
		for i, p := range d.Proofs {
			d, p := d, p
			t.Run(fmt.Sprintf("%s/%d-%s%s", d.ID, i, p.Fault, p.Proxy), func(t *testing.T) {
				t.Parallel()
				runProof(t, d, p)
			})
		}
	}
}

// runProof runs one proof of check d.
func runProof(t *testing.T, d Def, p Proof) {
	cfg := Config{Only: append([]string{d.ID}, p.Also...), Versions: []spec.Version{p.Version}}
	if len(p.Also) > 0 {
		// A passive check judges what the active ones provoke; under a
		// loaded -race run a short step can end their exchange before the
		// fault shows, so give them room.
		cfg.Session = session.Config{Timeout: 15 * time.Second}
	}
	if p.Proxy != "" {
		modes := []string{p.Proxy}
		if p.Good != "" {
			modes = append(modes, p.Good)
		}
		for _, mode := range modes {
			want := p.Want
			if mode != p.Proxy {
				want = reports.Pass
			}
			if mode == "plain" {
				mode = ""
			}
			tg := target.URL(proxyReference(t, mode))
			tg.Transport = target.Streamable
			tg.Headers = []target.Header{{Name: "Authorization", Value: proxyGoodToken}}
			if c, ok := expectOutcome(t, runTarget(t, tg, cfg), d.ID, p.Version, want, "proxy mode "+orPlain(mode)); ok {
				assertEvidence(t, c)
			}
		}
		return
	}
	var res Result
	switch p.Transport {
	case "", "stdio":
		if r, ok := inProcessProof(t, d, p, cfg, pipeReference(p.Fault), "over a pipe"); ok {
			res = r
			break
		}
		res = runReference(t, cfg, p.Fault)
	case "streamable":
		if r, ok := inProcessHTTPProof(t, d, p, cfg, target.Streamable); ok {
			res = r
			break
		}
		res = runURL(t, httpReference(t, p.Fault), target.Streamable, cfg)
	case "sse":
		if r, ok := inProcessHTTPProof(t, d, p, cfg, target.SSE); ok {
			res = r
			break
		}
		res = runURL(t, legacySSEURL(httpReference(t, p.Fault)), target.SSE, cfg)
	}
	if c, ok := expectOutcome(t, res, d.ID, p.Version, p.Want, "fault "+p.Fault+" over "+string(orStdio(p.Transport))); ok {
		t.Logf("%s: %s\n  expected: %s\n  actual: %s", c.Outcome, d.ID, c.Expected, c.Actual)
		assertEvidence(t, c)
	}
}

// pipeReference is the reference server with faults served in process
// over a pair of pipes, a server of its own per connection as a process
// per connection is: stdio without the process (see target.Pipe).
func pipeReference(faults ...string) target.Target {
	tg := target.Pipe(func(ctx context.Context, in io.Reader, out io.Writer) error {
		srv, err := server.New(server.Options{PageSize: 3, Faults: faults})
		if err != nil {
			return err
		}
		defer srv.Close()
		if err := srv.ServeStdio(ctx, in, out, io.Discard); !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	})
	tg.Timeouts = target.Timeouts{Step: 5 * time.Second, Grace: time.Second}
	return tg
}

// inProcessHTTPReference serves the reference server with faults (and
// the legacy HTTP+SSE endpoint) in this process on a loopback port, as
// 'mcpcheck reference server --http 127.0.0.1:0 --legacy-sse' does,
// without starting a process; it returns the MCP endpoint's URL.
func inProcessHTTPReference(t *testing.T, faults ...string) string {
	t.Helper()
	srv, err := server.New(server.Options{PageSize: 3, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler(server.HTTPOptions{LegacySSE: true}))
	t.Cleanup(func() {
		srv.Close()
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs.URL + "/mcp"
}

// inProcessHTTPProof runs an HTTP proof against inProcessHTTPReference
// (see inProcessProof). Faults of the authorization area need the
// authorization server a process of the reference server is given: they
// run against the process.
func inProcessHTTPProof(t *testing.T, d Def, p Proof, cfg Config, tr target.Transport) (Result, bool) {
	t.Helper()
	if strings.HasPrefix(p.Fault, "auth-") {
		return Result{}, false
	}
	u := inProcessHTTPReference(t, p.Fault)
	if tr == target.SSE {
		u = legacySSEURL(u)
	}
	tg := target.URL(u)
	tg.Transport = tr
	tg.Timeouts = target.Timeouts{Start: 10 * time.Second, Step: 5 * time.Second, Grace: time.Second}
	return inProcessProof(t, d, p, cfg, tg, "in process over "+string(tr))
}

// inProcessProof runs a proof against tg, the faulty reference server
// served in this process (pipeReference, inProcessHTTPReference), whose
// messages are the ones its process would send, without starting one. It
// reports false when that run does not show what the proof wants (a
// harness problem, or another outcome: a check may judge the process
// itself, its exit or its stderr), and the caller then runs the proof
// against the process, whose verdict alone counts.
func inProcessProof(t *testing.T, d Def, p Proof, cfg Config, tg target.Target, how string) (Result, bool) {
	t.Helper()
	cfg.Target = tg
	if cfg.Session.Timeout == 0 {
		cfg.Session = session.Config{Timeout: 5 * time.Second}
	}
	cfg.ToolPolicy = ownTools(cfg.ToolPolicy)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	c, ran := outcomeOf(res, d.ID, p.Version)
	switch {
	case err != nil || len(res.Problems) > 0:
		t.Logf("%s: run error %v, harness problems %v; running the process", how, err, res.Problems)
	case !ran || c.Outcome != p.Want:
		t.Logf("%s: %s in %s ended %s (%s), want %s; running the process", how, d.ID, p.Version, c.Outcome, c.Actual, p.Want)
	default:
		return res, true
	}
	return Result{}, false
}

func orPlain(mode string) string {
	if mode == "" {
		return "plain"
	}
	return mode
}

func orStdio(tr wire.Transport) wire.Transport {
	if tr == "" {
		return wire.TransportStdio
	}
	return tr
}

func lookupCheck(id string) (Def, bool) { return Lookup(id) }

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
