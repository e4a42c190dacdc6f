package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes. CI jobs gate on them, so they never change meaning.
const (
	exitOK          = 0 // everything checked passed (or nothing was asked)
	exitFailed      = 1 // the target broke at least one requirement
	exitUsage       = 2 // the command line was wrong
	exitHarness     = 3 // mcpcheck itself could not do its job
	exitNotBuilt    = 4 // the subcommand exists but is not built yet
	exitInterrupted = 5 // a signal or --deadline ended the run; the reports hold what was judged
	programName     = "mcpcheck"
	// baseVersion is the version of this source tree; a build adds its
	// revision (see toolVersion).
	baseVersion = "0.1.0-dev"
)

// usageError is a mistake on the command line; it exits with exitUsage.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// notBuiltError names a subcommand that is wired but not implemented yet.
type notBuiltError struct{ what, issue string }

func (e notBuiltError) Error() string {
	return fmt.Sprintf("%s is not built yet (tracked in the issue %q); today mcpcheck can list and show the requirement catalog: try 'mcpcheck spec list'", e.what, e.issue)
}

const usageText = `mcpcheck — conformance harness and fuzzer for the Model Context Protocol

Usage:
  mcpcheck [--format LIST --out DIR ...]       full suite against the embedded reference server
                                               (the flags of 'mcpcheck server' that name no target)
  mcpcheck server --stdio "CMD ARGS" | --url URL [flags]
                                               check any MCP server
  mcpcheck client --command "CMD {url}" | --stdio "CMD {server}"
                                               check an MCP client (mcpcheck plays the server)
  mcpcheck fuzz --stdio "CMD" | --url URL      fuzz campaign against a server
  mcpcheck fuzz merge DIR... --out DIR         join campaigns (shards of --shard K/N)
  mcpcheck replay FINDING --stdio "CMD" | --url URL
                                               reproduce a fuzz finding
  mcpcheck reference server|client ...         the reference MCP server and client
  mcpcheck authserver [--listen ADDR] ...      a test OAuth 2.1 authorization server
  mcpcheck authserver mint --issuer URL --resource URL
                                               a token of it, for --header-env
  mcpcheck authserver-check --url ISSUER       check an OAuth authorization server
  mcpcheck report ...                          convert, compare and merge results
  mcpcheck baseline write RUN.json --reason R  expected failures of a run, for --baseline
  mcpcheck spec list [--version V] [--level L] [--role R] [--area A] [--testability T] [--json]
  mcpcheck spec show ID [--json]               one requirement of the catalog
  mcpcheck spec coverage [--role R] [--json]   which requirements have checks
  mcpcheck version [--json]                    version, VCS revision, Go and protocol versions

Exit codes: 0 passed, 1 requirements broken, 2 usage error (also a selection
that matches no check), 3 harness error, target unreachable or nothing judged
(also a target that never got through initialization), 4 not built yet,
5 interrupted (a signal or --deadline ended the run; every report asked for is
written with what was judged, the rest marked "not run").
`

// env is what a subcommand may touch of the outside world. Tests fill it
// with buffers; main fills it with the process's files.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// fuzzMinimizeBudget, when not 0, is the minimize budget of server
	// fuzz campaigns (fuzz.Config.MinimizeBudget; negative: none). It is
	// a hook for the tests of a campaign's plumbing (shards, merge,
	// replay), which do not judge minimizing and would spend most of
	// their time on it; the command line leaves it 0, fuzz's default.
	fuzzMinimizeBudget int
}

// run is the whole program: it parses args, writes to stdout/stderr and
// returns the exit code. It never calls os.Exit so tests can drive it.
func run(args []string, stdout, stderr io.Writer) int {
	return runEnv(&env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: stdout, stderr: stderr, getenv: func(string) string { return "" }}, args)
}

// runEnv is run with every outside resource given explicitly.
func runEnv(e *env, args []string) int {
	stdout, stderr := e.stdout, e.stderr
	err := dispatch(e, args)
	if err == nil {
		return exitOK
	}
	var ue usageError
	var nb notBuiltError
	var ce checkFailed
	var xs exitStatus
	var ie interruptedError
	switch {
	case errors.As(err, &xs):
		return int(xs)
	case errors.As(err, &ie):
		fmt.Fprintf(stderr, "%s: %v\n", programName, err)
		return exitInterrupted
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usageText)
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %v\nRun 'mcpcheck help' for usage.\n", programName, err)
		return exitUsage
	case errors.As(err, &nb):
		fmt.Fprintf(stderr, "%s: %v\n", programName, err)
		return exitNotBuilt
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "%s: %v\n", programName, err)
		return exitFailed
	default:
		fmt.Fprintf(stderr, "%s: %v\n", programName, err)
		return exitHarness
	}
}

// interruptedError reports a run that a signal or --deadline ended; its
// reports were written with what was judged.
type interruptedError struct{ msg string }

func (e interruptedError) Error() string { return e.msg }

// checkFailed reports that the target broke requirements.
type checkFailed struct{ msg string }

func (e checkFailed) Error() string { return e.msg }

func dispatch(e *env, args []string) error {
	stdout := e.stdout
	if len(args) == 0 {
		return defaultMain(e)
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		return flag.ErrHelp
	case "version", "--version":
		return versionMain(e, args[1:])
	}
	if strings.HasPrefix(args[0], "-") {
		return defaultWithFlags(e, args)
	}
	switch args[0] {
	case "spec":
		return specCmd(args[1:], stdout)
	case "server":
		return serverMain(e, args[1:])
	case "client":
		return clientMain(e, args[1:])
	case "relay":
		return relayMain(e, args[1:])
	case "fuzz":
		return fuzzMain(e, args[1:])
	case "replay":
		return replayMain(e, args[1:])
	case "report":
		return reportMain(e, args[1:])
	case "baseline":
		return baselineMain(e, args[1:])
	case "authserver":
		return authserverMain(e, args[1:])
	case "authserver-check":
		return authserverCheckMain(e, args[1:])
	case "reference":
		if len(args) > 1 && args[1] == "client" {
			return referenceClientMain(e, args[2:])
		}
		if len(args) > 1 && args[1] == "server" {
			return referenceServerMain(e, args[2:])
		}
		return usagef("reference needs 'server' or 'client'")
	}
	return usagef("unknown command %q (commands: server, client, fuzz, replay, reference, report, baseline, spec, version)", strings.Join(args[:1], ""))
}
