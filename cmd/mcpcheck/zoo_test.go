package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
)

// zooEntry is one hostile target of the zoo: a mode of the stdio zoo
// program (testdata/zoo) or an HTTP handler served on loopback.
type zooEntry struct {
	name string
	mode string           // stdio: the zoo program's mode
	http http.HandlerFunc // HTTP: the hostile endpoint
	// says lists texts one of which the suite's JSON report must contain:
	// it names what the target did.
	says []string
	// exits are the exit codes the suite may end with.
	exits []int
	// protocol is the version the fast tier judges the entry on, when
	// not the tier's own: the one whose checks see what the entry does.
	protocol string
	// silent says the entry never answers a request, hangs that it
	// answers initialize and nothing after: every wait on it (after the
	// handshake, for hangs) ends at its bound, so its run costs those
	// bounds and its verdict is the same at any length of them. The fast
	// tier gives them short ones (zooTier.entryArgs).
	silent, hangs bool
	// timeout is the fast tier's --timeout for the entry's suite, when
	// not the default.
	timeout time.Duration
}

// The zoo's bounds. A suite run must end within zooSuiteBound when the
// entries run one at a time (make zoo, for uncontended figures); when they
// share the machine with each other and with the other packages' tests
// (make test: two cores, several entries at a time) no wall time is held
// against them, and zooSuiteBoundShared only bounds how long a run may
// go on before it is killed, a hang. A fuzz campaign is killed past its
// --duration plus zooFuzzSlack; and neither may use more than zooRSSBound
// of memory. Each bound adds one start-up allowance (the tier's, see
// zooTier): a target that never says anything is given that long once
// before it is mute, since a server that starts slowly on a busy machine
// must not be taken for a silent one.
const (
	zooSuiteBound       = 60 * time.Second
	zooSuiteBoundShared = 240 * time.Second
	zooFuzzSlack        = 30 * time.Second
	zooRSSBound         = 256 << 20
)

// zooTier is how much of each entry the zoo judges. The fast tier (make
// test) judges every entry on one version, fuzzes it for 2 s and gives it
// a start-up allowance of 15 s: the zoo's targets are a Go program and
// in-process HTTP handlers that say their first byte within milliseconds
// when they say anything, so a target that answers never waits it out,
// whatever the load. The silent and hanging entries (zooEntry.silent),
// whose waits are waited out whatever their length, get 3 s waits
// (entryArgs): what they are judged on is that nothing came, which a
// shorter wait sees as well, and their runs take a fifth of the time.
// The full tier (make zoo, MCPCHECK_ZOO_FULL=1) judges every
// version with the defaults users get, fuzzing 30 s.
type zooTier struct {
	protocol   string
	fuzz       time.Duration
	startup    time.Duration // 0: the default (session.DefaultStartupTimeout)
	silentWait time.Duration // 0: the silent entries get the tier's waits
}

func zooTierFromEnv() zooTier {
	tier := zooTier{protocol: "2025-11-25", fuzz: 2 * time.Second, startup: 15 * time.Second, silentWait: 3 * time.Second}
	if os.Getenv("MCPCHECK_ZOO_FULL") != "" {
		tier = zooTier{protocol: "all", fuzz: 30 * time.Second}
	}
	if d, err := time.ParseDuration(os.Getenv("MCPCHECK_ZOO_FUZZ")); err == nil && d > 0 {
		tier.fuzz = d
	}
	return tier
}

// allowance is the start-up allowance a run of the tier has.
func (z zooTier) allowance() time.Duration {
	if z.startup > 0 {
		return z.startup
	}
	return session.DefaultStartupTimeout
}

// args are the flags every run of the tier adds.
func (z zooTier) args() []string {
	if z.startup > 0 {
		return []string{"--startup-timeout", z.startup.String()}
	}
	return nil
}

// entryArgs are the flags the tier adds to cmd's run ("server" or
// "fuzz") against e. Where the tier has short waits for the silent
// entries: a silent entry's suite gets them for its start-up allowance
// and each answer (--timeout), a hanging one's for each answer only (its
// handshake keeps the allowance: a late answer to initialize, on a busy
// machine, would make it look silent, and the report would not say
// "stopped answering"); the campaigns of both get the short allowance,
// as whatever they end with is accepted (a campaign's wait for each
// answer is already its --wait).
func (z zooTier) entryArgs(cmd string, e zooEntry) []string {
	if e.timeout > 0 && cmd == "server" && z.silentWait > 0 {
		return append(z.args(), "--timeout", e.timeout.String())
	}
	if (!e.silent && !e.hangs) || z.silentWait <= 0 {
		return z.args()
	}
	short := z.silentWait.String()
	switch {
	case cmd == "fuzz":
		return []string{"--startup-timeout", short}
	case e.silent:
		return []string{"--startup-timeout", short, "--timeout", short}
	default:
		return append(z.args(), "--timeout", short)
	}
}

func zooEntries() []zooEntry {
	fails := []int{exitFailed}
	unjudged := []int{exitFailed, exitHarness}
	// The longest first (suite and campaign, as measured in the fast
	// tier at load 50): the entries start in this order, so that the long
	// ones are not left for last.
	return []zooEntry{
		{name: "request-storm", mode: "request-storm", says: []string{"floods"}, exits: fails,
			// A wait sees the flood when 10,000 frames have come before
			// its answer (the zoo makes sure they do), read and recorded
			// by mcpcheck within the wait: at load 35-50 that took over
			// 10 s, and the waits ended as unanswered, not flooded.
			timeout: time.Minute},
		{name: "200000-tools", mode: "many-tools", says: []string{"200000 tools", "too large to be validated"}, exits: fails,
			// Its answer is 10 MB, carried and decoded within the wait
			// for it: at load 50 that took mcpcheck over 10 s of its own
			// time ("tools/list: no answer within 10s"; when every such
			// wait ran out the report named none of says), which is no
			// verdict on the target.
			timeout: time.Minute},
		{name: "init-then-hang", mode: "init-hang", says: []string{"stopped answering"}, exits: fails, hangs: true},
		// Exiting when stdin closes is judged from 2026-07-28 on.
		{name: "ignores-SIGTERM-and-EOF", mode: "ignore-term", says: []string{"still running"}, exits: fails, protocol: "2026-07-28"},
		{name: "notification-flood", mode: "notify-flood", says: []string{"floods", "frames the target sent were not kept"}, exits: fails},
		{name: "100000-deep-nesting", mode: "deep-nest", says: []string{"nested deeper"}, exits: fails},
		{name: "1-GiB-line", mode: "huge-line", says: []string{"bytes discarded", "too long", "over the"}, exits: unjudged},
		{name: "garbage", mode: "garbage", says: []string{"not JSON", "garbage"}, exits: unjudged},
		{name: "well-behaved", mode: "well-behaved", says: []string{`"outcome": "pass"`}, exits: fails},
		{name: "http-keepalive-only-sse", http: zooKeepAliveOnly, says: []string{"no answer within", "answered none"}, exits: unjudged, silent: true},
		{name: "http-slowloris-sse", http: zooSlowloris, says: []string{"no answer within", "answered none"}, exits: unjudged, silent: true},
		{name: "grandchild-holds-stdout", mode: "grandchild", says: []string{"exited", "answered none"}, exits: unjudged, silent: true},
		{name: "endless-pagination", mode: "paginate", says: []string{"cursor", "pages"}, exits: fails},
		{name: "never-answers", mode: "mute", says: []string{"answered none"}, exits: unjudged, silent: true},
		{name: "http-10MB-headers", http: zooHugeHeaders, says: []string{fmt.Sprintf("more than %d bytes of response headers", wire.DefaultMaxHeader)}, exits: unjudged},
		{name: "http-redirect-loop", http: zooRedirectLoop, says: []string{"HTTP 307"}, exits: unjudged},
		{name: "wrong-id", mode: "wrong-id", says: []string{"no request had", "never sent", "not the id"}, exits: unjudged},
		{name: "http-connection-reset", http: zooReset, says: []string{"reset", "EOF"}, exits: unjudged},
	}
}

// zooSlowloris answers every POST with an event stream that trickles one
// byte of an event that never ends, every 200 ms.
func zooSlowloris(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
		b := byte('x')
		if i == 0 {
			b = 'd' // "data: ..." never ending
		}
		if _, err := w.Write([]byte{b}); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// zooRedirectLoop sends every request back to itself, for ever.
func zooRedirectLoop(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	http.Redirect(w, r, fmt.Sprintf("%s?n=%d", r.URL.Path, n+1), http.StatusTemporaryRedirect)
}

// zooHugeHeaders answers with 10 MB of headers: 10,000,000 bytes, under
// net/http's own limit of 10 MiB, so only mcpcheck's bound
// (wire.DefaultMaxHeader) keeps it from reading them all, on every request.
func zooHugeHeaders(w http.ResponseWriter, r *http.Request) {
	pad := strings.Repeat("h", 1000000-len("X-Pad-0: \r\n"))
	for i := 0; i < 10; i++ {
		w.Header().Set(fmt.Sprintf("X-Pad-%d", i), pad)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
}

// zooReset resets the connection of every request (SO_LINGER 0, close).
func zooReset(w http.ResponseWriter, r *http.Request) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "no hijacking", http.StatusInternalServerError)
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// zooKeepAliveOnly answers every request with an event stream that only
// ever carries keep-alive comments.
func zooKeepAliveOnly(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
	}
}

// zooRun is what one mcpcheck run against a zoo entry did.
type zooRun struct {
	wall   time.Duration
	exit   int
	rss    int64 // bytes, peak resident set of the mcpcheck process (sampled)
	stderr string
}

// runZoo runs mcpcheck with args, bounded by limit (a run over it is
// killed and fails the test), and measures it.
func runZoo(t *testing.T, bin string, limit time.Duration, args ...string) zooRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 10 * time.Second
	// The defaults users get: mcpcheck's own soft memory limit, not one
	// the environment of the tests sets.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMEMLIMIT=") && !strings.HasPrefix(kv, "GOGC=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("mcpcheck %s: %v", strings.Join(args, " "), err)
	}
	// The peak RSS is sampled from /proc (VmHWM, a high-water mark)
	// while mcpcheck runs: the rusage of the exited process would count
	// this test binary's memory too (the child starts sharing its memory
	// until exec, and Linux keeps that peak).
	stop := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var hwm int64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if v := vmHWM(cmd.Process.Pid); v > hwm {
				hwm = v
			}
			select {
			case <-stop:
				peak <- hwm
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	r := zooRun{wall: time.Since(start), stderr: stderr.String(), rss: <-peak}
	if ctx.Err() != nil {
		t.Errorf("mcpcheck %s did not end within %v (killed)\n%s", strings.Join(args, " "), limit, tail(r.stderr, 2000))
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("mcpcheck %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// vmHWM is the peak resident set of process pid, in bytes (0 once it has
// exited).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			f := strings.Fields(v)
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil && len(f) == 2 && f[1] == "kB" {
				return n << 10
			}
		}
	}
	return 0
}

// zooLeftovers returns the pids listed in pidFile that still run (a
// zombie has ended: it waits only for its new parent to reap it). It
// gives SIGKILLs already sent a moment to land.
func zooLeftovers(t *testing.T, pidFile string) []int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the zoo wrote no pid file: %v", err)
	}
	running := func(pid int) bool {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return syscall.Kill(pid, 0) == nil && runtime.GOOS != "linux"
		}
		// pid (comm) STATE ...: comm may hold spaces, the state follows
		// the last ')'.
		s := string(st)
		i := strings.LastIndexByte(s, ')')
		return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			if running(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL) // do not leak them past the test
			}
			return left
		}
		time.Sleep(50 * time.Millisecond) // polling the kernel's process table, bounded above
	}
}

// checkZooReports validates the suite's JSON report against the report
// schema and parses its JUnit XML, and returns the JSON.
func checkZooReports(t *testing.T, sch *jsonschema.Schema, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "mcpcheck-server.json"))
	if err != nil {
		t.Fatalf("no JSON report: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the JSON report is not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the JSON report breaks the report schema: %v", err)
	}
	x, err := os.ReadFile(filepath.Join(dir, "mcpcheck-server.junit.xml"))
	if err != nil {
		t.Fatalf("no JUnit report: %v", err)
	}
	var suites struct {
		XMLName xml.Name
		Tests   int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal(x, &suites); err != nil || suites.Tests == 0 {
		t.Errorf("the JUnit report does not parse or has no tests (%d): %v", suites.Tests, err)
	}
	return string(b)
}

func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reports.SchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(reports.SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(reports.SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestHostileTargetZoo runs the whole server suite (every version) and a
// fuzz campaign against each hostile target of the zoo and wants, from
// every run: an end within its bound, a valid report naming what the
// target did, an exit code that says the truth, a peak RSS under 256 MiB
// and no process of the target left behind. It logs a table of the
// figures (MCPCHECK_ZOO_TABLE=FILE also writes it as Markdown).
//
// Under `make test` the zoo is its fast tier (zooTier: one version, 2 s
// campaigns, a 15 s start-up allowance, 3 s waits for the silent
// entries), it shares the machine with the package's other parallel
// tests, and its entries run six at a time, the longest first: most of
// an entry's time is spent waiting on a target that does not answer, not
// computing, so they are started from goroutines rather than as parallel
// subtests, which would take the package's parallel slots. No verdict
// depends on the load: request-storm answers each request only after
// more requests of its own than a wait of mcpcheck lets pass (it used to
// race its answers, and lost the "floods" at load 25-60), and its suite
// and 200000-tools' wait a minute for each answer (zooEntry.timeout): the
// time to read what they send is mcpcheck's own.
// `make zoo` is the full tier (MCPCHECK_ZOO_FULL=1: every version,
// the default start-up allowance, 30 s campaigns) one entry at a time
// (MCPCHECK_ZOO_PARALLEL=1, for uncontended figures and the 60 s bound,
// the only wall time the zoo holds against a run).
// MCPCHECK_ZOO_FUZZ overrides the campaigns' length.
// MCPCHECK_ZOO_PARALLEL is how many entries share the machine, never how
// mcpcheck runs: every run gets the defaults users get (no --parallel,
// so 12 checks at a time over HTTP and 4 per core over stdio, and no
// GOMEMLIMIT or GOGC from the environment), and the RSS bound holds for
// every entry whatever the setting.
func TestHostileTargetZoo(t *testing.T) {
	if os.Getenv("MCPCHECK_ZOO_PARALLEL") != "1" {
		t.Parallel() // make zoo runs it alone, before the sandbox zoo
	}
	bin := mcpcheckBin(t)
	if runtime.GOOS != "linux" {
		t.Skip("the zoo reads peak RSS and process states the Linux way")
	}
	dir := t.TempDir()
	zoo := zooProgram(t)
	tier := zooTierFromEnv()
	fuzzFor := tier.fuzz
	parallel := 6
	if n, err := strconv.Atoi(os.Getenv("MCPCHECK_ZOO_PARALLEL")); err == nil && n > 0 {
		parallel = n
	}
	bound := zooSuiteBoundShared + tier.allowance()
	if parallel == 1 {
		bound = zooSuiteBound + tier.allowance()
	}
	sch := reportSchema(t)
	sem := make(chan struct{}, parallel)
	var mu sync.Mutex
	rows := map[string]string{}
	t.Run("entries", func(t *testing.T) {
		var wg sync.WaitGroup
		defer wg.Wait()
		for _, e := range zooEntries() {
			sem <- struct{}{} // here, so that the entries start in order
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				t.Run(e.name, func(t *testing.T) {
					var targetArgs []string
					pidFile := filepath.Join(dir, e.name+".pids")
					if e.http != nil {
						srv := httptest.NewServer(e.http) // 127.0.0.1
						defer srv.Close()
						defer srv.CloseClientConnections()
						targetArgs = []string{"--url", srv.URL + "/mcp"}
					} else {
						targetArgs = []string{"--stdio", shellQuote(zoo) + " " + e.mode + " " + shellQuote(pidFile)}
					}
					protocol := tier.protocol
					if e.protocol != "" && tier.protocol != "all" {
						protocol = e.protocol
					}
					out := filepath.Join(dir, e.name+"-suite")
					suite := runZoo(t, bin, bound+20*time.Second, append(append(append([]string{"server"}, targetArgs...), tier.entryArgs("server", e)...),
						"--protocol", protocol, "--format", "json,junit", "--out", out)...)
					if parallel == 1 && suite.wall > bound {
						t.Errorf("the suite took %v, over the %v bound", suite.wall.Round(time.Second), bound)
					}
					if !containsInt(e.exits, suite.exit) {
						t.Errorf("the suite exited %d, want one of %v\n%s", suite.exit, e.exits, tail(suite.stderr, 2000))
					}
					report := checkZooReports(t, sch, out)
					said := ""
					for _, s := range e.says {
						if strings.Contains(report, s) {
							said = s
							break
						}
					}
					if said == "" {
						t.Errorf("the report names none of %q: it does not say what the target did", e.says)
					}
					left := 0
					if e.http == nil {
						left = len(zooLeftovers(t, pidFile))
					}

					fout := filepath.Join(dir, e.name+"-fuzz")
					fz := runZoo(t, bin, fuzzFor+zooFuzzSlack+tier.allowance(), append(append(append([]string{"fuzz"}, targetArgs...), tier.entryArgs("fuzz", e)...),
						"--duration", fuzzFor.String(), "--wait", "2s", "--seed", "1", "--out", fout, "--format", "json")...)
					if fz.exit != 0 && fz.exit != exitFailed && fz.exit != exitHarness {
						t.Errorf("the campaign exited %d\n%s", fz.exit, tail(fz.stderr, 2000))
					}
					var summary struct {
						Execs    int `json:"execs"`
						Findings []struct {
							Kind string `json:"kind"`
						} `json:"findings"`
					}
					fb, err := os.ReadFile(filepath.Join(fout, "mcpcheck-fuzz.json"))
					if err != nil || json.Unmarshal(fb, &summary) != nil {
						t.Errorf("the campaign wrote no readable summary: %v", err)
					}
					if e.http == nil {
						left += len(zooLeftovers(t, pidFile))
					}
					if left > 0 {
						t.Errorf("%d processes of the target were left running", left)
					}
					for what, r := range map[string]zooRun{"suite": suite, "campaign": fz} {
						if r.rss > zooRSSBound {
							t.Errorf("the %s's peak RSS was %d MiB, over the %d MiB bound", what, r.rss>>20, zooRSSBound>>20)
						}
					}
					mu.Lock()
					rows[e.name] = fmt.Sprintf("| %s | %.1f s | %d | %d MiB | %q | %.1f s | %d | %d MiB | %d execs, %d findings | %d |",
						e.name, suite.wall.Seconds(), suite.exit, suite.rss>>20, said,
						fz.wall.Seconds(), fz.exit, fz.rss>>20, summary.Execs, len(summary.Findings), left)
					mu.Unlock()
				})
			}()
		}
	})
	var table strings.Builder
	table.WriteString("| entry | suite wall | exit | peak RSS | report names | fuzz wall | exit | peak RSS | campaign | left running |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, e := range zooEntries() {
		if r, ok := rows[e.name]; ok {
			table.WriteString(r + "\n")
		}
	}
	t.Logf("the zoo (protocol %s, start-up allowance %v, campaigns of %v, %d at a time):\n%s", tier.protocol, tier.allowance(), fuzzFor, parallel, table.String())
	if f := os.Getenv("MCPCHECK_ZOO_TABLE"); f != "" {
		if err := os.WriteFile(f, []byte(table.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

var (
	zooOnce sync.Once
	zooFile string
	zooErr  error
)

// zooProgram builds the stdio zoo program (testdata/zoo) once per test
// process, into the directory of mcpcheckBin's build, and returns it.
func zooProgram(t *testing.T) string {
	t.Helper()
	bin := mcpcheckBin(t)
	zooOnce.Do(func() {
		zooFile = filepath.Join(filepath.Dir(bin), "zoo")
		if out, err := exec.Command("go", "build", "-o", zooFile, "./testdata/zoo").CombinedOutput(); err != nil {
			zooErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if zooErr != nil {
		t.Fatalf("building the zoo: %v", zooErr)
	}
	return zooFile
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
