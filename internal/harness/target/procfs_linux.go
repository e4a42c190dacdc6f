package target

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procfs reads what the sandbox's watcher needs from /proc, bounded.

// procStat is what /proc/PID/stat says about a process.
type procStat struct {
	state byte // R, S, D, Z, X, ...
	ppid  int
	pgid  int
	sid   int
	start uint64 // start time, in clock ticks after boot: a pid plus its start names one process
}

// dead reports whether the process has ended (a zombie waits only to be
// reaped).
func (s procStat) dead() bool { return s.state == 'Z' || s.state == 'X' }

func procPath(pid int, rest string) string { return "/proc/" + strconv.Itoa(pid) + "/" + rest }

// The files of /proc are read with plain system calls: os.Open would also
// try to register each with the runtime's poller, which costs more system
// calls than the read itself, many times a second.

// openProc opens a /proc file or directory for reading.
func openProc(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// readFD reads fd from offset 0 into buf until it ends or buf is full.
func readFD(fd int, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := syscall.Pread(fd, buf[n:], int64(n))
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return n, err
		case m == 0:
			return n, nil
		}
		n += m
	}
	return n, nil
}

// readSmall reads at most max bytes of a /proc file.
func readSmall(path string, max int) ([]byte, error) {
	fd, err := openProc(path, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, min(max, 4096))
	for {
		n, err := readFD(fd, buf)
		if err != nil || n < len(buf) || len(buf) >= max {
			return buf[:n], err
		}
		buf = make([]byte, min(2*len(buf), max)) // read again, whole: /proc files are made at each read
	}
}

// readNames lists the entries of a /proc directory, at most max.
func readNames(path string, max int) []string {
	fd, err := openProc(path, syscall.O_DIRECTORY)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var names []string
	buf := make([]byte, 8192)
	for len(names) < max {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		_, _, names = syscall.ParseDirent(buf[:n], max-len(names), names)
	}
	return names
}

var errBadStat = errors.New("unreadable /proc stat")

func readStat(pid int) (procStat, error) {
	b, err := readSmall(procPath(pid, "stat"), 2048)
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// parseStat reads "pid (comm) S ppid pgrp session tty tpgid flags minflt
// cminflt majflt cmajflt utime stime cutime cstime priority nice threads
// itrealvalue starttime ...": comm may hold anything, so the fields are
// counted from the last ')'.
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errBadStat
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, errBadStat
	}
	var st procStat
	var e1, e2, e3, e4 error
	st.state = f[0][0]
	st.ppid, e1 = strconv.Atoi(f[1])
	st.pgid, e2 = strconv.Atoi(f[2])
	st.sid, e3 = strconv.Atoi(f[3])
	st.start, e4 = strconv.ParseUint(f[19], 10, 64)
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
		return procStat{}, errBadStat
	}
	return st, nil
}

// children lists the children of pid, reading the children file of every
// one of its threads (a child is listed under the thread that forked it,
// or that adopted it), at most max of them.
func children(pid int, max int) []int {
	var out []int
	for _, t := range readNames(procPath(pid, "task"), 4096) {
		b, err := readSmall(procPath(pid, "task/"+t+"/children"), 64<<10)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil && len(out) < max {
				out = append(out, c)
			}
		}
	}
	return out
}

// mainChildren lists the children of pid's main thread, at most max: the
// cheap look, for a process sampled often.
func mainChildren(pid int, max int) []int {
	b, err := readSmall(procPath(pid, "task/"+strconv.Itoa(pid)+"/children"), 64<<10)
	if err != nil {
		return nil
	}
	return parsePids(b, max)
}

// parsePids reads a children file: pids separated by spaces.
func parsePids(b []byte, max int) []int {
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(f); err == nil && len(out) < max {
			out = append(out, c)
		}
	}
	return out
}

// maxCommand bounds a command line read from /proc.
const maxCommand = 512

// readCommand is the command line of pid, arguments joined by spaces
// (bounded), or "[comm]" when it has none (a kernel thread, a zombie).
func readCommand(pid int) string {
	b, _ := readSmall(procPath(pid, "cmdline"), 4096)
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		c, _ := readSmall(procPath(pid, "comm"), 64)
		return "[" + strings.TrimSpace(string(c)) + "]"
	}
	s := strings.ReplaceAll(string(b), "\x00", " ")
	if len(s) > maxCommand {
		s = s[:maxCommand] + "…"
	}
	return s
}

// readMarker finds SandboxEnv in the environment pid started with, and
// returns its value's process number when the value starts with prefix
// ("RUN/"). ok is false when the variable is absent, belongs to another
// run or cannot be read (another user's process, a zombie).
func readMarker(pid int, prefix string) (n int, ok bool) {
	b, err := readSmall(procPath(pid, "environ"), 256<<10)
	if err != nil || len(b) == 0 {
		return 0, false
	}
	key := []byte(SandboxEnv + "=" + prefix)
	for len(b) > 0 {
		var kv []byte
		kv, b, _ = bytes.Cut(b, []byte{0})
		if v, found := bytes.CutPrefix(kv, key); found {
			n, err := strconv.Atoi(string(v))
			return n, err == nil
		}
	}
	return 0, false
}

// fdLink is one open descriptor of a process and what it refers to.
type fdLink struct {
	fd     int
	target string
}

// fdLinks lists the open descriptors of pid, at most max.
func fdLinks(pid int, max int) []fdLink {
	dir := procPath(pid, "fd")
	names := readNames(dir, max)
	out := make([]fdLink, 0, len(names))
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		t, err := os.Readlink(dir + "/" + n)
		if err != nil {
			continue
		}
		out = append(out, fdLink{fd, t})
	}
	return out
}

// fdWrites reports whether descriptor fd of pid was opened for writing
// (O_WRONLY or O_RDWR in /proc/PID/fdinfo/FD) and refers to a regular file.
func fdWrites(pid, fd int) bool {
	b, err := readSmall(procPath(pid, "fdinfo/"+strconv.Itoa(fd)), 4096)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			if err != nil || flags&3 == 0 { // O_RDONLY
				return false
			}
			fi, err := os.Stat(procPath(pid, "fd/"+strconv.Itoa(fd)))
			return err == nil && fi.Mode().IsRegular()
		}
	}
	return false
}

// procPids lists the numeric entries of /proc, at most max.
func procPids(max int) []int {
	var out []int
	for _, n := range readNames("/proc", max+1024) {
		if pid, err := strconv.Atoi(n); err == nil && len(out) < max {
			out = append(out, pid)
		}
	}
	return out
}
