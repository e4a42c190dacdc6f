package main

import (
	"errors"
	"flag"

	"github.com/mcpcheck/mcpcheck/internal/reference/client/cli"
)

// referenceClientMain runs "mcpcheck reference client ARGS": the reference
// MCP client's command line (see internal/reference/client/cli). Usage mistakes
// become usage errors (exit 2); anything the server did wrong is an
// ordinary error.
func referenceClientMain(e *env, args []string) error {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			_, err := e.stdout.Write([]byte(cli.Usage))
			return err
		}
	}
	err := cli.Main(cli.Env{Ctx: e.ctx, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Getenv: e.getenv}, args)
	var ue *cli.UsageError
	if errors.As(err, &ue) {
		return usagef("%s", ue.Msg)
	}
	if errors.Is(err, flag.ErrHelp) {
		_, werr := e.stdout.Write([]byte(cli.Usage))
		return werr
	}
	return err
}
