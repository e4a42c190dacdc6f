package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// SandboxEnv is the variable every process of a sandbox gets:
// "RUN/N", the sandbox's run ID and the number of the process (1, 2, ...
// in start order). Descendants inherit it, so that those that left the
// process group (or the parent) can still be told apart by reading
// /proc/PID/environ.
const SandboxEnv = "MCPCHECK_SANDBOX"

// SandboxOptions say how a Sandbox is made. The zero value is the default
// sandbox: its own working directory, HOME and TMPDIR, removed at Close.
type SandboxOptions struct {
	// Cwd, when set, is the working directory of the processes instead of
	// the sandbox's own (mcpcheck --cwd).
	Cwd string
	// KeepHome passes HOME, TMPDIR, TMP, TEMP and XDG_* as given
	// (mcpcheck --keep-home).
	KeepHome bool
	// Keep leaves the sandbox directory in place at Close
	// (mcpcheck --keep-sandbox).
	Keep bool
	// Parent is the directory the sandbox is made in ("" is os.TempDir()).
	Parent string
	// Interval is how often the side effects are sampled (100 ms when
	// zero).
	Interval time.Duration
	// Grace is how long processes left at Close get between SIGTERM and
	// SIGKILL (500 ms when zero).
	Grace time.Duration
}

// Sandbox is where a run's stdio targets run: one temporary directory per
// run holding a working directory (work/), a HOME (home/) and a TMPDIR
// (tmp/). Every process started in it gets them (and XDG_CONFIG_HOME,
// XDG_CACHE_HOME, XDG_DATA_HOME and XDG_STATE_HOME inside that HOME), the
// rest of the environment as given, and the SandboxEnv marker. On Linux the
// sandbox also watches what the processes do (see SideEffects), ends the
// descendants a stopped process left behind, and at Close ends every
// process still carrying its marker, reaps those mcpcheck adopted, and
// removes the directory.
//
// Concurrency: every method is safe for concurrent use.
type Sandbox struct {
	opts              SandboxOptions
	id                string
	dir               string
	work, home, tmp   string
	cwd, invokingCwd  string
	cwdIsInvoking     bool     // cwd is invokingCwd: nothing to make absolute
	watch             *watcher // nil where processes cannot be watched
	notObservedReason string

	mu          sync.Mutex
	n           int
	absolutized []string
	absSeen     map[string]bool
	earlyExits  int
	firstEarly  string
	closed      bool
	result      reports.SideEffects
	closeErr    error
}

// maxAbsolutized bounds the rewritten arguments a sandbox remembers.
const maxAbsolutized = 32

// NewSandbox makes a sandbox directory. Close it at the end of the run.
func NewSandbox(opts SandboxOptions) (*Sandbox, error) {
	if opts.Interval <= 0 {
		opts.Interval = 100 * time.Millisecond
	}
	if opts.Grace <= 0 {
		opts.Grace = 500 * time.Millisecond
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("target: the sandbox needs the current directory to resolve relative paths: %w", err)
	}
	if opts.Cwd != "" {
		if !filepath.IsAbs(opts.Cwd) {
			opts.Cwd = filepath.Join(wd, opts.Cwd)
		}
		if fi, err := os.Stat(opts.Cwd); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("target: the working directory %s given for the target is not a directory; give an existing one", opts.Cwd)
		}
	}
	dir, err := os.MkdirTemp(opts.Parent, "mcpcheck-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("target: cannot make the sandbox directory: %w; set TMPDIR to a writable directory", err)
	}
	var b [6]byte
	rand.Read(b[:])
	s := &Sandbox{
		opts: opts, dir: dir, invokingCwd: wd, absSeen: map[string]bool{},
		id:   strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:]),
		work: filepath.Join(dir, "work"), home: filepath.Join(dir, "home"), tmp: filepath.Join(dir, "tmp"),
	}
	for _, d := range []string{s.work, s.home, s.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("target: cannot make the sandbox directory %s: %w", d, err)
		}
	}
	s.cwd = s.work
	if opts.Cwd != "" {
		s.cwd = opts.Cwd
	}
	s.cwdIsInvoking = sameDir(s.cwd, wd)
	s.watch, s.notObservedReason = newWatcher(s)
	openSandboxes.Lock()
	openSandboxes.m[s] = true
	openSandboxes.Unlock()
	return s, nil
}

// openSandboxes are the sandboxes not closed yet, for AbortSandboxes.
var openSandboxes = struct {
	sync.Mutex
	m map[*Sandbox]bool
}{m: map[*Sandbox]bool{}}

// AbortSandboxes is for a program about to exit without closing its
// sandboxes (a second interrupt): it sends SIGKILL to every process they
// still run (the target processes' groups, and what carries their marker)
// and removes their directories unless kept. It takes about a second at
// most and reports nothing.
func AbortSandboxes() {
	openSandboxes.Lock()
	defer openSandboxes.Unlock()
	for s := range openSandboxes.m {
		if s.watch != nil {
			s.watch.abort()
		}
		if !s.opts.Keep {
			removeAll(s.dir)
		}
	}
}

// ID is the run ID in the sandbox's marker.
func (s *Sandbox) ID() string { return s.id }

// Dir is the sandbox directory.
func (s *Sandbox) Dir() string { return s.dir }

// Cwd is the working directory of the sandbox's processes (its own, or
// SandboxOptions.Cwd).
func (s *Sandbox) Cwd() string { return s.cwd }

// Home is the HOME of the sandbox's processes ("" with KeepHome).
func (s *Sandbox) Home() string {
	if s.opts.KeepHome {
		return ""
	}
	return s.home
}

// Hint says what the sandbox changed for a target and how to opt out,
// for errors about a target that ended at start-up.
func (s *Sandbox) Hint() string {
	home := "HOME " + s.home + ", TMPDIR " + s.tmp
	if s.opts.KeepHome {
		home = "HOME as given"
	}
	return fmt.Sprintf("it ran in mcpcheck's sandbox (cwd %s, %s); if it needs its own directory or home, give --cwd . or --keep-home", s.cwd, home)
}

// SandboxProcess is one process started in a sandbox (see Sandbox.Apply).
type SandboxProcess struct {
	s      *Sandbox
	n      int
	marker string
	pid    int
}

// Apply prepares cmd (made by exec.Command, not started) to run in the
// sandbox: its working directory is the sandbox's unless cmd.Dir is set;
// a relative command or argument that names a file or directory of the
// directory mcpcheck runs in is made absolute (the sandbox's working
// directory is another one); its environment is cmd.Env (nil: mcpcheck's
// own), then the sandbox's HOME, TMPDIR, TMP, TEMP and XDG_* (unless
// KeepHome), then extra, then the SandboxEnv marker. Call Started once cmd
// has started, or Abandon if it did not.
func (s *Sandbox) Apply(cmd *exec.Cmd, extra []string) (*SandboxProcess, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("target: the sandbox was already closed; a process cannot start in it")
	}
	s.n++
	n := s.n
	s.mu.Unlock()
	if cmd.Dir == "" {
		cmd.Dir = s.cwd
	}
	same := s.cwdIsInvoking
	if cmd.Dir != s.cwd {
		same = sameDir(cmd.Dir, s.invokingCwd)
	}
	if !same {
		if p, ok := s.absolute(cmd.Path, true); ok {
			cmd.Path = p
			if len(cmd.Args) > 0 {
				if a, ok := s.absolute(cmd.Args[0], true); ok {
					cmd.Args[0] = a
				}
			}
		}
		for i := 1; i < len(cmd.Args); i++ {
			if a, ok := s.absolute(cmd.Args[i], false); ok {
				cmd.Args[i] = a
			}
		}
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = append([]string(nil), env...)
	if !s.opts.KeepHome {
		env = append(env, "HOME="+s.home, "TMPDIR="+s.tmp, "TMP="+s.tmp, "TEMP="+s.tmp,
			"XDG_CONFIG_HOME="+filepath.Join(s.home, ".config"), "XDG_CACHE_HOME="+filepath.Join(s.home, ".cache"),
			"XDG_DATA_HOME="+filepath.Join(s.home, ".local", "share"), "XDG_STATE_HOME="+filepath.Join(s.home, ".local", "state"))
	}
	p := &SandboxProcess{s: s, n: n, marker: s.id + "/" + strconv.Itoa(n)}
	cmd.Env = append(append(env, extra...), SandboxEnv+"="+p.marker)
	if s.watch != nil {
		s.watch.pending(n)
	}
	return p, nil
}

// absolute returns the absolute form of a relative path (or of the value
// of a --flag=path argument) that names something in the invoking
// directory and reads as a path (looksLikePath): a bare word is never
// rewritten, a command because it was looked up in PATH, an argument
// because it is a word to the program.
func (s *Sandbox) absolute(arg string, isCommand bool) (string, bool) {
	prefix, path := "", arg
	if !isCommand && strings.HasPrefix(arg, "-") {
		k, v, ok := strings.Cut(arg, "=")
		if !ok {
			return "", false
		}
		prefix, path = k+"=", v
	}
	if path == "" || filepath.IsAbs(path) || strings.HasPrefix(path, "-") || strings.ContainsRune(path, 0) {
		return "", false
	}
	if !looksLikePath(path) {
		// A bare word: a command was looked up in PATH, and an argument
		// is a word to the program (a subcommand such as "reference" or
		// "serve", a module name), even when a file of that name
		// happens to be in the invoking directory.
		return "", false
	}
	abs := filepath.Join(s.invokingCwd, path)
	if _, err := os.Lstat(abs); err != nil {
		return "", false
	}
	out := prefix + abs
	s.mu.Lock()
	if !s.absSeen[arg] && len(s.absolutized) < maxAbsolutized {
		s.absSeen[arg] = true
		s.absolutized = append(s.absolutized, arg+" -> "+out)
	}
	s.mu.Unlock()
	return out, true
}

// looksLikePath reports whether an argument reads as a path rather than a
// word: it has a slash ("build/index.js", "./server"), or a file name
// extension ("index.js", "server.py", "config.json").
func looksLikePath(arg string) bool {
	if strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator) {
		return true
	}
	ext := filepath.Ext(arg)
	return len(ext) > 1 && len(ext) < len(arg)
}

func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// Marker is the process's SandboxEnv value.
func (p *SandboxProcess) Marker() string { return p.marker }

// Started registers the started process, so that the sandbox tells it
// (the target) from what it spawns.
func (p *SandboxProcess) Started(pid int) {
	p.pid = pid
	if p.s.watch != nil {
		p.s.watch.started(p.n, pid)
	}
}

// Abandon says the process did not start.
func (p *SandboxProcess) Abandon() {
	if p.s.watch != nil {
		p.s.watch.exited(p.n, 0)
	}
}

// Exited records how the process ended, once it was waited for; onItsOwn
// says it ended before it was being stopped, failed that it ended with a
// failure (a status other than 0, or a signal). A process that failed on
// its own counts toward the sandbox's hint.
func (p *SandboxProcess) Exited(onItsOwn, failed bool, how string) {
	if onItsOwn && failed {
		p.s.mu.Lock()
		p.s.earlyExits++
		if p.s.firstEarly == "" {
			p.s.firstEarly = how
		}
		p.s.mu.Unlock()
	}
	if p.s.watch != nil {
		p.s.watch.exited(p.n, p.pid)
	}
}

// EndStrays ends the processes this process spawned that are still
// running outside its process group (which its Stop killed): a daemon that
// called setsid(), a child that made a group of its own. They get SIGTERM,
// a short grace, then SIGKILL; those mcpcheck adopted are reaped. It
// returns how many it ended.
func (p *SandboxProcess) EndStrays(grace time.Duration) int {
	if p.s.watch == nil {
		return 0
	}
	return p.s.watch.endStrays(p.n, grace)
}

// EarlyExits is how many processes ended on their own with a failure.
func (s *Sandbox) EarlyExits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.earlyExits
}

// Close ends the sandbox: it stops watching, ends every process still
// carrying its marker (SIGTERM, a grace period, SIGKILL) and reaps those
// mcpcheck adopted, walks the directory for what the run left in it, and
// removes it unless the options keep it. It returns what the run did (see
// reports.SideEffects); a second Close returns the same. The error says
// what could not be cleaned up.
func (s *Sandbox) Close(ctx context.Context) (reports.SideEffects, error) {
	s.mu.Lock()
	if s.closed {
		defer s.mu.Unlock()
		return s.result, s.closeErr
	}
	s.closed = true
	s.mu.Unlock()
	defer func() {
		openSandboxes.Lock()
		delete(openSandboxes.m, s)
		openSandboxes.Unlock()
	}()

	fx := reports.SideEffects{Observed: s.watch != nil, NotObserved: s.notObservedReason}
	if s.watch != nil {
		s.watch.close(ctx, s.opts.Grace, &fx)
	}
	files, werr := walkSandbox(s.dir, sandboxWalkLimits{entries: 10000, listed: 50, took: 2 * time.Second})
	fx.SandboxFiles = files
	if werr != nil {
		fx.Notes = append(fx.Notes, werr.Error())
	}
	s.mu.Lock()
	info := &reports.SandboxInfo{Dir: s.dir, Kept: s.opts.Keep, Cwd: s.cwd, KeepHome: s.opts.KeepHome,
		Absolutized: append([]string(nil), s.absolutized...), EarlyExits: s.earlyExits}
	if !s.opts.KeepHome {
		info.Home, info.Tmp = s.home, s.tmp
	}
	if s.earlyExits > 0 {
		info.Hint = fmt.Sprintf("%d target %s ended on their own with a failure (first: %s); %s",
			s.earlyExits, pluralWord(s.earlyExits, "process", "processes"), s.firstEarly, s.Hint())
	}
	s.mu.Unlock()
	fx.Sandbox = info
	var err error
	if !s.opts.Keep {
		if rerr := removeAll(s.dir); rerr != nil {
			err = fmt.Errorf("target: could not remove the sandbox %s: %w; remove it by hand", s.dir, rerr)
			fx.Notes = append(fx.Notes, err.Error())
		}
	}
	s.mu.Lock()
	s.result, s.closeErr = fx, err
	s.mu.Unlock()
	return fx, err
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// removeAll removes dir, making its directories writable first when a
// target took the write permission away.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
