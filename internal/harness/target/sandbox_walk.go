package target

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// sandboxWalkLimits bound the walk of a sandbox at its end: the entries
// visited, the paths listed and the time taken.
type sandboxWalkLimits struct {
	entries int
	listed  int
	took    time.Duration
}

var errWalkBound = errors.New("walk bound reached")

// walkSandbox lists what a run left in the sandbox directory: every entry
// but the working directory, HOME and TMPDIR themselves (the sandbox made
// those). Paths are relative to dir; it lists files, links and empty
// directories (ending in "/"), in lexical order, up to lim.listed. The
// error says the walk was cut short.
func walkSandbox(dir string, lim sandboxWalkLimits) (*reports.SandboxFiles, error) {
	out := &reports.SandboxFiles{}
	base := map[string]bool{"work": true, "home": true, "tmp": true}
	deadline := time.Now().Add(lim.took)
	var empty string // the last directory seen, until an entry shows it is not empty
	list := func(p string) {
		if len(out.Paths) < lim.listed {
			out.Paths = append(out.Paths, p)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil // unreadable: counted, not entered
		}
		rel, rerr := filepath.Rel(dir, path)
		if rerr != nil || rel == "." || base[rel] {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if empty != "" && !strings.HasPrefix(rel, empty) {
			list(empty)
		}
		empty = ""
		if out.Count >= lim.entries || time.Now().After(deadline) {
			out.Truncated = true
			return errWalkBound
		}
		out.Count++
		if d.IsDir() {
			empty = rel + "/"
			return nil
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				out.Bytes += fi.Size()
			}
		}
		list(rel)
		return nil
	})
	if empty != "" && !out.Truncated {
		list(empty)
	}
	switch {
	case errors.Is(err, errWalkBound):
		return out, fmt.Errorf("the walk of the sandbox stopped after %d entries or %v; it holds more", lim.entries, lim.took)
	case err != nil:
		return out, fmt.Errorf("could not walk the sandbox: %v", err)
	}
	return out, nil
}
