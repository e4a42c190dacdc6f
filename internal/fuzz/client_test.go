package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// clientBins are the binaries of the client campaign tests, built once
// from the test peers under cmd/internal/fuzzpeers: the stage's relay
// alone (relay; the race-built test binary takes a second to start), the
// planted fragile client (fragileclient) and the planted strict SSE
// client (strictsseclient).
var clientBins struct {
	once           sync.Once
	dir            string
	relay, fragile string
	err            error
}

// fuzzPeers is the package directory of the client campaign tests' peer
// programs: commands under cmd/, the only place a program may exit.
const fuzzPeers = "github.com/mcpcheck/mcpcheck/cmd/internal/fuzzpeers"

func buildClientBins(t *testing.T) (relay, fragile string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and launches client processes")
	}
	clientBins.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcpcheck-fuzz-clients-")
		if err != nil {
			clientBins.err = err
			return
		}
		clientBins.dir = dir
		for _, b := range []struct{ out, pkg string }{{"relay", fuzzPeers + "/relay"}, {"fragile", fuzzPeers + "/fragileclient"}, {"strictsse", fuzzPeers + "/strictsseclient"}} {
			if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, b.out), b.pkg).CombinedOutput(); err != nil {
				clientBins.err = errors.New(string(out))
				return
			}
		}
		clientBins.relay, clientBins.fragile = filepath.Join(dir, "relay"), filepath.Join(dir, "fragile")
	})
	if clientBins.err != nil {
		t.Fatalf("building the client campaign test binaries: %v", clientBins.err)
	}
	return clientBins.relay, clientBins.fragile
}

// TestClientCampaignFindsRefusedValidSSE: a campaign of the valid SSE
// variants against a planted HTTP client whose SSE parser knows only the
// plainest framing finds that it refuses valid streams: a violation of
// the client's duty to handle SSE answers, citing it, while the client's
// clean run (plain framing) succeeds.
func TestClientCampaignFindsRefusedValidSSE(t *testing.T) {
	t.Parallel()
	buildClientBins(t)
	target := ClientTarget{Command: filepath.Join(clientBins.dir, "strictsse") + " {url}"}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := RunClient(ctx, ClientConfig{Client: target, Version: spec.V20251125, MaxExecs: 12, Seed: 7,
		Mutators: []string{"sse/framing", "sse/retry"}, Wait: time.Second, MinimizeBudget: 2, FindingsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var refused *Finding
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Kind+" "+f.Check)
		if strings.HasPrefix(f.Check, "sse/valid-stream-refused/") {
			refused = f
		}
	}
	if refused == nil {
		t.Fatalf("the client that refuses valid SSE framing was not found refusing it; findings %v (%d execs)", got, res.Execs)
	}
	if refused.Requirement != "transport-http.post.client-handles-json-and-sse" || !strings.Contains(refused.Message, "valid SSE stream") {
		t.Errorf("the finding cites %q and says %q", refused.Requirement, refused.Message)
	}
}

// TestClientCampaignFindsPlantedBugs: a campaign against the planted
// fragile stdio client finds its crash on a deeply nested result and its
// hang on notifications/message, reproduces and minimizes both, writes
// them, and each replays.
func TestClientCampaignFindsPlantedBugs(t *testing.T) {
	t.Parallel()
	relay, fragile := buildClientBins(t)
	target := ClientTarget{Command: fragile + " {server}", Stdio: true, Relay: relay}
	dir := t.TempDir()
	// A bound, not a measure: the planted hang costs four waits each time
	// it is seen, reproduced, minimized and replayed (conn.HangConfirm), and a
	// loaded machine stretches every launch.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// Seed 5 meets the crash at execution 14 and the hang at 17 (one
	// worker: the inputs are the seed's); 24 executions leave room and no
	// more launches than that. Two minimizing steps show minimization
	// runs and keeps each trigger (six shrank neither input further, and
	// each step on the hang costs four waits).
	res, err := RunClient(ctx, ClientConfig{Client: target, Version: spec.V20251125, MaxExecs: 24, Seed: 5,
		Mutators: []string{"json/deep-nesting", "protocol/valid"}, Wait: time.Second, MinimizeBudget: 2, FindingsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Role != "client" || res.Client == nil || strings.Join(res.Client.Requests, " ") != "initialize tools/list tools/call" {
		t.Fatalf("the result does not describe the client's clean run: role %q, %+v", res.Role, res.Client)
	}
	found := map[string]*Finding{}
	for _, f := range res.Findings {
		found[oracle.WithoutFunction(f.Check)] = f
	}
	crash := found["crash/panic: fragileclient: result nested too deeply"]
	hang := found["hang/ping"]
	if crash == nil || hang == nil {
		var got []string
		for _, f := range res.Findings {
			got = append(got, f.Kind+" "+f.Check)
		}
		t.Fatalf("want the planted crash and hang, got %v (%d execs)", got, res.Execs)
	}
	if !res.Verdict.Failed {
		t.Errorf("a crash and a hang must fail the campaign: %+v", res.Verdict)
	}
	if hang.Requirement != "ping.response.prompt-empty-result" {
		t.Errorf("the hang cites %q", hang.Requirement)
	}
	for _, f := range []*Finding{crash, hang} {
		if !f.Reproduced || f.MinimizedSize > f.InputSize || f.Dir == "" {
			t.Errorf("%s: reproduced %v, minimized %d of %d bytes, dir %q", f.Check, f.Reproduced, f.MinimizedSize, f.InputSize, f.Dir)
		}
		if f.Minimized.Client == nil || f.Minimized.Client.Trigger == "" {
			t.Errorf("%s: the minimized input lost its plan: %+v", f.Check, f.Minimized.Client)
		}
		if !strings.Contains(f.Reproducer, "--client-stdio") {
			t.Errorf("%s: reproducer %q", f.Check, f.Reproducer)
		}
		rr, err := ReplayClient(ctx, f.Dir, target, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !rr.Reproduced {
			t.Errorf("%s did not replay: %+v", f.Check, rr.Observations)
		}
		if len(rr.Transcript) == 0 {
			t.Errorf("%s: the replay has no transcript", f.Check)
		}
	}
	if !bytes.Contains(crash.Minimized.Bytes(), []byte("[[[[")) && !bytes.Contains(crash.Minimized.Bytes(), []byte(`{"a":{"a":`)) {
		t.Errorf("the minimized crash lost its nesting: %.200q", crash.Minimized.Bytes())
	}
	if !bytes.Contains(hang.Minimized.Bytes(), []byte("notifications/message")) {
		t.Errorf("the minimized hang lost its notification: %q", hang.Minimized.Bytes())
	}
	if _, err := Replay(ctx, crash.Dir, helperTarget(t, spec.V20251125, ""), ReplayOptions{}); err == nil || !strings.Contains(err.Error(), "client campaign") {
		t.Errorf("replaying a client finding against a server: %v", err)
	}
}

// TestClientInputsAreDeterministic: the same version, mutator, seed and
// clean run give the same input, for every client mutator.
func TestClientInputsAreDeterministic(t *testing.T) {
	t.Parallel()
	requests := []string{"initialize", "tools/list", "tools/call"}
	for _, v := range []spec.Version{spec.V20251125, spec.V20260728} {
		if v == spec.V20260728 {
			requests = []string{"server/discover", "tools/list", "tools/call"}
		}
		for _, name := range mutate.ClientMutatorNames() {
			for seed := uint64(1); seed < 4; seed++ {
				a, err := mutate.MakeClientInput(v, name, seed, requests)
				if err != nil {
					t.Fatalf("%s %s: %v", v, name, err)
				}
				b, _ := mutate.MakeClientInput(v, name, seed, requests)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%s %s seed %d: two inputs differ", v, name, seed)
				}
				if a.Client == nil || a.Client.Nth < 1 || a.HTTP != nil || a.Fresh {
					t.Fatalf("%s %s: not a client input: %+v", v, name, a.Client)
				}
			}
		}
	}
	if _, err := mutate.MakeClientInput(spec.V20251125, "http/empty-body", 1, requests); err == nil {
		t.Error("a request-side HTTP mutator made a client input")
	}
}

// TestClientMutatorFamilies: stdio clients get framing and no HTTP
// answers; HTTP clients the reverse; neither gets the request-side http
// family.
func TestClientMutatorFamilies(t *testing.T) {
	for _, http := range []bool{false, true} {
		fams := map[string]bool{}
		for _, m := range mutate.ClientMutators(http) {
			fams[m.Family()] = true
		}
		if fams["http"] || fams["framing"] == http || fams["reply"] != http || fams["sse"] != http || !fams["server"] || !fams["json"] || !fams["bytes"] || !fams["protocol"] {
			t.Errorf("http=%v: families %v", http, fams)
		}
	}
}

// TestClientCrashLines: crash reports are told from ordinary error exits.
func TestClientCrashLines(t *testing.T) {
	for stderr, want := range map[string]string{
		"panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1":                            "panic: runtime error: index out of range [N] with length N",
		"Traceback (most recent call last):\n  File \"x.py\", line 3\nKeyError: 'id'\n":                        "KeyError: 'id'",
		"/x.js:1\nthrow e\n^\n\nTypeError: Cannot read properties of undefined\n    at f\n\nNode.js v22.1.0\n": "TypeError: Cannot read properties of undefined",
		"thread 'main' panicked at src/main.rs:3:5:\n":                                                         "thread 'main' panicked at src/main.rs:N:N:",
		"Error: the server sent garbage\n":                                                                     "",
		"mcpcheck: client: initialize failed: bad answer\n":                                                    "",
	} {
		if got := oracle.CrashLine([]byte(stderr)); got != want {
			t.Errorf("CrashLine(%q) = %q, want %q", stderr, got, want)
		}
	}
}

// TestJudgeClient: the client oracles hold the client's messages to the
// client's side of the protocol: valid traffic passes, a line that is not
// JSON breaks the stdin rule, an answer to a request the stage never sent
// breaks the id rule, and answers are validated against the result schema
// of the stage's request.
func TestJudgeClient(t *testing.T) {
	ev := func(from stage.Peer, raw string) stage.Event {
		f := wire.Classify([]byte(raw))
		f.Stream = wire.StreamStdio
		return stage.Event{From: from, Conn: 1, Frame: f}
	}
	c, s := stage.FromClient, stage.FromStage
	clean := []stage.Event{
		ev(c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		ev(s, `{"jsonrpc":"2.0","id":"mcpcheck-probe","method":"ping"}`),
		ev(c, `{"jsonrpc":"2.0","id":"mcpcheck-probe","result":{}}`),
		ev(s, `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`),
		ev(c, `{"jsonrpc":"2.0","id":1,"result":{}}`),
		ev(s, `{"jsonrpc":"2.0","id":"r","method":"roots/list"}`),
		ev(c, `{"jsonrpc":"2.0","id":"r","result":{"roots":[]}}`),
		ev(c, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`),
	}
	obs, requests, answered := oracle.JudgeClient(spec.V20251125, false, clean)
	if len(obs) != 0 {
		t.Errorf("a clean client was judged: %+v", obs)
	}
	if strings.Join(requests, " ") != "initialize" || strings.Join(answered, " ") != "ping roots/list" {
		t.Errorf("requests %v, answered %v", requests, answered)
	}
	for _, tc := range []struct {
		evs   []stage.Event
		check string
		req   string
	}{
		{[]stage.Event{ev(c, `hello`)}, "framing/stdin-not-json", rules.ReqStdinOnlyMCP},
		{[]stage.Event{ev(c, `{"jsonrpc":"2.0","id":"nobody","result":{}}`)}, "response/id-unknown", rules.ReqIDMatchesRequest},
		{[]stage.Event{ev(s, `{"jsonrpc":"2.0","id":"r","method":"roots/list"}`), ev(c, `{"jsonrpc":"2.0","id":"r","result":{"roots":7}}`)}, "schema/", ""},
	} {
		obs, _, _ := oracle.JudgeClient(spec.V20251125, false, tc.evs)
		if len(obs) != 1 || !strings.HasPrefix(obs[0].Check, tc.check) || obs[0].Requirement != tc.req && tc.req != "" {
			t.Errorf("%s: got %+v", tc.check, obs)
		}
	}
	// A dual-era client that falls back to initialize in 2026-07-28 is
	// judged by the version it asks for.
	legacy := []stage.Event{
		ev(c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		ev(c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
	}
	if obs, _, _ := oracle.JudgeClient(spec.V20260728, false, legacy); len(obs) != 0 {
		t.Errorf("a dual-era client's fallback was judged: %+v", obs)
	}
	// ... and one that probes with server/discover in a stateful campaign
	// by the version its _meta declares.
	probe := []stage.Event{ev(c, `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}`)}
	if obs, _, _ := oracle.JudgeClient(spec.V20251125, false, probe); len(obs) != 0 {
		t.Errorf("a dual-era client's discovery probe was judged: %+v", obs)
	}
}

// TestClientSummaryJSON: a client campaign's result carries its role and
// clean run into the summary JSON.
func TestClientSummaryJSON(t *testing.T) {
	r := &Result{Role: "client", Version: spec.V20251125, Client: &ClientRunInfo{Requests: []string{"initialize"}, Took: time.Millisecond}}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Role   string         `json:"role"`
		Client *ClientRunInfo `json:"client"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Role != "client" || back.Client == nil || back.Client.Requests[0] != "initialize" {
		t.Errorf("summary %s", b.String())
	}
}

// TestClientPlayerOverHTTP drives the HTTP side of the player (the
// middleware: hostile SSE events, reply damage, redirects, raw writes,
// keep-alive) with the reference client in-process, under the race
// detector: every HTTP client mutator plays, the client gets through or
// fails its task within its request timeout, and the oracles do not judge
// it.
func TestClientPlayerOverHTTP(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays every HTTP client mutator")
	}
	st, err := stage.New()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	requests := []string{spec.MethodInitialize, spec.MethodToolsList, spec.MethodToolsCall}
	played := 0
	for _, m := range mutate.ClientMutators(true) {
		if m.Cost == mutate.Slow {
			continue // each costs the client's request timeout
		}
		in, err := mutate.MakeClientInput(spec.V20251125, m.Name, 3, requests)
		if err != nil {
			t.Fatal(err)
		}
		pl := newPlayer(spec.V20251125, in, "http")
		sc, err := pl.open(st, false)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		refHTTPTask(ctx, sc.URL())
		cancel()
		close(pl.done)
		sc.WaitIdle(2 * time.Second)
		if ok, _ := pl.state(); ok {
			played++
		}
		if obs, _, _ := oracle.JudgeClient(spec.V20251125, true, sc.Recording().Events()); len(obs) > 0 {
			t.Errorf("%s: the reference client was judged: %+v", m.Name, obs)
		}
		sc.Close()
	}
	if played < 10 {
		t.Errorf("only %d inputs were played", played)
	}
}

// TestClientMemoryBound: a client whose processes grow past the bound is
// stopped and reported (the bound here is one byte, so any client is
// over it at the first sample). The client sleeps for five minutes
// before it would start, well past the run's 10 s deadline: only the
// memory bound can have stopped it with a resource/memory finding (the
// deadline gives a hang), and it made no request, so it was stopped
// before it got to its work.
func TestClientMemoryBound(t *testing.T) {
	t.Parallel()
	relay, fragile := buildClientBins(t)
	if conn.GroupRSS(ownGroup()) == 0 {
		t.Skip("no /proc: the memory bound cannot be measured here")
	}
	st, err := stage.New()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	target := ClientTarget{Command: "sleep 300; " + fragile + " {server}", Stdio: true, Relay: relay}
	lim := clientLimits{wait: time.Second, deadline: 10 * time.Second, dropDeadline: 10 * time.Second, maxRSS: 1}
	run, err := runClientOnce(context.Background(), st, target, spec.V20251125, mutate.Input{Client: &mutate.ClientPlan{}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.obs) != 1 || run.obs[0].Check != "resource/memory" || run.obs[0].Kind != reports.FindingCrash || run.peakRSS == 0 {
		t.Fatalf("observations %+v, peak %d; want one resource/memory crash", run.obs, run.peakRSS)
	}
	if len(run.requests) != 0 {
		t.Errorf("the client made requests %v; it should have been stopped at the first sample, still asleep", run.requests)
	}
}

// ownGroup is the test process's process group (from /proc/self/stat; 0
// where there is none).
func ownGroup() int {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(string(f[2]))
	return g
}
