package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
)

const baselineUsage = `Usage: mcpcheck baseline write RUN.json --reason "WHY" [--out FILE]

Writes a baseline of expected failures from a JSON report (mcpcheck server or
client --format json): one entry per broken check (fail, warn, error), scoped
to its protocol version and transport, naming the requirements it broke, each
with the reason given:

  {"entries": [
    {"check": "tools/names", "version": "2025-11-25", "transport": "stdio",
     "requirements": ["tools.name.allowed-characters"], "reason": "WHY"}
  ]}

Pass it to a later run with --baseline FILE: a broken check no longer fails
the run while every requirement it breaks is one its entries name; a
requirement no entry names is a new failure, even in a check that was failing
already. "requirements": [] expects a harness error only. An entry whose check
passes again, whose named requirement is no longer broken, or whose check no
longer exists in a run that covers its version and transport, is stale and
fails the run. An entry without "requirements" (a baseline written by an older
mcpcheck) still accepts whatever its check breaks; the report points it out,
and --strict fails the run on it: write the baseline again. Fuzz findings are
never baselined. Without --out the baseline goes to stdout.

Exit codes: 0 written; 2 usage error or unreadable report; 3 the file could
not be written.
`

// baselineMain runs "mcpcheck baseline ARGS".
func baselineMain(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("baseline needs a subcommand: write (see 'mcpcheck baseline --help')")
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(e.stdout, baselineUsage)
		return nil
	case "write":
	default:
		return usagef("baseline: unknown subcommand %q (use write)", args[0])
	}
	fs := newFlags("baseline write")
	reason := fs.String("reason", "", "")
	out := fs.String("out", "", "")
	pos, err := parseInterleaved(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, baselineUsage)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("baseline write: give one JSON report (mcpcheck server --format json writes one)")
	}
	if strings.TrimSpace(*reason) == "" {
		return usagef("baseline write: --reason is required: say why these failures are accepted (it is kept with every entry)")
	}
	run, err := readRun(pos[0])
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := reports.WriteBaseline(&buf, run, *reason); err != nil {
		return harnessError{fmt.Errorf("baseline write: %w", err)}
	}
	if *out == "" {
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil { // .mcpcheck/expected-failures.json in a fresh checkout
		return harnessError{fmt.Errorf("baseline write: %v", err)}
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return harnessError{fmt.Errorf("baseline write: %v", err)}
	}
	return nil
}
