package sharedtest

import (
	"flag"
	"strconv"
)

// DefaultParallel parses the test flags and, unless the command line set
// -parallel, runs the package's parallel tests n at a time instead of go
// test's default (GOMAXPROCS, 2 on a 2-core runner). Call it first in
// TestMain, for packages whose tests mostly wait on processes and
// servers rather than compute.
func DefaultParallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}
