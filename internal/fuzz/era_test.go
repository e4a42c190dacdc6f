package fuzz

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestNewestSpokenFallsBackForALegacyServer: a campaign at 2026-07-28
// asks server/discover first, as a dual-era client does. A legacy server
// refuses it (-32601 over stdio; over HTTP a 400 whose error has a null
// id, as the TS SDK's streamable server answers outside a session): with
// NewestSpoken the campaign fuzzes 2025-11-25 and says why; without it,
// nothing is judged, since the server's answers would break 2026-07-28's
// schema (@modelcontextprotocol/server-memory drew false resultType and
// cacheScope violations that way). A server that speaks 2026-07-28 keeps
// it.
func TestNewestSpokenFallsBackForALegacyServer(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		target conn.Target
		legacy bool
	}{
		"stdio legacy": {inprocHelper(spec.V20251125, ""), true},
		"http legacy":  {conn.HTTPTarget{URL: httpServer(t, spec.V20251125, "").URL + "/mcp"}, true},
		"stdio modern": {inprocHelper(spec.V20260728, ""), false},
		"http modern":  {conn.HTTPTarget{URL: httpServer(t, spec.V20260728, "").URL + "/mcp"}, false},
	} {
		for _, newest := range []bool{true, false} {
			t.Run(name+map[bool]string{true: "/newest-spoken", false: "/asked"}[newest], func(t *testing.T) {
				t.Parallel()
				cfg := Config{Target: tc.target, Version: spec.V20260728, NewestSpoken: newest, MaxExecs: 20, Seed: 1, Wait: DefaultWait, StartupTimeout: DefaultWait, MinimizeBudget: -1}
				res, err := Run(context.Background(), cfg)
				switch {
				case !tc.legacy:
					if err != nil || res.Version != spec.V20260728 || res.VersionNote != "" || res.Execs == 0 {
						t.Fatalf("a modern server: version %s (%q), %d execs, err %v; want 2026-07-28 fuzzed", res.Version, res.VersionNote, res.Execs, err)
					}
				case newest:
					if err != nil || res.Version != oracle.LegacyVersion || res.Execs == 0 || res.Verdict.Unjudged {
						t.Fatalf("version %s, %d execs, verdict %+v, err %v; want %s fuzzed", res.Version, res.Execs, res.Verdict, err, oracle.LegacyVersion)
					}
					if !strings.Contains(res.VersionNote, "does not speak 2026-07-28") || !strings.Contains(res.VersionNote, "server/discover was answered with error") {
						t.Errorf("version note %q: want why 2026-07-28 was not fuzzed", res.VersionNote)
					}
				default:
					var ns *NotSpokenError
					if !errors.As(err, &ns) || res == nil || res.Execs != 0 || !res.Verdict.Unjudged || res.Verdict.Failed || len(res.Findings) != 0 {
						t.Fatalf("Run = %+v, %v; want nothing judged and a NotSpokenError", res, err)
					}
					if !strings.Contains(res.Unjudged, "does not speak 2026-07-28") || !strings.Contains(res.Unjudged, "--protocol 2025-11-25") {
						t.Errorf("unjudged %q: want the reason and what to do", res.Unjudged)
					}
				}
			})
		}
	}
}

// TestNewestSpokenSilentTargetTriesLegacy: a target that says nothing to
// server/discover may be a legacy server that ignores requests before
// initialize; a NewestSpoken campaign tries 2025-11-25 before it calls
// the target unreachable, and then says what both attempts got.
func TestNewestSpokenSilentTargetTriesLegacy(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sleep(1)")
	}
	t.Parallel()
	wait := 300 * time.Millisecond
	res, err := Run(context.Background(), Config{Target: &conn.ExecTarget{Argv: []string{"sleep", "60"}}, Version: spec.V20260728, NewestSpoken: true, MaxExecs: 5, Seed: 1, Wait: wait, StartupTimeout: wait})
	if !errors.Is(err, ErrUnreachable) || res == nil || !res.Verdict.Unjudged {
		t.Fatalf("Run = %+v, %v; want nothing judged, unreachable", res, err)
	}
	if !strings.Contains(res.Unjudged, "server/discover") || !strings.Contains(res.Unjudged, "then at 2025-11-25") || !strings.Contains(res.Unjudged, "initialize") {
		t.Errorf("unjudged %q: want both attempts named", res.Unjudged)
	}
}

// TestStatelessInstanceIsContactedBeforeUse: a stateless instance has no
// handshake, but it answers one server/discover before a campaign uses
// it, so an input it never answers is judged by the liveness wait, not by
// the start-up allowance meant for a process that has said nothing yet.
// go-sdk v1.8.0's stdio server swallows the next line into a truncated
// one; with every fresh instance waited for a minute, a 30 s campaign ran
// 5 inputs.
func TestStatelessInstanceIsContactedBeforeUse(t *testing.T) {
	t.Parallel()
	v := spec.V20260728
	const wait, startup = 300 * time.Millisecond, time.Minute
	s, err := openSession(context.Background(), helperTarget(t, v, "hang-unknown"), v, wait, startup, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if !s.heard {
		t.Fatalf("the instance was handed over before it said anything; transcript notes:\n%s", transcriptNotes(s))
	}
	out := s.exec(mutate.Input{Mutator: "protocol/unknown-method", Chunks: [][]byte{[]byte(`{"jsonrpc":"2.0","id":"u-1","method":"mcpcheck/no-such-method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")}})
	var hang *oracle.Observation
	for i, o := range out.obs {
		if o.Kind == reports.FindingHang {
			hang = &out.obs[i]
		}
	}
	if hang == nil || !strings.Contains(hang.Message, wait.String()) || strings.Contains(hang.Message, startup.String()) {
		t.Fatalf("want a hang judged by the %v liveness wait, got %+v (dead %v); notes:\n%s", wait, out.obs, out.dead, transcriptNotes(s))
	}
}

// TestEndsIncomplete tells a truncated last line from a whole one and
// from bytes that are no JSON.
func TestEndsIncomplete(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"id":"a","jsonrpc":` + "\n", true},
		{`{"jsonrpc":"2.0","method":"ping"}` + "\n" + `[{"id":1,` + "\n\n", true},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", false},
		{`{"id":"a",}` + "\n", false},
		{"}\n", false},
		{"", false},
	} {
		if got := endsIncomplete(mutate.Input{Chunks: [][]byte{[]byte(tc.in)}}); got != tc.want {
			t.Errorf("endsIncomplete(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
