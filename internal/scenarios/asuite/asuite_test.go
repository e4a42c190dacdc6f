package asuite

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

const testResource = "http://127.0.0.1:1/mcp"

// startAS starts mcpcheck's authserver with faults on.
func startAS(t *testing.T, faults ...string) string {
	t.Helper()
	as, err := authserver.Start("127.0.0.1:0", authserver.Options{AllowHTTPMetadataDocuments: true, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	return as.URL
}

func run(t *testing.T, issuer string, only []string, versions ...spec.Version) reports.Run {
	t.Helper()
	res, err := Run(context.Background(), Config{Issuer: issuer, Only: only, Versions: versions, Resource: testResource, Scope: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("harness problems: %v", res.Problems)
	}
	return res.Report
}

// TestChecksPassOnTheAuthserver is the clean side of the proofs: against
// mcpcheck's authserver every check passes in every version its
// requirements are in force in, and is n/a outside.
func TestChecksPassOnTheAuthserver(t *testing.T) {
	rep := run(t, startAS(t), nil, DefaultVersions...)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	judged := map[string]int{}
	for _, c := range rep.Checks {
		inForce := false
		for _, id := range c.Requirements {
			if r, ok := cat.Get(id); ok && r.In(c.Version) {
				inForce = true
			}
		}
		switch {
		case inForce && c.Outcome != reports.Pass:
			t.Errorf("%s [%s]: %s, want pass\n  expected: %s\n  actual: %s\n  reason: %s", c.ID, c.Version, c.Outcome, c.Expected, c.Actual, c.Reason)
		case !inForce && c.Outcome != reports.NA:
			t.Errorf("%s [%s]: %s outside its window, want n/a", c.ID, c.Version, c.Outcome)
		case inForce:
			judged[c.ID]++
		}
	}
	for _, d := range Checks() {
		if judged[d.ID] == 0 {
			t.Errorf("%s was judged in no version", d.ID)
		}
	}
	if n := len(rep.Checks); n != len(Checks())*len(DefaultVersions) {
		t.Errorf("%d verdicts, want %d", n, len(Checks())*len(DefaultVersions))
	}
}

// TestProofs: every check fires on the authserver fault switch its proof
// names, and every fault switch proves some check.
func TestProofs(t *testing.T) {
	used := map[string]bool{}
	for _, d := range Checks() {
		if len(d.Proofs) == 0 {
			t.Errorf("%s has no proof", d.ID)
		}
		for _, p := range d.Proofs {
			used[p.Fault] = true
			rep := run(t, startAS(t, p.Fault), []string{d.ID}, p.Version)
			if len(rep.Checks) != 1 {
				t.Fatalf("%s: %d verdicts", d.ID, len(rep.Checks))
			}
			if c := rep.Checks[0]; c.Outcome != p.Want {
				t.Errorf("%s [%s] with fault %s: %s, want %s (reason %q, actual %q)", d.ID, p.Version, p.Fault, c.Outcome, p.Want, c.Reason, c.Actual)
			}
		}
	}
	for _, f := range authserver.Faults() {
		if !used[f.Name] {
			t.Errorf("fault %s (%s) proves no check", f.Name, f.Requirement)
		}
	}
}

// TestEveryRequirementCheckedOrExcluded: each testable MUST/SHOULD of the
// authorization-server role has a check or a written exclusion, and no
// exclusion names a checked requirement.
func TestEveryRequirementCheckedOrExcluded(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	checked := CheckedRequirements()
	for _, r := range cat.Records {
		if r.Level == catalog.May || !catalog.CoverageCounts(r, catalog.RoleAuthorizationServer) {
			continue
		}
		if len(checked[r.ID]) == 0 && Exclusions[r.ID] == "" {
			t.Errorf("%s has neither a check nor an exclusion", r.ID)
		}
		if len(checked[r.ID]) > 0 && Exclusions[r.ID] != "" {
			t.Errorf("%s is checked by %v and excluded", r.ID, checked[r.ID])
		}
	}
	for id := range Exclusions {
		if _, ok := cat.Get(id); !ok {
			t.Errorf("exclusion of unknown requirement %s", id)
		}
	}
}

// TestUntestableWithoutAClient: an authorization server with neither
// registration nor metadata documents, and no client given, leaves the
// flow checks untestable, never passed.
func TestUntestableWithoutAClient(t *testing.T) {
	rep := run(t, startAS(t, "no-registration", "no-cimd"), []string{"authserver/refresh-rotation", "authserver/redirect-exact-match"}, spec.V20251125)
	if len(rep.Checks) != 2 {
		t.Fatalf("%d verdicts, want 2", len(rep.Checks))
	}
	for _, c := range rep.Checks {
		if c.Outcome != reports.Untestable {
			t.Errorf("%s: %s (%s), want untestable without a client", c.ID, c.Outcome, c.Reason)
		}
	}
}

// TestUntestableWithoutConsent: an authorization endpoint that shows a
// login page instead of consenting at once leaves every check that needs
// a granted request untestable, even one whose defect is on (the
// redirect prefix match): a refusal is only told from a login page by
// comparison with a granted request.
func TestUntestableWithoutConsent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	as, err := authserver.New(authserver.Options{Issuer: "http://" + ln.Addr().String(), Faults: []string{"redirect-prefix-match"}})
	if err != nil {
		t.Fatal(err)
	}
	h := as.Handler()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/authorize" {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<form>log in</form>"))
			return
		}
		h.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	only := []string{"authserver/redirect-exact-match", "authserver/pkce-required", "authserver/authorization-code", "authserver/iss-in-response", "authserver/metadata"}
	rep := run(t, "http://"+ln.Addr().String(), only, spec.V20260728)
	if len(rep.Checks) != len(only) {
		t.Fatalf("%d verdicts, want %d", len(rep.Checks), len(only))
	}
	for _, c := range rep.Checks {
		want := reports.Untestable
		if c.ID == "authserver/metadata" {
			want = reports.Pass
		}
		if c.Outcome != want {
			t.Errorf("%s: %s (%s), want %s", c.ID, c.Outcome, c.Reason, want)
		}
	}
}

// TestStoppedRunListsEveryCheck: a run whose context has ended still
// lists every check of every version, each untestable because it was not
// run (the suites' shared wording), and says why the run stopped.
func TestStoppedRunListsEveryCheck(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Config{Issuer: startAS(t), Resource: testResource, Scope: "mcp"})
	if err == nil {
		t.Error("a stopped run returned no error")
	}
	if n, want := len(res.Report.Checks), len(Checks())*len(DefaultVersions); n != want {
		t.Errorf("%d verdicts, want %d", n, want)
	}
	notRun := 0
	for _, c := range res.Report.Checks {
		switch {
		case c.Outcome == reports.Untestable && c.Reason == "not run (interrupted)":
			notRun++
		case c.Outcome == reports.NA: // its requirements are out of force in the version (the harness says so first)
		default:
			t.Errorf("%s [%s]: %s %q, want untestable \"not run (interrupted)\"", c.ID, c.Version, c.Outcome, c.Reason)
		}
	}
	if notRun == 0 {
		t.Error("no check said it was not run")
	}
	if res.Report.Interrupted != "interrupted" {
		t.Errorf("the report says interrupted %q, want \"interrupted\"", res.Report.Interrupted)
	}
}
