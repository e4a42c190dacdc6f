package suite

import (
	"path"
	"runtime"
	"strings"
)

// Place is where a registration was made, as the listing order reads it:
// a file and the line of the call. Checks are listed by Place (file, then
// line), in every role: that order is the one listings, reports, matrices
// and specs show, and it is explicit because Go's own is not (it
// initializes an area sub-package after the package it imports, which
// would put every area's checks last, and within a package a var after
// the vars it depends on).
type Place struct {
	File string
	Line int
}

// Before reports whether p comes before q in the listing order.
func (p Place) Before(q Place) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	return p.Line < q.Line
}

// Caller is the Place of the code that called the registering function
// (the first frame outside this package whose function is not a
// Register or RegisterScenarios), its file named relative to the role's
// content package in directory root ("server", "client", "asuite"): a
// file of the package by its name, a file of an area sub-package as
// DIR_FILE (transport/http.go reads transport_http.go) and an area's own
// file DIR/DIR.go as DIR.go. Those are the names the files had before the
// areas were split out, so the split kept the order.
func Caller(root string) Place {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		fn := f.Function
		if !strings.Contains(fn, "/scenarios/suite.") && !strings.HasSuffix(fn, ".Register") && !strings.HasSuffix(fn, ".RegisterScenarios") {
			return placeOfFile(f.File, f.Line, root)
		}
		if !more {
			return Place{File: f.File, Line: f.Line}
		}
	}
}

// placeOfFile is the Place of line in file (a path as the runtime gives
// it, with forward slashes on every system), named as Caller says.
func placeOfFile(file string, line int, root string) Place {
	base := path.Base(file)
	dir := path.Base(path.Dir(file))
	if dir == root || strings.TrimSuffix(base, ".go") == dir {
		return Place{File: base, Line: line}
	}
	return Place{File: dir + "_" + base, Line: line}
}
