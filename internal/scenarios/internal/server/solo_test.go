package server

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// soloChecks are checks that start processes of their own beside the
// pooled sessions (a fresh instance for a handshake, a second session to
// compare listings, a process to close stdin on), and one that compares
// two sessions.
var soloChecks = []string{
	"ping/before-initialize", "versioning/unknown-version", "versioning/unsupported-version-error",
	"tools/list-stable", "resources/list-stable", "prompts/list-stable",
	"cancellation/finished-request", "lifecycle/client-capabilities-undeclared",
	"transport-stdio/exit-on-stdin-close", "base/client-info-neutral",
}

// TestOneInstanceJudgesASingleInstanceServer: a server of which one
// instance can run at a time (the reference server under flock -n: a
// second start exits at once, as browsermcp's does, which binds a fixed
// port) is judged wrongly when its instances overlap, even one check at a
// time: verdicts differ from the reference server's own, as failures or
// errors, and the run counts the processes that failed to start beside
// another (Result.FailedBeside, which the CLI turns into a hint). With
// OneInstance every verdict is the reference server's, or untestable
// because the check needs two sessions at once, saying so.
func TestOneInstanceJudgesASingleInstanceServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server")
	}
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("needs flock (util-linux) to make a single-instance server")
	}
	t.Parallel()
	ref := referenceTarget(t)
	single := target.Command(flock, append([]string{"-n", filepath.Join(t.TempDir(), "instance.lock"), ref.Command}, ref.Args...)...)
	single.Timeouts = ref.Timeouts
	cfg := Config{Target: ref, Versions: []spec.Version{spec.V20251125, spec.V20260728}, Only: soloChecks, Parallel: 1}
	plain := runSuites(t, cfg, 2*time.Minute)
	want := verdictsOf(plain)
	if plain.FailedBeside != 0 {
		t.Errorf("the reference server's processes: %d failed to start beside another, want none", plain.FailedBeside)
	}

	cfg.Target = single
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg.Session.Timeout, cfg.ToolPolicy = 5*time.Second, ownTools(cfg.ToolPolicy)
	overlapping, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("run without OneInstance: %v", err)
	}
	wrong := 0
	for k, c := range verdictsOf(overlapping) {
		if c.Outcome != want[k].Outcome && (c.Outcome == reports.Fail || c.Outcome == reports.Error) {
			wrong++
		}
	}
	if wrong == 0 {
		t.Fatal("with overlapping instances no verdict went wrong: the single-instance target does not show the trap OneInstance is for")
	}
	if overlapping.FailedBeside == 0 {
		t.Error("with overlapping instances Result.FailedBeside is 0: the run does not say its target's processes failed to start beside each other")
	}

	cfg.OneInstance = true
	soloRun := runSuites(t, cfg, 2*time.Minute)
	solo := verdictsOf(soloRun)
	if soloRun.FailedBeside != 0 {
		t.Errorf("with one instance %d processes failed beside another, want none", soloRun.FailedBeside)
	}
	same := 0
	for k, w := range want {
		c, ok := solo[k]
		switch {
		case !ok:
			t.Errorf("%s: no verdict with one instance", k)
		case c.Outcome == w.Outcome:
			same++
		case c.Outcome == reports.Untestable && strings.Contains(c.Reason, "second instance"):
		default:
			t.Errorf("%s with one instance: %s (%s), the reference server's own verdict is %s", k, c.Outcome, c.Reason, w.Outcome)
		}
	}
	if same == 0 {
		t.Error("with one instance no verdict was the reference server's")
	}
	t.Logf("overlapping instances: %d wrong verdicts of %d; one instance: %d the same", wrong, len(want), same)

	if _, err := Run(ctx, Config{Target: target.URL("http://127.0.0.1:1/mcp"), OneInstance: true}); err == nil || !strings.Contains(err.Error(), "one instance") {
		t.Errorf("OneInstance with a URL target: %v, want it refused", err)
	}
}

// verdictsOf maps "ID VERSION" to each verdict of a run.
func verdictsOf(res Result) map[string]reports.Check {
	out := map[string]reports.Check{}
	for _, c := range res.Report.Checks {
		out[c.ID+" "+string(c.Version)] = c
	}
	return out
}
