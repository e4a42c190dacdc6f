package target

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

// newTestSandbox makes a sandbox under the test's temporary directory and
// closes it at the end of the test (a test may close it first).
func newTestSandbox(t *testing.T, o SandboxOptions) *Sandbox {
	t.Helper()
	if o.Parent == "" {
		o.Parent = t.TempDir()
	}
	s, err := NewSandbox(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// sandboxed is helperTarget in s.
func sandboxed(t *testing.T, s *Sandbox, mode string) Target {
	tg := helperTarget(t, mode)
	tg.Sandbox = s
	return tg
}

// readJSONLine reads frames until one is a JSON object and decodes it.
func readJSONLine(t *testing.T, c *Conn, v any) {
	t.Helper()
	ctx := ctxT(t, 30*time.Second)
	for {
		f, err := c.Recv(ctx)
		if err != nil || f.Kind == wire.KindEnd {
			t.Fatalf("the helper said nothing: %v %s (stderr %q)", err, f.Describe(), c.Process.Stderr().Tail())
		}
		if json.Unmarshal(f.Raw, v) == nil {
			return
		}
	}
}

func connect(t *testing.T, tg Target) *Conn {
	t.Helper()
	c, err := Connect(ctxT(t, 30*time.Second), tg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSandboxGivesItsOwnCwdHomeAndTmp(t *testing.T) {
	parent, dir := t.TempDir(), t.TempDir() // before TMPDIR changes
	t.Setenv("HOME", "/nonexistent/given-home")
	t.Setenv("TMPDIR", "/nonexistent/given-tmp")
	t.Setenv("XDG_CONFIG_HOME", "/nonexistent/given-xdg")
	t.Setenv("SBX_PASS", "passed as given")
	s := newTestSandbox(t, SandboxOptions{Parent: parent})
	var env map[string]string
	readJSONLine(t, connect(t, sandboxed(t, s, "sbx-env")), &env)
	home, tmp := filepath.Join(s.Dir(), "home"), filepath.Join(s.Dir(), "tmp")
	want := map[string]string{
		"cwd": filepath.Join(s.Dir(), "work"), "HOME": home, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_CACHE_HOME": filepath.Join(home, ".cache"),
		"XDG_DATA_HOME": filepath.Join(home, ".local", "share"), "XDG_STATE_HOME": filepath.Join(home, ".local", "state"),
		SandboxEnv: s.ID() + "/1", "SBX_PASS": "passed as given",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q in the sandbox, want %q", k, env[k], v)
		}
	}
	var second map[string]string
	readJSONLine(t, connect(t, sandboxed(t, s, "sbx-env")), &second)
	if second[SandboxEnv] != s.ID()+"/2" {
		t.Errorf("the second process's marker is %q, want %q", second[SandboxEnv], s.ID()+"/2")
	}

	// --keep-home: HOME, TMPDIR and XDG_* as given; --cwd: the directory given.
	kept := newTestSandbox(t, SandboxOptions{KeepHome: true, Cwd: dir, Parent: parent})
	readJSONLine(t, connect(t, sandboxed(t, kept, "sbx-env")), &env)
	for k, v := range map[string]string{"cwd": dir, "HOME": "/nonexistent/given-home", "TMPDIR": "/nonexistent/given-tmp", "XDG_CONFIG_HOME": "/nonexistent/given-xdg", "XDG_CACHE_HOME": ""} {
		if env[k] != v {
			t.Errorf("with KeepHome and Cwd, %s = %q, want %q", k, env[k], v)
		}
	}
	if !strings.HasPrefix(env[SandboxEnv], kept.ID()+"/") {
		t.Errorf("with KeepHome the marker is still given: %q", env[SandboxEnv])
	}
}

func TestSandboxMakesRelativePathsAbsolute(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, d := range []string{"bin", "build"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(self, filepath.Join(dir, "bin", "server")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"build/index.js", "conf.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parent := t.TempDir()
	t.Chdir(dir) // where mcpcheck runs: the relative paths name files here
	s := newTestSandbox(t, SandboxOptions{Parent: parent})

	// The README's recipe, "node build/index.js", and a "./server": both
	// must still name the files once the process runs in the sandbox.
	tg := Command("./bin/server", "build/index.js")
	tg.Env = []string{helperEnv + "=sbx-env", "GORACE=atexit_sleep_ms=0"}
	tg.Sandbox = s
	var env map[string]string
	readJSONLine(t, connect(t, tg), &env)
	if want := filepath.Join(dir, "build", "index.js"); env["arg1"] != want {
		t.Errorf("the argument reached the process as %q, want %q", env["arg1"], want)
	}
	if want := filepath.Join(dir, "bin", "server"); env["arg0"] != want {
		t.Errorf("argv[0] reached the process as %q, want %q", env["arg0"], want)
	}
	if env["cwd"] != s.Cwd() {
		t.Errorf("the process ran in %q, want the sandbox's %q", env["cwd"], s.Cwd())
	}

	// "build" names a directory here but is a bare word, as a subcommand
	// is ("mcpcheck reference server" run from a checkout that has a
	// reference/ directory): words stay words; "conf.json" and "./build"
	// read as paths.
	cmd := exec.Command("x", "--config=conf.json", "stdio", "-v", "build", "./build", "conf.json", "/abs/path", "--flag")
	if _, err := s.Apply(cmd, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"x", "--config=" + filepath.Join(dir, "conf.json"), "stdio", "-v", "build", filepath.Join(dir, "build"), filepath.Join(dir, "conf.json"), "/abs/path", "--flag"}
	if !slices.Equal(cmd.Args, want) {
		t.Errorf("Apply made the arguments\n%q, want\n%q", cmd.Args, want)
	}
	fx, err := s.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(fx.Sandbox.Absolutized, "\n")
	for _, w := range []string{"./bin/server -> " + filepath.Join(dir, "bin", "server"), "build/index.js -> " + filepath.Join(dir, "build", "index.js"), "--config=conf.json -> --config="} {
		if !strings.Contains(got, w) {
			t.Errorf("the report's absolutized list lacks %q:\n%s", w, got)
		}
	}

	// With the invoking directory as the working directory nothing is
	// rewritten.
	same := newTestSandbox(t, SandboxOptions{Cwd: "."})
	cmd = exec.Command("./bin/server", "build/index.js")
	if _, err := same.Apply(cmd, nil); err != nil {
		t.Fatal(err)
	}
	if cmd.Args[1] != "build/index.js" || cmd.Path != "./bin/server" {
		t.Errorf("with --cwd . the command line was rewritten: %q %q", cmd.Path, cmd.Args)
	}
}

func TestSandboxRecordsItsFilesAndIsRemoved(t *testing.T) {
	for _, keep := range []bool{false, true} {
		s := newTestSandbox(t, SandboxOptions{Keep: keep})
		c := connect(t, sandboxed(t, s, "sbx-write"))
		var said map[string]bool
		readJSONLine(t, c, &said)
		c.Close()
		fx, err := s.Close(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		f := fx.SandboxFiles
		if f == nil || f.Count < 4 || f.Bytes == 0 {
			t.Fatalf("the sandbox files = %+v, want the 4 files the helper wrote", f)
		}
		for _, p := range []string{"work/cwd.txt", "home/home.txt", "tmp/tmp.txt", "home/.config/app/conf.json"} {
			if !slices.Contains(f.Paths, p) {
				t.Errorf("the sandbox files do not list %s: %q", p, f.Paths)
			}
		}
		_, err = os.Stat(s.Dir())
		if keep != (err == nil) || fx.Sandbox.Kept != keep {
			t.Errorf("keep %v: after Close the sandbox directory exists: %v (err %v), report says kept %v", keep, err == nil, err, fx.Sandbox.Kept)
		}
		again, _ := s.Close(context.Background())
		if again.SandboxFiles != fx.SandboxFiles {
			t.Error("a second Close must return what the first did")
		}
		if keep {
			os.RemoveAll(s.Dir())
		}
	}
}

func TestWalkSandboxIsBounded(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"work", "home", "tmp"} {
		os.Mkdir(filepath.Join(dir, d), 0o700)
	}
	for i := 0; i < 30; i++ {
		os.WriteFile(filepath.Join(dir, "work", "f"+string(rune('a'+i%26))+string(rune('a'+i/26))), []byte("12345"), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "home", "empty"), 0o700)
	f, err := walkSandbox(dir, sandboxWalkLimits{entries: 1000, listed: 100, took: time.Minute})
	if err != nil || f.Count != 31 || f.Bytes != 150 || f.Truncated || !slices.Contains(f.Paths, "home/empty/") {
		t.Errorf("walk = %+v, %v; want 31 entries, 150 bytes and the empty directory", f, err)
	}
	f, err = walkSandbox(dir, sandboxWalkLimits{entries: 10, listed: 5, took: time.Minute})
	if err == nil || !f.Truncated || f.Count != 10 || len(f.Paths) != 5 {
		t.Errorf("bounded walk = %+v, %v; want it cut at 10 entries, 5 listed, and said so", f, err)
	}
}

func TestSandboxHintsAtATargetThatDiesAtStartUp(t *testing.T) {
	s := newTestSandbox(t, SandboxOptions{})
	c := connect(t, sandboxed(t, s, "sbx-die"))
	select {
	case <-c.Process.Exited():
	case <-ctxT(t, 30*time.Second).Done():
		t.Fatal("the helper did not exit")
	}
	note := c.Process.ExitNote()
	for _, w := range []string{"exited with status 3", "sandbox", s.Cwd(), "--cwd .", "--keep-home"} {
		if !strings.Contains(note, w) {
			t.Errorf("the exit note %q lacks %q", note, w)
		}
	}
	// A process that behaves and is stopped is no early exit.
	ok := connect(t, sandboxed(t, s, "echo"))
	ok.Close()
	if n := s.EarlyExits(); n != 1 {
		t.Errorf("EarlyExits = %d, want 1 (the echo helper was stopped, it did not fail)", n)
	}
	c.Close()
	fx, _ := s.Close(context.Background())
	if fx.Sandbox.EarlyExits != 1 || !strings.Contains(fx.Sandbox.Hint, "--keep-home") {
		t.Errorf("the report's sandbox = %+v, want one early exit and the hint", fx.Sandbox)
	}
	if strings.Contains(ok.Process.ExitNote(), "sandbox") {
		t.Errorf("a stopped process got the hint: %q", ok.Process.ExitNote())
	}
}
