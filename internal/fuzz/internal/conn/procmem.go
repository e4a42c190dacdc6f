package conn

import (
	"bytes"
	"os"
	"strconv"
)

// ProcMemory returns the process's resident set size and its peak (VmRSS
// and VmHWM of /proc/self/status, in bytes); zeros where there is no such
// file.
func ProcMemory() (rss, peak uint64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		name, val, ok := bytes.Cut(l, []byte{':'})
		if !ok {
			continue
		}
		var into *uint64
		switch string(name) {
		case "VmRSS":
			into = &rss
		case "VmHWM":
			into = &peak
		default:
			continue
		}
		f := bytes.Fields(val)
		if len(f) == 2 && string(f[1]) == "kB" {
			if n, err := strconv.ParseUint(string(f[0]), 10, 64); err == nil {
				*into = n << 10
			}
		}
	}
	return rss, peak
}

// GroupRSS returns the resident set size summed over the processes of
// process group pgid (the clients of client campaigns run in a group of
// their own, with whatever they start), read from /proc/N/stat; 0 where
// the system has no /proc.
func GroupRSS(pgid int) uint64 {
	rss, _ := GroupStat(pgid)
	return rss
}

// GroupStat returns GroupRSS and whether any thread of a process of the
// group is running or waiting for a CPU (state R): a client that
// computes, or that a busy machine starves, rather than one blocked
// waiting for input. false where the system has no /proc.
func GroupStat(pgid int) (rss uint64, running bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	page := uint64(os.Getpagesize())
	for _, e := range ents {
		name := e.Name()
		if name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone already
		}
		// pid (comm) state ppid pgrp ... rss is the 24th field; comm may
		// hold spaces and parentheses, so count from the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 22 {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err != nil || g != pgid {
			continue
		}
		if !running {
			running = groupRunning(name, f[0])
		}
		if n, err := strconv.ParseUint(string(f[21]), 10, 64); err == nil {
			rss += n * page
		}
	}
	return rss, running
}

// groupRunning reports whether process pid (whose /proc/N/stat state is
// state) has a thread running or waiting for a CPU: /proc/N/stat shows
// the main thread only, and a Go or Node program computes on others.
func groupRunning(pid string, state []byte) bool {
	if string(state) == "R" {
		return true
	}
	tasks, err := os.ReadDir("/proc/" + pid + "/task")
	if err != nil {
		return false
	}
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/" + pid + "/task/" + t.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i >= 0 && i+3 < len(b) && b[i+2] == 'R' {
			return true
		}
	}
	return false
}
