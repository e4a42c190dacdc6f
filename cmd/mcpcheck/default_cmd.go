package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/internal/scenarios"
)

// embeddedReference are the arguments that start this binary as the
// embedded reference server of the main job: over stdio, with small pages
// so that every list paginates and pagination is judged, not untestable.
var embeddedReference = []string{"reference", "server", "--stdio", "--page-size", "3"}

// defaultWithFlags is "mcpcheck FLAGS": the main job (every server check
// against the embedded reference server, as "mcpcheck" alone runs it) with
// the flags of "mcpcheck server" that do not name a target, so that the
// main job can write its reports: mcpcheck --format text,json,html --out DIR.
func defaultWithFlags(e *env, args []string) error {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "stdio" || name == "url" || name == "transport" || name == "header" || name == "header-env") {
			return usagef("%s names your own server; the main job checks the embedded reference server. Use 'mcpcheck server %s ...'", a, a)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return harnessError{fmt.Errorf("cannot find the mcpcheck binary to start the embedded reference server: %v", err)}
	}
	o, err := parseServerFlags(append([]string{"--stdio", "embedded-reference-server"}, args...))
	if err != nil {
		return err
	}
	tg := target.Command(self, embeddedReference...)
	tg.Timeouts = o.target.Timeouts
	o.target = tg
	if !toolsFlagGiven(args) {
		// The embedded reference server's tools are mcpcheck's own and
		// harmless: the main job calls them all, 2024-11-05 (which has
		// no annotations) included, so every check is judged.
		o.tools.Calls = scenarios.CallAll
	}
	fmt.Fprintf(e.stderr, "mcpcheck: no target given, checking the embedded reference server (%s %s); see 'mcpcheck server --help' to check your own\n", filepath.Base(self), strings.Join(embeddedReference, " "))
	return runServerSuite(e, o)
}

// toolsFlagGiven reports whether args set --call-tools.
func toolsFlagGiven(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "call-tools" {
			return true
		}
	}
	return false
}
