package fuzz

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestClientCampaignLegacyClientAtLatest: a client that only speaks an
// initialize-based version (the TypeScript SDK 1.32.2 client and the
// inspector CLI did this at the default version) never gets past the
// refusal of its initialize when the stage serves only 2026-07-28. Asked
// for the newest version it speaks, the campaign fuzzes it at 2025-11-25
// and says why; asked for 2026-07-28 itself, it judges nothing instead
// of calling a client that never reached its task OK.
func TestClientCampaignLegacyClientAtLatest(t *testing.T) {
	t.Parallel()
	relay, fragile := buildClientBins(t)
	target := ClientTarget{Command: fragile + " {server}", Stdio: true, Relay: relay}
	run := func(newest bool) *Result {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		res, err := RunClient(ctx, ClientConfig{Client: target, Version: spec.V20260728, NewestSpoken: newest, MaxExecs: 2, Seed: 3,
			Mutators: []string{"json/extra-member"}, Wait: 2 * time.Second, MinimizeBudget: 1, FindingsDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(true)
	if res.Version != oracle.LegacyVersion || !strings.Contains(res.VersionNote, "does not speak 2026-07-28") || res.Verdict.Unjudged {
		t.Errorf("newest spoken: version %s, note %q, verdict %+v; want %s and why", res.Version, res.VersionNote, res.Verdict, oracle.LegacyVersion)
	}
	if res.Client == nil || !slices.Contains(res.Client.Requests, "tools/call") || res.Execs != 2 {
		t.Errorf("newest spoken: clean run %+v, %d execs; want the task done at %s and 2 execs", res.Client, res.Execs, oracle.LegacyVersion)
	}
	res = run(false)
	if res.Version != spec.V20260728 || !res.Verdict.Unjudged || res.Execs != 0 || !strings.Contains(res.Unjudged, "--protocol 2025-11-25") {
		t.Errorf("asked for 2026-07-28: version %s, verdict %+v, %d execs, unjudged %q; want nothing judged and why", res.Version, res.Verdict, res.Execs, res.Unjudged)
	}
}

// TestNotSpokenByClient: only a stateless campaign's clean run that never
// got past initialize (server/discover aside) shows a client that does not
// speak the version.
func TestNotSpokenByClient(t *testing.T) {
	for _, tc := range []struct {
		v        spec.Version
		requests []string
		want     bool
	}{
		{spec.V20260728, []string{"initialize"}, true},
		{spec.V20260728, []string{"server/discover", "initialize"}, true},
		{spec.V20260728, []string{"server/discover", "tools/list", "tools/call"}, false},
		{spec.V20260728, []string{"initialize", "tools/list"}, false},
		{spec.V20260728, nil, false},
		{spec.V20251125, []string{"initialize"}, false},
	} {
		if got := notSpokenByClient(tc.v, clientRun{requests: tc.requests, exit: "exited with status 1"}) != ""; got != tc.want {
			t.Errorf("%s %v: not spoken %v, want %v", tc.v, tc.requests, got, tc.want)
		}
	}
}
