// Command interop checks third-party MCP servers and clients with mcpcheck
// and regenerates the interop matrices (reports/interop/MATRIX.md,
// MATRIX.html and MATRIX.json for servers, CLIENTS.md, CLIENTS.html and
// CLIENTS.json for clients).
//
// It reads a list of peers (reports/interop/peers.json), installs the npm
// packages and Go module-proxy packages the list pins into a cache directory
// ($MCPCHECK_INTEROP_DIR, else $HOME/.cache/mcpcheck-interop), builds
// mcpcheck from this checkout, starts each server over stdio or on a free
// 127.0.0.1 port, runs "mcpcheck server" against it with a time bound, and
// builds the matrix from the JSON reports. Each client is checked the same
// way with "mcpcheck client" (mcpcheck plays the server and launches it). A server that cannot be installed,
// does not start or does not finish in time is a column with an error, never
// a hang. Run it from the module root: "make interop" or "go run ./cmd/interop".
//
// With -census it runs the ecosystem census instead (reports/interop/census.json,
// "make census"): the most-used npm MCP servers and hosts, one at a time,
// each in its own npm prefix and scratch HOME, hosts through "interop drive
// KIND" (see drive.go), resumable (an entry whose report is current for the
// same entry and mcpcheck binary is not run again), sharded with -shard K/N
// and merged with -matrix-only; it writes CENSUS.md, CENSUS.html,
// CENSUS.json and the CENSUS-SERVERS and CENSUS-HOSTS matrices.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/shard"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"

	"github.com/mcpcheck/mcpcheck/reports"
)

// peerList is the file format of reports/interop/peers.json.
type peerList struct {
	Comment string   `json:"comment,omitempty"`
	NPM     []string `json:"npm"`
	Go      []goPkg  `json:"go"`
	Peers   []peer   `json:"peers"`
	Clients []client `json:"clients"`
}

// client is one MCP client over one transport, checked with mcpcheck
// client: Command is its command line, with {url} (HTTP) or {server} /
// {server-line} (stdio) where mcpcheck puts the server.
type client struct {
	Name           string            `json:"name"`
	Transport      string            `json:"transport"` // stdio or streamable
	Implementation string            `json:"implementation"`
	Command        string            `json:"command"`
	Env            map[string]string `json:"env,omitempty"`
}

func (c client) id() string { return "client-" + c.Name + "-" + c.Transport }

// goPkg is a main package installed from the Go module proxy, or built
// from a module of this checkout (Dir) whose dependencies come from it.
type goPkg struct {
	Name    string `json:"name"`
	Package string `json:"package,omitempty"`
	Version string `json:"version,omitempty"`
	// Dir is a main module of this checkout, relative to the module root
	// (a client of cmd/interop/clients with its own go.mod), built
	// into ${GOBIN:Name}/Name on every install.
	Dir string `json:"dir,omitempty"`
}

// peer is one server over one transport.
type peer struct {
	Name           string            `json:"name"`
	Transport      string            `json:"transport"` // stdio, streamable or sse
	Implementation string            `json:"implementation"`
	Command        []string          `json:"command"`
	Env            map[string]string `json:"env,omitempty"`
	URL            string            `json:"url,omitempty"`
	// AuthorizationFile is where an HTTP peer that wants a bearer token
	// writes the Authorization value mcpcheck sends (a peer that trusts an
	// mcpcheck authserver mints it before it listens); mcpcheck gets it
	// through --header-env, so it is in no command line and no report.
	AuthorizationFile string `json:"authorizationFile,omitempty"`
}

func (p peer) id() string { return p.Name + "-" + p.Transport }

// config is the parsed command line.
type config struct {
	dir, peers, out, only string
	protocol              string
	perServer, step       time.Duration
	jobs                  int
	skipInstall           bool
	matrixOnly            bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := mainErr(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "interop: %v\n", err)
		os.Exit(1)
	}
}

func defaultDir() string {
	if d := os.Getenv("MCPCHECK_INTEROP_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "mcpcheck-interop")
	}
	return filepath.Join(os.TempDir(), "mcpcheck-interop")
}

func mainErr(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "drive" {
		return drive(ctx, args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("interop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.dir, "dir", defaultDir(), "cache directory for installs and runs ($MCPCHECK_INTEROP_DIR)")
	fs.StringVar(&c.peers, "peers", "reports/interop/peers.json", "the peer list")
	fs.StringVar(&c.out, "out", "reports/interop", "where MATRIX.md, MATRIX.html and MATRIX.json are written")
	fs.StringVar(&c.only, "only", "", "comma list of peer names (or name-transport) to run; default all")
	fs.StringVar(&c.protocol, "protocol", "all", "passed to mcpcheck server --protocol")
	fs.DurationVar(&c.perServer, "server-timeout", 10*time.Minute, "bound on one server's whole run")
	fs.DurationVar(&c.step, "step-timeout", 10*time.Second, "passed to mcpcheck server --timeout")
	fs.IntVar(&c.jobs, "jobs", 2, "servers checked at the same time")
	fs.BoolVar(&c.skipInstall, "skip-install", false, "use what is already in the cache directory")
	fs.BoolVar(&c.matrixOnly, "matrix-only", false, "only rebuild the matrix from the reports of the last runs in the cache directory")
	shardFlag := fs.String("shard", "", "K/N: check only part K of N of the selected servers and clients (one CI job each); then gather every job's DIR/runs into one cache directory and run -matrix-only")
	census := fs.Bool("census", false, "run the ecosystem census (-census-list) instead of the interop peers: one entry at a time, an entry with a current report (same entry, same mcpcheck binary) is not run again; writes CENSUS*.md, .html and .json into -out")
	var cc censusConfig
	fs.StringVar(&cc.list, "census-list", "reports/interop/census.json", "the census list (-census)")
	fs.StringVar(&cc.mcpcheck, "mcpcheck", "", "a prebuilt mcpcheck binary (-census; default: build one from this checkout)")
	fs.DurationVar(&cc.caseLimit, "startup-timeout", 2*time.Minute, "how long a census server may take to start (-census)")
	fs.DurationVar(&cc.hostLimit, "case-timeout", 90*time.Second, "bound on one launch of a census host, passed to mcpcheck client --case-timeout (-census)")
	fs.BoolVar(&cc.force, "force", false, "run census entries again even when their reports are current (-census)")
	diffOld := fs.String("census-diff", "", "OLD.json: after writing the census, list every cell, verdict and broken requirement that moved from OLD (a CENSUS.json, read before it is overwritten) to the new CENSUS.json (-census)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	part, err := shard.Parse(*shardFlag)
	if err != nil {
		return fmt.Errorf("-%v", err)
	}
	if *census {
		if c.dir, err = filepath.Abs(c.dir); err != nil {
			return err
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["jobs"] {
			c.jobs = 1 // a census host's launches at once: 2 cores, Node hosts
		}
		if !set["server-timeout"] {
			c.perServer = 45 * time.Minute
		}
		if !set["step-timeout"] {
			c.step = 20 * time.Second
		}
		if !set["out"] {
			c.out = filepath.Dir(cc.list)
		}
		cc.config = c
		if *diffOld == "" {
			return runCensus(ctx, cc, part, stdout, stderr)
		}
		old, err := os.ReadFile(*diffOld)
		if err != nil {
			return fmt.Errorf("-census-diff: %v", err)
		}
		if err := runCensus(ctx, cc, part, stdout, stderr); err != nil {
			return err
		}
		tmp, err := os.CreateTemp("", "census-old-*.json")
		if err != nil {
			return err
		}
		defer os.Remove(tmp.Name())
		if _, err := tmp.Write(old); err != nil {
			tmp.Close()
			return err
		}
		tmp.Close()
		_, err = censusDiff(tmp.Name(), filepath.Join(c.out, "CENSUS.json"), stdout)
		return err
	}
	if c.jobs < 1 {
		return fmt.Errorf("-jobs must be at least 1")
	}
	b, err := os.ReadFile(c.peers)
	if err != nil {
		return fmt.Errorf("read the peer list: %v; run from the module root or pass -peers", err)
	}
	var list peerList
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("peer list %s: %v", c.peers, err)
	}
	if c.dir, err = filepath.Abs(c.dir); err != nil {
		return err
	}
	// Every run starts from the same scratch root, as from an empty
	// knowledge graph below: the filesystem peer's tools write into it
	// (--call-tools all), and what an earlier run left there changed its
	// tool results, so a matrix cell moved between regenerations.
	if err := os.RemoveAll(filepath.Join(c.dir, "fsroot")); err != nil {
		return fmt.Errorf("clear the filesystem peer's scratch root: %v", err)
	}
	for _, d := range []string{"bin", "runs", "fsroot", "logs", "home"} {
		if err := os.MkdirAll(filepath.Join(c.dir, d), 0o755); err != nil {
			return fmt.Errorf("create the cache directory: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(c.dir, "fsroot", "hello.txt"), []byte("hello from mcpcheck interop\n"), 0o644); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(c.dir, "memory.jsonl")) // every run starts from an empty knowledge graph
	if err := os.WriteFile(filepath.Join(c.dir, "loopback.cjs"), []byte(loopbackPreload), 0o644); err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "interop: "+format+"\n", a...) }

	mcpcheck := filepath.Join(c.dir, "bin", "mcpcheck")
	if c.matrixOnly {
		return writeMatrix(c, list, stdout)
	}
	logf("building mcpcheck from this checkout into %s", mcpcheck)
	if err := runLogged(ctx, stderr, nil, "go", "build", "-o", mcpcheck, "./cmd/mcpcheck"); err != nil {
		return fmt.Errorf("build mcpcheck: %v (run from the module root)", err)
	}
	installErr := map[string]error{} // by install unit: "npm" or a go package name
	if !c.skipInstall {
		installErr = install(ctx, c.dir, list, logf, stderr)
	}

	vars := map[string]string{"${NPM}": filepath.Join(c.dir, "npm"), "${MCPCHECK}": mcpcheck, "${DIR}": c.dir, "${PRELOAD}": filepath.Join(c.dir, "loopback.cjs")}
	for _, g := range list.Go {
		vars["${GOBIN:"+g.Name+"}"] = filepath.Join(c.dir, "go", g.Name)
	}
	vars["${CLIENTS}"] = vars0(c)
	peers, clients, selected := selectTargets(list, c.only, part)
	if selected == 0 {
		return fmt.Errorf("-only %q matches no peer or client in %s", c.only, c.peers)
	}
	if len(peers)+len(clients) == 0 {
		logf("shard %s: none of the %d selected targets falls to this part (more parts than targets)", part, selected)
		return nil
	}

	sem := make(chan struct{}, c.jobs)
	var wg sync.WaitGroup
	for _, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			run := checkPeer(ctx, c, p, vars, mcpcheck, installFailure(p, list, installErr))
			if len(run.Checks) == 0 {
				// Keep the failure where -matrix-only finds it.
				if err := saveRun(filepath.Join(c.dir, "runs", p.id(), "mcpcheck-server.json"), run); err != nil {
					logf("%s: %v", p.id(), err)
				}
			}
			sum := reports.Summarize(run)
			logf("%-32s %-10s %d checks: pass %d, fail %d, warn %d, error %d, untestable %d, n/a %d%s (%s)", p.id(), sum.Headline, len(run.Checks),
				sum.Total.Pass, sum.Total.Fail, sum.Total.Warn, sum.Total.Error, sum.Total.Untestable, sum.Total.NA, problemNote(run), time.Since(start).Round(time.Second))
		}()
	}
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			run := checkClient(ctx, c, cl, vars, mcpcheck, installFailureOf(cl.Command, list, installErr))
			if len(run.Checks) == 0 {
				if err := saveRun(filepath.Join(c.dir, "runs", cl.id(), "mcpcheck-client.json"), run); err != nil {
					logf("%s: %v", cl.id(), err)
				}
			}
			sum := reports.Summarize(run)
			logf("%-32s %-10s %d checks: pass %d, fail %d, warn %d, error %d, untestable %d, n/a %d%s (%s)", cl.id(), sum.Headline, len(run.Checks),
				sum.Total.Pass, sum.Total.Fail, sum.Total.Warn, sum.Total.Error, sum.Total.Untestable, sum.Total.NA, problemNote(run), time.Since(start).Round(time.Second))
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %v; the matrix was not regenerated", ctx.Err())
	}
	if part.N > 1 {
		// A part's matrix would show every other server as never run.
		fmt.Fprintf(stdout, "shard %s: %d servers and %d clients checked; their reports are in %s. Gather the runs directories of all %d parts into one cache directory and run: go run ./cmd/interop -matrix-only -dir DIR\n",
			part, len(peers), len(clients), filepath.Join(c.dir, "runs"), part.N)
		return nil
	}

	return writeMatrix(c, list, stdout)
}

// selectTargets returns the servers and clients of list that -only
// selects (all when only is empty) and that fall to part, and how many
// -only selected in all. Parts split the selection by position, servers
// first, so the parts of one split check every selected target once.
func selectTargets(list peerList, only string, part shard.Part) (peers []peer, clients []client, selected int) {
	for _, p := range list.Peers {
		if only == "" || containsAny(only, p.Name, p.id()) {
			if part.Holds(selected) {
				peers = append(peers, p)
			}
			selected++
		}
	}
	for _, cl := range list.Clients {
		if only == "" || containsAny(only, cl.Name, cl.id()) {
			if part.Holds(selected) {
				clients = append(clients, cl)
			}
			selected++
		}
	}
	return peers, clients, selected
}

// writeMatrix builds the matrix from the last report of every peer in the
// list (a peer never run is a column with an error) and writes MATRIX.md,
// MATRIX.html and MATRIX.json (and the CLIENTS files) into c.out.
func writeMatrix(c config, list peerList, stdout io.Writer) error {
	var inputs []reports.MatrixInput
	for _, p := range list.Peers {
		path := filepath.Join(c.dir, "runs", p.id(), "mcpcheck-server.json")
		run, err := loadRun(path)
		if err != nil {
			run = failedRun(p, "no report from a run of this server: %v; run 'make interop'", err)
		}
		// The matrix is committed: say where the cache is, not whose home it is in.
		run.Target.Command = strings.ReplaceAll(run.Target.Command, c.dir, "$MCPCHECK_INTEROP_DIR")
		run.Target.StderrTail = strings.ReplaceAll(run.Target.StderrTail, c.dir, "$MCPCHECK_INTEROP_DIR")
		inputs = append(inputs, reports.MatrixInput{Name: p.Name + " (" + p.Transport + ")", Description: p.Implementation, Run: run})
	}
	if err := writeMatrixFiles(c, stdout, "MCP interop matrix", "MATRIX", inputs); err != nil {
		return err
	}
	if len(list.Clients) > 0 {
		var cinputs []reports.MatrixInput
		for _, cl := range list.Clients {
			path := filepath.Join(c.dir, "runs", cl.id(), "mcpcheck-client.json")
			run, err := loadRun(path)
			if err != nil {
				run = failedClientRun(cl, "no report from a run of this client: %v; run 'make interop'", err)
			}
			run.Target.Command = strings.ReplaceAll(run.Target.Command, c.dir, "$MCPCHECK_INTEROP_DIR")
			run.Target.Command = strings.ReplaceAll(run.Target.Command, vars0(c), "$CHECKOUT/cmd/interop/clients")
			cinputs = append(cinputs, reports.MatrixInput{Name: cl.Name + " (" + cl.Transport + ")", Description: cl.Implementation, Run: run})
		}
		if err := writeMatrixFiles(c, stdout, "MCP client interop matrix", "CLIENTS", cinputs); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "per-target reports (JSON, HTML) and logs: %s\n", c.dir)
	return nil
}

// clientsDir is where the committed client programs live (the TS SDK
// script and the mcp-go client module), relative to the module root the
// runner is started from: under cmd/, since they are commands.
const clientsDir = "cmd/interop/clients"

// vars0 is the absolute directory of the committed client programs
// (${CLIENTS} in the peer list).
func vars0(config) string {
	d, _ := filepath.Abs(clientsDir)
	return d
}

// writeMatrixFiles builds one matrix and writes BASE.md, BASE.html and
// BASE.json (per column, every requirement each broken check broke, for
// comparing one regeneration with the last).
func writeMatrixFiles(c config, stdout io.Writer, title, base string, inputs []reports.MatrixInput) error {
	m, err := reports.BuildMatrix(title, inputs, reports.Options{})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{{base + ".md", m.WriteMarkdown}, {base + ".html", m.WriteHTML}, {base + ".json", m.WriteJSON}} {
		path := filepath.Join(c.out, f.name)
		var buf bytes.Buffer
		if err := f.write(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write %s: %v", path, err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	return nil
}

func loadRun(path string) (*reports.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return reports.ReadJSON(f)
}

func saveRun(path string, run *reports.Run) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, run, reports.Options{}); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// failedRun is the report of a peer that could not be checked: no checks,
// one problem saying what happened.
func failedRun(p peer, format string, a ...any) *reports.Run {
	return &reports.Run{
		Schema: reports.Schema, Tool: reports.Tool{Name: "mcpcheck"}, Transport: p.Transport,
		Target:   reports.Target{Kind: kindOf(p), Command: strings.Join(p.Command, " "), URL: p.URL, Role: "server"},
		Problems: []string{fmt.Sprintf(format, a...)},
	}
}

func problemNote(run *reports.Run) string {
	if len(run.Problems) == 0 {
		return ""
	}
	return "; problem: " + firstLine(run.Problems[0])
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func containsAny(list string, names ...string) bool {
	for _, x := range strings.Split(list, ",") {
		for _, n := range names {
			if strings.TrimSpace(x) == n {
				return true
			}
		}
	}
	return false
}

// install installs the npm packages and Go packages of the list into dir,
// skipping what a stamp file says is already there. It returns the failures
// by unit ("npm", or a Go package's name); a failure does not stop the
// others, its servers become error columns.
func install(ctx context.Context, dir string, list peerList, logf func(string, ...any), log io.Writer) map[string]error {
	errs := map[string]error{}
	if len(list.NPM) > 0 {
		prefix := filepath.Join(dir, "npm")
		stamp := filepath.Join(prefix, ".mcpcheck-installed")
		want := strings.Join(list.NPM, "\n")
		if got, _ := os.ReadFile(stamp); string(got) != want {
			logf("npm install --prefix %s %s", prefix, strings.Join(list.NPM, " "))
			args := append([]string{"install", "--no-audit", "--no-fund", "--prefix", prefix}, list.NPM...)
			if err := runLogged(ctx, log, nil, "npm", args...); err != nil {
				errs["npm"] = fmt.Errorf("npm install failed: %v; is npm installed and the registry reachable?", err)
			} else {
				_ = os.WriteFile(stamp, []byte(want), 0o644)
			}
		}
	}
	for _, g := range list.Go {
		bin := filepath.Join(dir, "go", g.Name)
		if g.Dir != "" {
			src, _ := filepath.Abs(g.Dir)
			logf("go build -C %s -o %s .", src, filepath.Join(bin, g.Name))
			env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
			if err := runLogged(ctx, log, env, "go", "build", "-C", src, "-o", filepath.Join(bin, g.Name), "."); err != nil {
				errs[g.Name] = fmt.Errorf("go build in %s failed: %v; is the Go module proxy reachable?", g.Dir, err)
			}
			continue
		}
		stamp := filepath.Join(bin, ".mcpcheck-installed")
		want := g.Package + "@" + g.Version
		if got, _ := os.ReadFile(stamp); string(got) == want {
			continue
		}
		logf("GOBIN=%s go install %s", bin, want)
		env := append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod", "GOWORK=off")
		if err := runLogged(ctx, log, env, "go", "install", want); err != nil {
			errs[g.Name] = fmt.Errorf("go install %s failed: %v; is the Go module proxy reachable?", want, err)
			continue
		}
		_ = os.WriteFile(stamp, []byte(want), 0o644)
	}
	return errs
}

// installFailure returns the install error that keeps p from running.
func installFailure(p peer, list peerList, errs map[string]error) error {
	return installFailureOf(strings.Join(p.Command, " "), list, errs)
}

// installFailureOf returns the install error that keeps a command line
// from running.
func installFailureOf(joined string, list peerList, errs map[string]error) error {
	if err := errs["npm"]; err != nil && strings.Contains(joined, "${NPM}") {
		return err
	}
	for _, g := range list.Go {
		if err := errs[g.Name]; err != nil && strings.Contains(joined, "${GOBIN:"+g.Name+"}") {
			return err
		}
	}
	return nil
}

func runLogged(ctx context.Context, log io.Writer, env []string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr, cmd.Env = log, log, env
	return cmd.Run()
}

// checkPeer runs mcpcheck against one peer and returns its report; every
// way of failing becomes a run with a problem that says what happened.
func checkPeer(ctx context.Context, c config, p peer, vars map[string]string, mcpcheck string, installErr error) *reports.Run {
	failed := func(format string, a ...any) *reports.Run {
		run := failedRun(p, format, a...)
		run.Started = time.Now().UTC()
		return run
	}
	if installErr != nil {
		return failed("not installed: %v", installErr)
	}
	ctx, cancel := context.WithTimeout(ctx, c.perServer)
	defer cancel()
	outDir := filepath.Join(c.dir, "runs", p.id())
	_ = os.RemoveAll(outDir)
	if p.Transport != "stdio" {
		port, err := freePort()
		if err != nil {
			return failed("no free loopback port: %v", err)
		}
		vars = withVar(vars, "${PORT}", port)
	}
	argv := expandAll(p.Command, vars)
	env := os.Environ()
	for _, k := range sortedKeys(p.Env) {
		env = append(env, k+"="+expand(p.Env[k], vars))
	}
	logPath := filepath.Join(c.dir, "logs", p.id()+".log")
	// The peers are disposable instances the lab installed for this run
	// (scratch roots, scratch memory files): every tool is called, so the
	// matrix judges every tool result, not just those annotated
	// read-only, which is all a user's default run calls.
	args := []string{"server", "--protocol", c.protocol, "--timeout", c.step.String(), "--format", "json,html", "--out", outDir, "--call-tools", "all"}
	if p.Transport == "stdio" {
		args = append(args, "--stdio", shellJoin(argv))
	} else {
		url := expand(p.URL, vars)
		if p.AuthorizationFile != "" {
			_ = os.Remove(expand(p.AuthorizationFile, vars)) // the last run's, stale
		}
		srv, err := startServer(ctx, argv, env, logPath, url)
		if err != nil {
			return failed("the server did not start: %v", err)
		}
		defer srv.stop()
		args = append(args, "--url", url, "--transport", p.Transport)
		if p.AuthorizationFile != "" {
			f := expand(p.AuthorizationFile, vars)
			b, err := waitAuthorization(ctx, f, srv)
			if err != nil {
				return failed("the server wrote no Authorization value to %s (authorizationFile): %v", f, err)
			}
			env = append(env, interopAuthEnv+"="+string(bytes.TrimSpace(b)))
			args = append(args, "--header-env", "Authorization:"+interopAuthEnv)
		}
	}
	return runMcpcheck(ctx, c, mcpcheck, p.id(), args, env, filepath.Join(outDir, "mcpcheck-server.json"), failed)
}

// waitAuthorization reads a peer's authorizationFile once it holds a
// value: a peer may get its token after it listens (through its own OAuth
// flow), so the file is read again until then, for at most 30 s, or until
// the server exits.
func waitAuthorization(ctx context.Context, f string, srv *server) ([]byte, error) {
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		b, err := os.ReadFile(f)
		if err == nil && len(bytes.TrimSpace(b)) > 0 {
			return b, nil
		}
		select {
		case werr := <-srv.done:
			srv.done <- werr
			return nil, fmt.Errorf("the server exited (%v)", werr)
		case <-deadline.C:
			return nil, fmt.Errorf("nothing within 30 s of its listening: %v", err)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// interopAuthEnv is the variable that carries a peer's Authorization
// value to mcpcheck (--header-env).
const interopAuthEnv = "MCPCHECK_INTEROP_AUTHORIZATION"

// mcpcheckGrace is how long an interrupted mcpcheck has to stop its
// targets and write its report before it is killed.
var mcpcheckGrace = 20 * time.Second

// runMcpcheck runs mcpcheck with args (in its own process group, bounded by
// ctx), keeps its output in the logs, and returns the JSON report it wrote
// at report, or failed's report saying why there is none.
func runMcpcheck(ctx context.Context, c config, mcpcheck, id string, args, env []string, report string, failed func(string, ...any) *reports.Run) *reports.Run {
	return runMcpcheckIn(ctx, c, mcpcheck, id, args, env, "", filepath.Join(c.dir, "logs"), report, failed)
}

// runMcpcheckIn is runMcpcheck in the working directory workDir ("" the
// current one), keeping its output in logDir.
func runMcpcheckIn(ctx context.Context, c config, mcpcheck, id string, args, env []string, workDir, logDir, report string, failed func(string, ...any) *reports.Run) *reports.Run {
	cmd := exec.CommandContext(ctx, mcpcheck, args...)
	cmd.Env, cmd.Dir = env, workDir
	target.InOwnGroup(cmd)
	// Out of time, mcpcheck is interrupted as a user would (SIGTERM): it
	// stops the servers it started, which run in process groups of their
	// own, and writes its report. A SIGKILL would leave those servers
	// running (six circleci processes were found after a stopped census
	// run). What is still running after mcpcheckGrace is killed.
	cmd.Cancel = func() error { target.TermGroup(cmd); return nil }
	cmd.WaitDelay = mcpcheckGrace
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	target.KillGroup(cmd)
	_ = os.WriteFile(filepath.Join(logDir, id+".mcpcheck.log"), out.Bytes(), 0o644)
	if ctx.Err() != nil {
		return failed("mcpcheck did not finish within %s (-server-timeout); see %s", c.perServer, logDir)
	}
	if _, serr := os.Stat(report); serr != nil {
		return failed("mcpcheck wrote no report (%v): %s", err, tail(out.String(), 600))
	}
	run, rerr := loadRun(report)
	if rerr != nil {
		return failed("the report %s does not read back: %v", report, rerr)
	}
	return run
}

func kindOf(p peer) string {
	switch p.Transport {
	case "stdio":
		return reports.TargetStdio
	case "sse":
		return reports.TargetSSE
	}
	return reports.TargetHTTP
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// server is an HTTP peer started for one run.
type server struct {
	cmd  *exec.Cmd
	done chan error
	log  *os.File
}

// startServer starts argv in its own process group, logging to logPath,
// and waits until url's host:port accepts connections, the process exits,
// or 30 s pass.
func startServer(ctx context.Context, argv, env []string, logPath, url string) (*server, error) {
	return startServerIn(ctx, argv, env, "", logPath, url, 30*time.Second)
}

// startServerIn is startServer in the working directory workDir ("" the
// current one), waiting at most allowance for the server to listen.
func startServerIn(ctx context.Context, argv, env []string, workDir, logPath, url string, allowance time.Duration) (*server, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, workDir
	cmd.Stdout, cmd.Stderr = log, log
	target.InOwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %v", argv[0], err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1), log: log}
	go func() { s.done <- cmd.Wait() }()
	hostport := strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
	hostport, _, _ = strings.Cut(hostport, "/")
	deadline := time.NewTimer(allowance)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := net.DialTimeout("tcp", hostport, time.Second)
		if err == nil {
			conn.Close()
			return s, nil
		}
		select {
		case werr := <-s.done:
			s.done <- werr
			s.stop()
			b, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("%s exited before listening on %s (%v): %s", argv[0], hostport, werr, tail(string(b), 600))
		case <-deadline.C:
			s.stop()
			return nil, fmt.Errorf("%s was not listening on %s after %s; log: %s", argv[0], hostport, allowance, logPath)
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// stop kills the server's process group and waits for it (bounded).
func (s *server) stop() {
	target.KillGroup(s.cmd)
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case err := <-s.done:
		s.done <- err
	case <-t.C:
	}
	s.log.Close()
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	return port, err
}

func withVar(vars map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(vars)+1)
	for kk, vv := range vars {
		out[kk] = vv
	}
	out[k] = v
	return out
}

func expand(s string, vars map[string]string) string {
	for _, k := range sortedKeys(vars) {
		s = strings.ReplaceAll(s, k, vars[k])
	}
	return s
}

func expandAll(list []string, vars map[string]string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = expand(s, vars)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// shellJoin quotes argv for mcpcheck's --stdio, which splits like a shell.
func shellJoin(argv []string) string {
	var out []string
	for _, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`") {
			out = append(out, a)
			continue
		}
		out = append(out, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(out, " ")
}

// loopbackPreload is a Node preload (node --require) that makes every
// net.Server.listen() call that names no host bind 127.0.0.1 instead of all
// interfaces, so servers that hard-code listen(PORT) stay on loopback.
const loopbackPreload = `'use strict';
// Written by mcpcheck's interop runner: keep listen() without a host on 127.0.0.1.
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const a0 = args[0];
  if (a0 !== null && typeof a0 === 'object' && !Array.isArray(a0)) {
    if (a0.port !== undefined && a0.host === undefined && a0.path === undefined) {
      args[0] = Object.assign({}, a0, { host: '127.0.0.1' });
    }
  } else if (typeof a0 === 'number' || (typeof a0 === 'string' && /^[0-9]+$/.test(a0))) {
    if (typeof args[1] !== 'string') {
      args.splice(1, 0, '127.0.0.1');
    }
  } else if (a0 === undefined || typeof a0 === 'function') {
    args.unshift(0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
`

// failedClientRun is the report of a client that could not be checked.
func failedClientRun(cl client, format string, a ...any) *reports.Run {
	kind := reports.TargetHTTP
	if cl.Transport == "stdio" {
		kind = reports.TargetStdio
	}
	return &reports.Run{
		Schema: reports.Schema, Tool: reports.Tool{Name: "mcpcheck"}, Transport: cl.Transport,
		Target:   reports.Target{Kind: kind, Command: cl.Command, Role: "client"},
		Problems: []string{fmt.Sprintf(format, a...)},
	}
}

// checkClient runs mcpcheck client against one client and returns its
// report; every way of failing becomes a run with a problem saying what
// happened.
func checkClient(ctx context.Context, c config, cl client, vars map[string]string, mcpcheck string, installErr error) *reports.Run {
	failed := func(format string, a ...any) *reports.Run {
		run := failedClientRun(cl, format, a...)
		run.Started = time.Now().UTC()
		return run
	}
	if installErr != nil {
		return failed("not installed: %v", installErr)
	}
	ctx, cancel := context.WithTimeout(ctx, c.perServer)
	defer cancel()
	outDir := filepath.Join(c.dir, "runs", cl.id())
	_ = os.RemoveAll(outDir)
	env := os.Environ()
	for _, k := range sortedKeys(cl.Env) {
		env = append(env, k+"="+expand(cl.Env[k], vars))
	}
	flag := "--command"
	if cl.Transport == "stdio" {
		flag = "--stdio"
	}
	args := []string{"client", flag, expand(cl.Command, vars), "--protocol", c.protocol, "--format", "json,html", "--out", outDir}
	return runMcpcheck(ctx, c, mcpcheck, cl.id(), args, env, filepath.Join(outDir, "mcpcheck-client.json"), failed)
}
