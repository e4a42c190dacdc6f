package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
)

// driveKinds are the host drivers of "interop drive KIND": each writes the
// host's own MCP configuration into a throwaway HOME, naming the server
// mcpcheck stages (a stdio command line after "--", or -url), and runs
// the command that makes the host connect to it without a model.
var driveKinds = map[string]string{
	"claude-code": "Claude Code: the server in ~/.claude.json (user scope), then 'claude mcp list', which connects and lists tools",
	"gemini-cli":  "Gemini CLI: the server in ~/.gemini/settings.json, GEMINI_CLI_TRUST_WORKSPACE=true, then 'gemini mcp list'",
	"codex":       "Codex: the server in $CODEX_HOME/config.toml with a model provider on a local endpoint that answers 400 after a delay, then one 'codex exec' turn with stdin from /dev/null",
	"node-script": "a client library or bridge: a script of reports/interop/census-hosts run with Node (-script), given the server command after -- or -url",
}

// fakeModelDelay is how long the fake model endpoint waits before it
// answers 400: the time Codex has to start its MCP servers and list
// their tools while its first turn waits for the model.
const fakeModelDelay = 15 * time.Second

// drive runs one host against the server mcpcheck staged: "interop drive
// KIND -pkg DIR [-node NODE] [-script FILE] (-url URL | -- SERVER...)".
func drive(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || driveKinds[args[0]] == "" {
		var kinds []string
		for _, k := range sortedKeys(driveKinds) {
			kinds = append(kinds, k+": "+driveKinds[k])
		}
		return fmt.Errorf("usage: interop drive KIND -pkg DIR [-node NODE] [-script FILE] (-url URL | -- SERVER-COMMAND...); KIND is one of\n  %s", strings.Join(kinds, "\n  "))
	}
	kind := args[0]
	fs := flag.NewFlagSet("drive "+kind, flag.ContinueOnError)
	fs.SetOutput(stderr)
	pkg := fs.String("pkg", "", "the npm prefix the host is installed in")
	node := fs.String("node", "node", "the Node binary")
	script := fs.String("script", "", "the driver script (node-script)")
	url := fs.String("url", "", "the server's URL (streamable HTTP)")
	limit := fs.Duration("timeout", 85*time.Second, "bound on the host's run")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	server := fs.Args()
	if (*url == "") == (len(server) == 0) {
		return fmt.Errorf("drive %s: give the server as -url URL or as a command after --, not both", kind)
	}
	home, err := os.MkdirTemp("", "mcpcheck-host-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(ctx, *limit)
	defer cancel()
	env, err := hostEnv(home)
	if err != nil {
		return err
	}
	var argv []string
	var stdin io.Reader
	switch kind {
	case "claude-code":
		b, err := claudeConfig(server, *url)
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(home, ".claude.json"), b); err != nil {
			return err
		}
		// Claude Code 2.x ships a native executable (bin/claude.exe).
		argv = []string{filepath.Join(*pkg, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe"), "mcp", "list"}
		env = append(env, "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	case "gemini-cli":
		b, err := geminiSettings(server, *url)
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(home, ".gemini", "settings.json"), b); err != nil {
			return err
		}
		argv = []string{*node, filepath.Join(*pkg, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"), "mcp", "list"}
		env = append(env, "GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true")
	case "codex":
		model, err := startFakeModel(ctx, fakeModelDelay)
		if err != nil {
			return err
		}
		defer model.Close()
		codexHome := filepath.Join(home, ".codex")
		if err := writeFile(filepath.Join(codexHome, "config.toml"), []byte(codexConfig(server, *url, "http://"+model.Addr().String()+"/v1"))); err != nil {
			return err
		}
		argv = []string{*node, filepath.Join(*pkg, "node_modules", "@openai", "codex", "bin", "codex.js"), "exec", "--skip-git-repo-check", "--color", "never", "Say hello."}
		env = append(env, "CODEX_HOME="+codexHome)
		stdin = strings.NewReader("") // as </dev/null: exec reads no prompt from it
	case "node-script":
		if *script == "" {
			return fmt.Errorf("drive node-script: -script is required")
		}
		argv = []string{*node, *script}
		if *url != "" {
			argv = append(argv, "--url", *url)
		} else {
			argv = append(append(argv, "--"), server...)
		}
		env = append(env, "CENSUS_PKG="+*pkg)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, home, stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	hostLog, err := openHostLog(os.Getenv(envHostLogs), argv)
	if err != nil {
		fmt.Fprintf(stderr, "drive %s: the host's output is not kept: %v\n", kind, err)
	}
	if hostLog != nil {
		defer hostLog.close(func() string { return cmd.ProcessState.String() })
		cmd.Stdout, cmd.Stderr = io.MultiWriter(stdout, hostLog.out), io.MultiWriter(stderr, hostLog.err)
	}
	target.InOwnGroup(cmd)
	cmd.Cancel = func() error { target.KillGroup(cmd); return nil }
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	// Whatever the host left in its process group (a bridge that outlives
	// its input, as mcp-remote 0.15.1 does) ends with it.
	target.KillGroup(cmd)
	if b, _ := os.ReadFile(filepath.Join(home, "browser-opened.log")); len(b) > 0 {
		fmt.Fprintf(stderr, "drive %s: the host tried to open a browser (stubbed, nothing opened):\n%s", kind, b)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("drive %s: the host did not finish within %s", kind, *limit)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		// The host's own verdict on the connection: pass its status on.
		return fmt.Errorf("drive %s: the host exited: %v", kind, err)
	}
	return err
}

// envHostLogs names a directory (set by the census runner) where each
// launch of the driver keeps the host's own output: mcpcheck client keeps
// only a tail of it, and only when the host sent nothing, and a triage
// that wants to know why a host stopped needs all of it.
const envHostLogs = "CENSUS_HOST_LOGS"

// hostLogLimit bounds what one launch keeps of the host's output.
const hostLogLimit = 1 << 20

// hostLog is one launch's log of the host's output: a header naming the
// scenario, version and command, then the host's stdout and stderr lines
// as they came (each stream marked), then how the host ended.
type hostLog struct {
	f        *os.File
	mu       sync.Mutex
	n        int
	out, err io.Writer
}

// openHostLog creates a log in dir named after the launch's scenario and
// version (mcpcheck client sets both in the host's environment); with no
// dir it returns nil.
func openHostLog(dir string, argv []string) (*hostLog, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' {
				return r
			}
			return '_'
		}, s)
	}
	scen, ver := os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
	f, err := os.CreateTemp(dir, name(ver)+"-"+name(scen)+"-*.log")
	if err != nil {
		return nil, err
	}
	l := &hostLog{f: f}
	fmt.Fprintf(f, "scenario %s, version %s, started %s\ncommand: %s\n", scen, ver, time.Now().UTC().Format(time.RFC3339Nano), shellJoin(argv))
	l.out, l.err = &hostLogStream{l, "out"}, &hostLogStream{l, "err"}
	return l, nil
}

// hostLogStream marks one stream's writes in the log.
type hostLogStream struct {
	l    *hostLog
	name string
}

func (s *hostLogStream) Write(p []byte) (int, error) {
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	if s.l.n >= hostLogLimit {
		return len(p), nil
	}
	b := p
	if rest := hostLogLimit - s.l.n; len(b) > rest {
		b = b[:rest]
	}
	s.l.n += len(b)
	fmt.Fprintf(s.l.f, "[%s %s] %s", time.Now().UTC().Format("15:04:05.000"), s.name, b)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		_, _ = s.l.f.WriteString("\n")
	}
	if s.l.n >= hostLogLimit {
		fmt.Fprintf(s.l.f, "[the host's output is cut here: %d bytes kept]\n", hostLogLimit)
	}
	return len(p), nil
}

// close writes how the host ended and closes the log.
func (l *hostLog) close(ended func() string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.f, "ended %s: %s\n", time.Now().UTC().Format(time.RFC3339Nano), ended())
	_ = l.f.Close()
}

// browserNames are the commands a host (or the xdg-open it runs) starts to
// open a URL in a browser on Linux.
var browserNames = []string{"xdg-open", "x-www-browser", "www-browser", "sensible-browser", "gnome-open", "kde-open", "gio",
	"firefox", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "links", "lynx", "w3m", "browser"}

// hostEnv is the environment a host runs in: this process's, with
// throwawayHomeEnv's home and no browser.
func hostEnv(home string) ([]string, error) {
	th, err := throwawayHomeEnv(home, os.Getenv("PATH"))
	if err != nil {
		return nil, err
	}
	return append(os.Environ(), th...), nil
}

// throwawayHomeEnv returns the variables (to append to an environment)
// that put HOME and the XDG directories in the throwaway home and leave
// no way to open a browser on this machine (noBrowserEnv), with path as
// the PATH after the browser stubs.
func throwawayHomeEnv(home, path string) ([]string, error) {
	nb, err := noBrowserEnv(home, path)
	if err != nil {
		return nil, err
	}
	return append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}, nb...), nil
}

// noBrowserEnv writes the browser stubs into home and returns the
// variables (to append to an environment) that leave a program no way to
// open a browser on this machine: a host that starts authorization opens
// the sign-in URL (mcp-remote runs x-www-browser), a server may open a
// page or an editor. Every browser command is a stub first on PATH (before
// path) that records its arguments in home/browser-opened.log and exits
// 0, BROWSER names one, and there is no display to open a window on.
func noBrowserEnv(home, path string) ([]string, error) {
	stubs := filepath.Join(home, ".mcpcheck-no-browser")
	if err := os.MkdirAll(stubs, 0o755); err != nil {
		return nil, err
	}
	stub := "#!/bin/sh\n# mcpcheck interop: programs under test do not open browsers on this machine.\necho \"$0 $*\" >> \"" + filepath.Join(home, "browser-opened.log") + "\"\nexit 0\n"
	for _, n := range browserNames {
		if err := os.WriteFile(filepath.Join(stubs, n), []byte(stub), 0o755); err != nil {
			return nil, err
		}
	}
	return []string{"PATH=" + stubs + string(os.PathListSeparator) + path, "BROWSER=" + filepath.Join(stubs, "browser"), "DISPLAY=", "WAYLAND_DISPLAY="}, nil
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// censusServerName is the name the hosts' configurations give mcpcheck's
// stage.
const censusServerName = "mcpcheck"

// claudeConfig is a ~/.claude.json that names the server at user scope
// (a project's .mcp.json would wait for approval) and says onboarding
// is done.
func claudeConfig(server []string, url string) ([]byte, error) {
	entry := map[string]any{"type": "http", "url": url}
	if url == "" {
		entry = map[string]any{"type": "stdio", "command": server[0], "args": append([]string{}, server[1:]...), "env": map[string]string{}}
	}
	return json.MarshalIndent(map[string]any{
		"hasCompletedOnboarding": true,
		"mcpServers":             map[string]any{censusServerName: entry},
	}, "", "  ")
}

// geminiSettings is a ~/.gemini/settings.json that names the server.
func geminiSettings(server []string, url string) ([]byte, error) {
	entry := map[string]any{"httpUrl": url, "trust": true}
	if url == "" {
		entry = map[string]any{"command": server[0], "args": append([]string{}, server[1:]...), "trust": true}
	}
	return json.MarshalIndent(map[string]any{"mcpServers": map[string]any{censusServerName: entry}}, "", "  ")
}

// codexConfig is a Codex config.toml that names the server and a model
// provider at modelURL with no retries.
func codexConfig(server []string, url, modelURL string) string {
	q := strconv.Quote
	var b strings.Builder
	fmt.Fprintf(&b, "model = %s\nmodel_provider = %s\napproval_policy = %s\nsandbox_mode = %s\n\n", q("mcpcheck-fake-model"), q("mcpcheck"), q("never"), q("read-only"))
	fmt.Fprintf(&b, "[model_providers.mcpcheck]\nname = %s\nbase_url = %s\nwire_api = %s\nrequest_max_retries = 0\nstream_max_retries = 0\n\n", q("mcpcheck fake model"), q(modelURL), q("responses"))
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", censusServerName)
	if url != "" {
		fmt.Fprintf(&b, "url = %s\n", q(url))
	} else {
		fmt.Fprintf(&b, "command = %s\nargs = [", q(server[0]))
		for i, a := range server[1:] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(q(a))
		}
		b.WriteString("]\n")
	}
	b.WriteString("startup_timeout_sec = 60\ntool_timeout_sec = 30\n")
	return b.String()
}

// startFakeModel listens on a loopback port and answers every request,
// after delay (or when the request goes), with a 400 error: a model
// endpoint that lets a host start its MCP servers and then ends its turn.
func startFakeModel(ctx context.Context, delay time.Duration) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-ctx.Done():
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"mcpcheck census: no model here","type":"invalid_request_error","code":"mcpcheck_no_model"}}`)
	})}
	go func() { _ = srv.Serve(ln) }()
	return ln, nil
}
