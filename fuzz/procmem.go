package fuzz

import (
	"bytes"
	"os"
	"strconv"
)

// procMemory returns the process's resident set size and its peak (VmRSS
// and VmHWM of /proc/self/status, in bytes); zeros where there is no such
// file.
func procMemory() (rss, peak uint64) {
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
