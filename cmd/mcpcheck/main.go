// Command mcpcheck is a conformance test harness and fuzzer for the Model
// Context Protocol. Run it with no arguments to check the embedded reference
// server with the full suite; run "mcpcheck help" for everything else.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
