package target

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// The watcher's bounds.
const (
	maxWalk        = 4096  // processes visited by one walk
	maxRecords     = 10000 // spawned processes remembered
	maxFDs         = 256   // descriptors looked at per process and sample
	maxListed      = 100   // command lines, addresses and files in the report
	maxDeadRoots   = 4096  // ended target processes remembered (for their group and session)
	maxSockTries   = 20    // samples a socket not yet connected is read again
	maxProcScan    = 1 << 16
	procScanBudget = 2 * time.Second
	reapPatience   = time.Second // for the processes ended at once to be reapable
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// subreaper makes mcpcheck a child subreaper, once: from then on the
// orphaned descendants of its children are reparented to it, not to init,
// for as long as it runs.
var subreaper = sync.OnceValue(func() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return e
	}
	return nil
})

// procID names one process: a pid is reused, a pid and its start time are
// not.
type procID struct {
	pid   int
	start uint64
}

// rootProc is a process the sandbox started (a target process).
type rootProc struct {
	n, pid    int
	pgid, sid int
	command   string
	// kids is its main thread's children file, kept open (-1 until
	// opened): a sample reads it again at offset 0, one system call.
	kids int
}

// procRec is a process a target process spawned.
type procRec struct {
	id                  procID
	n                   int
	ppid0               int
	rootPgid, rootSid   int
	hasRoot             bool
	command             string
	alive               bool
	leftGroup, leftSess bool
	outlivedParent      bool
	outlivedTarget      bool
	outlivedRun         bool
	endedByUs           bool
}

// node is a process found by a walk of mcpcheck's descendants, with the
// number of the sandbox process it belongs to.
type node struct {
	pid  int
	st   procStat
	n    int
	root bool
}

func (nd node) id() procID { return procID{nd.pid, nd.st.start} }

type sockSeen struct {
	tries int
	key   string // the network entry it counts toward; "" while unresolved or ignored
	done  bool
}

type fdKey struct {
	id     procID
	fd     int
	target string
}

type netPair struct {
	id  procID
	key string
}

// watcher samples what a sandbox's processes do (Linux): the processes
// they spawn (walking mcpcheck's descendants through
// /proc/PID/task/TID/children, and finding those that left by the
// SandboxEnv marker in /proc/PID/environ), their sockets and the files they
// hold open for writing. mcpcheck becomes a child subreaper, so that the
// descendants whose parent ended are reparented to it; it reaps those
// itself (wait4 on their pids only, never on another pid: the exec.Cmd of
// the target processes keep their exit statuses).
type watcher struct {
	s        *Sandbox
	self     int
	selfSid  int
	prefix   string
	interval time.Duration
	reaper   error

	stopCh chan struct{}
	done   chan struct{}

	mu        sync.Mutex
	running   bool // the sampler runs (from the first process on)
	closed    bool
	roots     map[int]*rootProc // live target processes, by number
	rootPids  map[int]int       // pid of a live target process -> number
	deadRoots map[int]*rootProc
	deadOrder []int
	pendingN  map[int]bool // started, pid not known yet
	starts    int
	procs     map[procID]*procRec
	order     []*procRec
	dropped   bool
	socks     map[uint64]*sockSeen
	net       map[string]*reports.NetworkUse
	netOrder  []string
	netSeen   map[netPair]bool
	fds       map[fdKey]bool
	files     map[string]*reports.FileWrite
	fileOrder []string
	samples   int
	cpu       time.Duration // of the sampler's thread
	notes     []string
	selfKids  int // mcpcheck's main thread's children file, -1 until opened
	buf       [4096]byte
}

func newWatcher(s *Sandbox) (*watcher, string) {
	self := os.Getpid()
	st, err := readStat(self)
	if err != nil {
		return nil, "cannot read /proc: " + err.Error()
	}
	w := &watcher{
		s: s, self: self, selfSid: st.sid, prefix: s.id + "/", interval: s.opts.Interval,
		stopCh: make(chan struct{}), done: make(chan struct{}),
		roots: map[int]*rootProc{}, rootPids: map[int]int{}, deadRoots: map[int]*rootProc{}, pendingN: map[int]bool{},
		procs: map[procID]*procRec{}, socks: map[uint64]*sockSeen{}, net: map[string]*reports.NetworkUse{},
		netSeen: map[netPair]bool{}, fds: map[fdKey]bool{}, files: map[string]*reports.FileWrite{}, selfKids: -1,
	}
	if w.reaper = subreaper(); w.reaper != nil {
		w.notes = append(w.notes, fmt.Sprintf("mcpcheck could not become a child subreaper (%v): processes whose parent ended were found by their marker only", w.reaper))
	}
	return w, ""
}

// pending registers process n before it starts, and starts the sampler
// with the first one.
func (w *watcher) pending(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pendingN[n] = true
	if !w.running && !w.closed {
		w.running = true
		go w.loop()
	}
}

func (w *watcher) started(n, pid int) {
	// Its group is its own (Setpgid), its session mcpcheck's.
	r := &rootProc{n: n, pid: pid, pgid: pid, sid: w.selfSid, kids: -1}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.pendingN, n)
	w.roots[n], w.rootPids[pid] = r, n
	w.starts++
}

func (w *watcher) exited(n, pid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.pendingN, n)
	if w.rootPids[pid] == n {
		delete(w.rootPids, pid)
	}
	if r := w.roots[n]; r != nil {
		delete(w.roots, n)
		if r.kids >= 0 {
			syscall.Close(r.kids)
			r.kids = -1
		}
		if len(w.deadOrder) >= maxDeadRoots {
			delete(w.deadRoots, w.deadOrder[0])
			w.deadOrder = w.deadOrder[1:]
		}
		w.deadRoots[n] = r
		w.deadOrder = append(w.deadOrder, n)
	}
}

func (w *watcher) root(n int) *rootProc {
	if r := w.roots[n]; r != nil {
		return r
	}
	return w.deadRoots[n]
}

func (w *watcher) loop() {
	defer close(w.done)
	// On a thread of its own, the sampler's CPU time is that thread's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-w.stopCh:
			return
		case <-t.C:
			before := threadCPU()
			w.mu.Lock()
			w.sample()
			w.cpu += threadCPU() - before
			w.mu.Unlock()
		}
	}
}

// threadCPU is the CPU time the calling thread used.
func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The sampler spreads its costliest reads over several samples: each
// sample reads the children of a target process's main thread (a file
// kept open), and every threadsEvery-th sample (per process, staggered)
// those of all its threads; the descriptors of a target process every
// fdsEvery-th sample. What a target process spawned is looked at whole in
// every sample, and so are mcpcheck's adopted children: the kernel gives
// an orphan to the first live thread of its subreaper, and the main
// thread of a Go program never ends, so they are all children of
// mcpcheck's main thread (its children file, kept open too).
const (
	threadsEvery = 20
	fdsEvery     = 5
)

// sample looks once at the processes of the sandbox. Call with w.mu held.
func (w *watcher) sample() {
	nodes := w.walk(walkOpts{self: true, roots: true})
	for _, nd := range nodes {
		if !nd.root {
			w.see(nd)
		}
	}
	w.reap(nodes)
	w.scanFDs(nodes, false)
	w.samples++
}

// walkOpts say what a walk visits.
type walkOpts struct {
	// self: list mcpcheck's own children, where processes whose parent
	// ended show up (adopted); else only known processes are visited.
	self bool
	// roots: visit the live target processes and what they spawned.
	roots bool
	// all: read the children of every thread of every target process,
	// and of mcpcheck (not only of the main threads).
	all bool
	// only, when not 0, limits the known processes visited to those of
	// sandbox process only.
	only int
}

// walk finds the processes of the sandbox: the live target processes and
// what runs below them (with o.roots), the known spawned processes still
// running wherever they are now, and (with o.self) mcpcheck's children
// that carry the sandbox's marker, and everything below those. A known
// process found gone is marked so. Call with w.mu held.
func (w *watcher) walk(o walkOpts) []node {
	var out, queue []node
	visited := map[int]bool{}
	add := func(nd node) {
		if !visited[nd.pid] && len(out) < maxWalk {
			visited[nd.pid] = true
			out = append(out, nd)
			queue = append(queue, nd)
		}
	}
	if o.roots {
		// A target process is its exec.Cmd's to wait for: its state is
		// not read (the node says running).
		for pid, n := range w.rootPids {
			add(node{pid, procStat{state: 'R', ppid: w.self, pgid: pid}, n, true})
		}
	}
	if o.self {
		for _, c := range w.selfChildren(o.all) {
			if _, ok := w.rootPids[c]; ok || visited[c] {
				continue
			}
			st, err := readStat(c)
			if err != nil {
				continue
			}
			if rec := w.procs[procID{c, st.start}]; rec != nil {
				add(node{c, st, rec.n, false})
				continue
			}
			if st.dead() {
				continue
			}
			n, ok := w.marker(c)
			if !ok || w.pendingN[n] {
				// Not the sandbox's, or perhaps a target process whose
				// start is being registered: never taken for a stray.
				continue
			}
			add(node{c, st, n, false})
		}
	}
	for _, rec := range w.order {
		if !rec.alive || visited[rec.id.pid] || (o.only != 0 && rec.n != o.only) {
			continue
		}
		st, err := readStat(rec.id.pid)
		if err != nil || st.start != rec.id.start {
			rec.alive = false
			continue
		}
		add(node{rec.id.pid, st, rec.n, false})
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		var kids []int
		if p.root && !o.all && (w.samples+p.n)%threadsEvery != 0 {
			kids = w.rootChildren(p)
		} else {
			kids = children(p.pid, maxWalk)
		}
		for _, c := range kids {
			if visited[c] {
				continue
			}
			if st, err := readStat(c); err == nil {
				add(node{c, st, p.n, false})
			}
		}
	}
	return out
}

// selfChildren lists mcpcheck's children: those of its main thread (where
// adopted processes are), or with all those of every thread. Call with
// w.mu held.
func (w *watcher) selfChildren(all bool) []int {
	if all {
		return children(w.self, maxWalk)
	}
	if w.selfKids < 0 {
		fd, err := openProc(procPath(w.self, "task/"+strconv.Itoa(w.self)+"/children"), 0)
		if err != nil {
			return children(w.self, maxWalk)
		}
		w.selfKids = fd
	}
	n, err := readFD(w.selfKids, w.buf[:])
	if err != nil || n == len(w.buf) {
		return children(w.self, maxWalk)
	}
	return parsePids(w.buf[:n], maxWalk)
}

// rootChildren lists the children of a target process's main thread.
// Call with w.mu held.
func (w *watcher) rootChildren(nd node) []int {
	r := w.roots[nd.n]
	if r == nil {
		return mainChildren(nd.pid, maxWalk)
	}
	if r.kids < 0 {
		fd, err := openProc(procPath(nd.pid, "task/"+strconv.Itoa(nd.pid)+"/children"), 0)
		if err != nil {
			return nil
		}
		r.kids = fd
	}
	n, err := readFD(r.kids, w.buf[:])
	if err != nil {
		return nil
	}
	if n == len(w.buf) {
		return mainChildren(nd.pid, maxWalk) // more than the buffer holds
	}
	return parsePids(w.buf[:n], maxWalk)
}

func (w *watcher) marker(pid int) (int, bool) { return readMarker(pid, w.prefix) }

// see records a spawned process, or updates its record. Call with w.mu
// held.
func (w *watcher) see(nd node) *procRec {
	rec := w.procs[nd.id()]
	if rec == nil {
		if len(w.procs) >= maxRecords {
			if !w.dropped {
				w.dropped = true
				w.notes = append(w.notes, fmt.Sprintf("more than %d spawned processes: the later ones are not listed", maxRecords))
			}
			return nil
		}
		rec = &procRec{id: nd.id(), n: nd.n, ppid0: nd.st.ppid}
		if r := w.root(nd.n); r != nil {
			rec.rootPgid, rec.rootSid, rec.hasRoot = r.pgid, r.sid, true
		}
		// First seen as mcpcheck's child: its parent had already ended.
		rec.outlivedParent = nd.st.ppid == w.self
		w.procs[rec.id] = rec
		w.order = append(w.order, rec)
	}
	rec.alive = !nd.st.dead()
	if !rec.alive && rec.command == "" {
		rec.command = readCommand(nd.pid)
	}
	if rec.alive {
		// Read again: the first look may have come between fork and
		// exec (the parent's command line) or during exec (none).
		if c := readCommand(nd.pid); !strings.HasPrefix(c, "[") || rec.command == "" {
			rec.command = c
		}
		if nd.st.ppid != rec.ppid0 {
			rec.outlivedParent = true
		}
		if rec.rootPgid != 0 && nd.st.pgid != rec.rootPgid {
			rec.leftGroup = true
		}
		// A session id of 0 is a session led from outside mcpcheck's PID
		// namespace (a container's): a process that made a session of its
		// own reads a non-zero id, so it still differs.
		if rec.hasRoot && nd.st.sid != rec.rootSid {
			rec.leftSess = true
		}
	}
	return rec
}

// reap waits for the ended processes mcpcheck adopted: its children that
// a walk attributed to the sandbox and that are not target processes (the
// exec.Cmd of a target process waits for it). Call with w.mu held.
func (w *watcher) reap(nodes []node) {
	for _, nd := range nodes {
		if nd.root || nd.st.ppid != w.self || !nd.st.dead() {
			continue
		}
		w.reapOne(nd.id()) // not yet reapable: the next sample tries again
	}
}

// reapOne reaps one adopted child if it can at once (see reapable and
// reapBy). Call with w.mu held.
func (w *watcher) reapOne(id procID) bool {
	return w.reapable(id) && reapBy(id, time.Now())
}

// reapable reports whether id is a child mcpcheck adopted that ended: the
// pid still names the same process, it is not a target process (its
// exec.Cmd waits for it) and it is mcpcheck's child. Until it is reaped,
// its pid cannot name another process. Call with w.mu held.
func (w *watcher) reapable(id procID) bool {
	if _, ok := w.rootPids[id.pid]; ok {
		return false
	}
	st, err := readStat(id.pid)
	return err == nil && st.start == id.start && st.ppid == w.self && st.dead()
}

// reapBy waits for a reapable child until deadline. A process whose main
// thread ended while its other threads still exit shows as a zombie
// before it can be reaped; wait4 then says "not yet".
func reapBy(id procID, deadline time.Time) bool {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(id.pid, &ws, syscall.WNOHANG, nil)
		if err != nil || got == id.pid {
			return got == id.pid
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// reapAll reaps the processes the sandbox ended that it adopted, waiting
// for them up to patience in all.
func (w *watcher) reapAll(ended []node, patience time.Duration) {
	w.mu.Lock()
	var ids []procID
	for _, nd := range ended {
		if !nd.root && w.reapable(nd.id()) {
			ids = append(ids, nd.id())
		}
	}
	w.mu.Unlock()
	deadline := time.Now().Add(patience)
	for _, id := range ids {
		reapBy(id, deadline)
	}
}

// scanFDs looks at the open descriptors of the live processes found (of a
// target process only every fdsEvery-th sample, unless all):
// sockets (matched to the socket tables) and regular files outside the
// sandbox open for writing. Call with w.mu held.
func (w *watcher) scanFDs(nodes []node, all bool) {
	want := map[uint64]bool{}
	owner := map[uint64]node{}
	for _, nd := range nodes {
		if nd.st.dead() || (nd.root && !all && (w.samples+nd.n)%fdsEvery != 0) {
			continue
		}
		for _, l := range fdLinks(nd.pid, maxFDs) {
			if ino, ok := socketInode(l.target); ok {
				ss := w.socks[ino]
				if ss == nil {
					ss = &sockSeen{}
					w.socks[ino] = ss
				}
				switch {
				case ss.key != "":
					w.countNet(nd, ss.key)
				case !ss.done:
					want[ino], owner[ino] = true, nd
				}
				continue
			}
			if !strings.HasPrefix(l.target, "/") {
				continue // pipes, anonymous inodes
			}
			k := fdKey{nd.id(), l.fd, l.target}
			if !w.outsideSandbox(l.target) || w.fds[k] {
				continue
			}
			if len(w.fds) < 1<<16 {
				w.fds[k] = true
			}
			if fdWrites(nd.pid, l.fd) {
				w.wrote(nd, l.target)
			}
		}
	}
	if len(want) == 0 {
		return
	}
	var first node
	for _, nd := range owner {
		first = nd
		break
	}
	entries := readNetTables(first.pid, want)
	for ino := range want {
		ss := w.socks[ino]
		e, ok := entries[ino]
		switch {
		case !ok:
			ss.done = true // not an internet or unix socket (netlink, packet ...)
		case e.settled:
			ss.done = true
			if e.proto == "unix" && e.local == "" {
				break // unnamed: a socketpair, like a pipe
			}
			ss.key = w.addNet(owner[ino], e)
			w.countNet(owner[ino], ss.key)
		default:
			ss.tries++
			ss.done = ss.tries >= maxSockTries
		}
	}
	if len(w.socks) > 1<<16 {
		clear(w.socks) // bound: sockets seen again are read again
	}
}

func (w *watcher) outsideSandbox(path string) bool {
	for _, p := range []string{w.s.dir + "/", "/dev/", "/proc/", "/sys/"} {
		if strings.HasPrefix(path, p) {
			return false
		}
	}
	return true
}

// command is the command line of a node, for what it did.
func (w *watcher) command(nd node) string {
	if !nd.root {
		if rec := w.procs[nd.id()]; rec != nil {
			return rec.command
		}
		return readCommand(nd.pid)
	}
	r := w.root(nd.n)
	if r == nil {
		return readCommand(nd.pid)
	}
	if r.command == "" {
		r.command = readCommand(nd.pid)
	}
	return r.command
}

// addNet returns the key of a socket's entry, adding the entry.
func (w *watcher) addNet(nd node, e sockEntry) string {
	key := e.proto + " " + e.remote
	if e.listening || e.remote == "" {
		key = e.proto + " listen " + e.local
	}
	if _, ok := w.net[key]; !ok {
		if len(w.netOrder) >= maxListed*10 {
			return key
		}
		u := &reports.NetworkUse{Proto: e.proto, Listening: e.listening || e.remote == "", Loopback: e.loopback, DNS: e.dns, Command: w.command(nd)}
		if u.Listening {
			u.Local = e.local
		} else {
			u.Remote = e.remote
		}
		w.net[key] = u
		w.netOrder = append(w.netOrder, key)
	}
	return key
}

func (w *watcher) countNet(nd node, key string) {
	u := w.net[key]
	if u == nil {
		return
	}
	p := netPair{nd.id(), key}
	if w.netSeen[p] || len(w.netSeen) >= 1<<16 {
		return
	}
	w.netSeen[p] = true
	u.Count++
}

func (w *watcher) wrote(nd node, path string) {
	f := w.files[path]
	if f == nil {
		if len(w.fileOrder) >= maxListed*10 {
			return
		}
		f = &reports.FileWrite{Path: path, Command: w.command(nd)}
		w.files[path] = f
		w.fileOrder = append(w.fileOrder, path)
	}
	f.Count++
}

// endStrays ends what process n spawned that still runs outside its
// process group, once process n was stopped.
func (w *watcher) endStrays(n int, grace time.Duration) int {
	w.mu.Lock()
	var strays []node
	for _, nd := range w.walk(walkOpts{self: true, only: n}) {
		if nd.n == n && !nd.root && !nd.st.dead() {
			strays = append(strays, nd)
		}
	}
	for _, nd := range strays {
		if rec := w.see(nd); rec != nil {
			rec.outlivedTarget = true
		}
	}
	w.mu.Unlock()
	if len(strays) == 0 {
		return 0
	}
	ended := w.terminate(context.Background(), strays, grace)
	w.reapAll(ended, reapPatience)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, nd := range ended {
		if rec := w.procs[nd.id()]; rec != nil {
			rec.endedByUs, rec.alive = true, false
		}
	}
	return len(ended)
}

// terminate sends SIGTERM to the processes, waits up to grace for them to
// end, sends SIGKILL to the rest and waits up to a second more. It returns
// those it signalled that ended, with their last state. A pid is
// signalled only while it still names the same process.
func (w *watcher) terminate(ctx context.Context, ps []node, grace time.Duration) []node {
	same := func(nd node) (procStat, bool) {
		st, err := readStat(nd.pid)
		return st, err == nil && st.start == nd.st.start
	}
	signal := func(sig syscall.Signal) {
		for _, nd := range ps {
			if st, ok := same(nd); ok && !st.dead() {
				syscall.Kill(nd.pid, sig)
			}
		}
	}
	// waitGone polls: these processes are not (or not only) mcpcheck's
	// children, and a pidfd per process would cost more than a poll of a
	// few /proc files, every millisecond at first, then every 10 ms.
	waitGone := func(d time.Duration) bool {
		deadline := time.Now().Add(d)
		for pause := time.Millisecond; ; pause = min(2*pause, 10*time.Millisecond) {
			left := false
			for _, nd := range ps {
				if st, ok := same(nd); ok && !st.dead() {
					left = true
					break
				}
			}
			if !left || time.Now().After(deadline) || ctx.Err() != nil {
				return !left
			}
			time.Sleep(pause)
		}
	}
	signal(syscall.SIGTERM)
	if !waitGone(grace) {
		signal(syscall.SIGKILL)
		waitGone(time.Second)
	}
	var out []node
	for _, nd := range ps {
		st, ok := same(nd)
		if !ok || st.dead() {
			if ok {
				nd.st = st
			}
			out = append(out, nd)
		}
	}
	return out
}

// close stops the sampler, ends every process still carrying the
// sandbox's marker (and what runs below them), reaps those mcpcheck
// adopted, and fills in fx.
func (w *watcher) close(ctx context.Context, grace time.Duration, fx *reports.SideEffects) {
	w.mu.Lock()
	running := w.running
	w.running, w.closed = false, true
	w.mu.Unlock()
	if running {
		close(w.stopCh)
		<-w.done
	}
	w.mu.Lock()
	w.sample()
	for _, r := range w.roots {
		if r.kids >= 0 {
			syscall.Close(r.kids)
			r.kids = -1
		}
	}
	if w.selfKids >= 0 {
		syscall.Close(w.selfKids)
		w.selfKids = -1
	}
	left := map[procID]node{}
	nodes := w.walk(walkOpts{self: true, roots: true, all: true})
	w.scanFDs(nodes, true)
	for _, nd := range nodes {
		if !nd.st.dead() {
			left[nd.id()] = nd
		}
	}
	// What left mcpcheck's tree of descendants altogether (a reaper of its
	// own above it, or no subreaper) still carries the marker.
	deadline := time.Now().Add(procScanBudget)
	scanned := 0
	for _, pid := range procPids(maxProcScan) {
		if pid == w.self || time.Now().After(deadline) {
			continue
		}
		scanned++
		n, ok := w.marker(pid)
		if !ok {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.dead() {
			continue
		}
		nd := node{pid, st, n, w.rootPids[pid] == n}
		if _, dup := left[nd.id()]; !dup {
			left[nd.id()] = nd
		}
	}
	if time.Now().After(deadline) {
		w.notes = append(w.notes, fmt.Sprintf("the search of /proc for processes left behind stopped after %v (%d processes read)", procScanBudget, scanned))
	}
	var ps []node
	roots := 0
	for _, nd := range left {
		ps = append(ps, nd)
		if nd.root {
			roots++
			continue
		}
		if rec := w.see(nd); rec != nil {
			rec.outlivedRun = true
		}
	}
	w.mu.Unlock()
	var ended []node
	if len(ps) > 0 {
		ended = w.terminate(ctx, ps, grace)
	}
	// And the adopted children that ended since the last sample.
	w.mu.Lock()
	for _, nd := range w.walk(walkOpts{self: true, all: true}) {
		if !nd.root && nd.st.dead() && nd.st.ppid == w.self {
			ended = append(ended, nd)
		}
	}
	w.mu.Unlock()
	w.reapAll(ended, reapPatience)
	w.mu.Lock()
	defer w.mu.Unlock()
	gone := map[procID]bool{}
	for _, nd := range ended {
		gone[nd.id()] = true
		if rec := w.procs[nd.id()]; rec != nil && !nd.root {
			rec.endedByUs, rec.alive = true, false
		}
	}
	if roots > 0 {
		w.notes = append(w.notes, fmt.Sprintf("%d target %s still running when the run ended; mcpcheck ended them", roots, pluralWord(roots, "process was", "processes were")))
	}
	for _, nd := range ps {
		if !gone[nd.id()] {
			w.notes = append(w.notes, fmt.Sprintf("process %d (%s) did not end after SIGKILL; end it by hand", nd.pid, w.command(nd)))
		}
	}
	w.report(fx)
}

// abort sends SIGKILL at once to the target processes' groups and to
// every other process of the sandbox it can find (a walk, and the marker
// in /proc for at most half a second), for a program about to exit.
func (w *watcher) abort() {
	w.mu.Lock() // held only for a sample or a walk at a time
	defer w.mu.Unlock()
	for pid := range w.rootPids {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	for _, nd := range w.walk(walkOpts{self: true, roots: true, all: true}) {
		if !nd.st.dead() {
			syscall.Kill(nd.pid, syscall.SIGKILL)
		}
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	for _, pid := range procPids(maxProcScan) {
		if time.Now().After(deadline) {
			break
		}
		if _, ok := w.marker(pid); ok && pid != w.self {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// report fills in fx from what was seen. Call with w.mu held.
func (w *watcher) report(fx *reports.SideEffects) {
	fx.Observed = true
	fx.How = fmt.Sprintf("sampled /proc every %v (%d samples, %v of CPU); what started and ended between two samples is not seen",
		w.interval, w.samples, w.cpu.Round(time.Millisecond))
	fx.TargetProcesses = w.starts
	byCmd := map[string]*reports.SpawnedProcess{}
	for _, rec := range w.order {
		p := byCmd[rec.command]
		if p == nil {
			if len(fx.Processes) >= maxListed {
				fx.MoreProcesses++
				continue
			}
			fx.Processes = append(fx.Processes, reports.SpawnedProcess{Command: rec.command})
			p = &fx.Processes[len(fx.Processes)-1]
			byCmd[rec.command] = p
		}
		p.Count++
		if len(p.Pids) < 5 {
			p.Pids = append(p.Pids, rec.id.pid)
		}
		add := func(b bool, n *int) {
			if b {
				*n++
			}
		}
		add(rec.leftGroup, &p.LeftGroup)
		add(rec.leftSess, &p.LeftSession)
		add(rec.outlivedParent, &p.OutlivedParent)
		add(rec.outlivedTarget, &p.OutlivedTarget)
		add(rec.outlivedRun, &p.OutlivedRun)
		add(rec.endedByUs, &p.EndedByUs)
	}
	for _, k := range w.netOrder {
		u := w.net[k]
		if u.Count == 0 {
			continue
		}
		if len(fx.Network) >= maxListed {
			fx.MoreNetwork++
			continue
		}
		fx.Network = append(fx.Network, *u)
	}
	for _, k := range w.fileOrder {
		if len(fx.FilesWritten) >= maxListed {
			fx.MoreFilesWritten++
			continue
		}
		fx.FilesWritten = append(fx.FilesWritten, *w.files[k])
	}
	fx.Notes = append(fx.Notes, w.notes...)
}
