package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
)

// sandboxUsage documents the sandbox flags of server, fuzz, replay and
// the main job.
const sandboxUsage = `  --cwd DIR                run the --stdio server in DIR instead of its sandbox's working directory
                           (--cwd . for the directory mcpcheck runs in)
  --keep-home              give the --stdio server HOME, TMPDIR and XDG_* as they are instead of the
                           sandbox's
  --keep-sandbox           do not remove the sandbox at the end of the run; its path is printed
`

// sandboxFlags are --cwd, --keep-home and --keep-sandbox.
type sandboxFlags struct {
	cwd                   *string
	keepHome, keepSandbox *bool
}

func addSandboxFlags(fs *flag.FlagSet) *sandboxFlags {
	return &sandboxFlags{cwd: fs.String("cwd", "", ""), keepHome: fs.Bool("keep-home", false, ""), keepSandbox: fs.Bool("keep-sandbox", false, "")}
}

// given reports whether a sandbox flag was set.
func (f *sandboxFlags) given() bool { return *f.cwd != "" || *f.keepHome || *f.keepSandbox }

// options checks the flags; stdio says the target is a command (the
// sandbox is only for those); cmd prefixes errors.
func (f *sandboxFlags) options(cmd string, stdio bool) (target.SandboxOptions, error) {
	o := target.SandboxOptions{KeepHome: *f.keepHome, Keep: *f.keepSandbox}
	if f.given() && !stdio {
		return o, usagef("%s: --cwd, --keep-home and --keep-sandbox are for a --stdio server (an HTTP server's processes are not mcpcheck's)", cmd)
	}
	if *f.cwd != "" {
		fi, err := os.Stat(*f.cwd)
		if err != nil || !fi.IsDir() {
			return o, usagef("%s: --cwd %s is not a directory; give an existing one (--cwd . for the current one)", cmd, *f.cwd)
		}
		o.Cwd = *f.cwd
	}
	return o, nil
}

// openSandbox makes the sandbox of a run.
func openSandbox(cmd string, o target.SandboxOptions) (*target.Sandbox, error) {
	s, err := target.NewSandbox(o)
	if err != nil {
		return nil, harnessError{fmt.Errorf("%s: %w", cmd, err)}
	}
	return s, nil
}

// sandboxCloseGrace bounds ending what the run left running.
const sandboxCloseGrace = 30 * time.Second

// closeSandbox ends the sandbox of a run and returns what the run did; it
// says on stderr where a kept sandbox is, what could not be cleaned, and,
// when target processes did not start, the sandbox's hint.
func closeSandbox(e *env, cmd string, s *target.Sandbox) *reports.SideEffects {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sandboxCloseGrace)
	defer cancel()
	fx, err := s.Close(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "mcpcheck %s: %v\n", cmd, err)
	}
	if fx.Sandbox != nil && fx.Sandbox.Kept {
		fmt.Fprintf(e.stderr, "mcpcheck %s: the sandbox is kept at %s (work/ was the server's working directory, home/ its HOME, tmp/ its TMPDIR)\n", cmd, s.Dir())
	}
	if n := s.EarlyExits(); n > 0 {
		fmt.Fprintf(e.stderr, "mcpcheck %s: %d target %s ended with a failure before saying anything: %s\n", cmd, n, pluralWord(n, "process", "processes"), s.Hint())
	}
	return &fx
}

// httpSideEffects is the side effects of a run against a URL.
func httpSideEffects() *reports.SideEffects {
	return &reports.SideEffects{NotObserved: "HTTP target: its processes are not mcpcheck's to watch"}
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeSideEffectsText writes the side effects section of a campaign's or
// a replay's text output.
func writeSideEffectsText(w io.Writer, fx *reports.SideEffects) {
	if fx == nil {
		return
	}
	fmt.Fprintf(w, "\nSide effects: %s\n", printableText(fx.Summary()))
	for _, l := range fx.Lines() {
		fmt.Fprintf(w, "  %s\n", printableText(l))
	}
}

// fuzzSummaryJSON is the campaign summary with the side effects of the
// campaign's stdio target.
type fuzzSummaryJSON struct {
	*fuzz.Result
	SideEffects *reports.SideEffects `json:"sideEffects,omitempty"`
}

// writeFuzzSummary writes the campaign summary (fuzz.SummaryFile), with
// the side effects when there are some.
func writeFuzzSummary(res *fuzz.Result, fx *reports.SideEffects) func(io.Writer) error {
	if fx == nil {
		return res.WriteJSON
	}
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(fuzzSummaryJSON{res, fx}); err != nil {
			return fmt.Errorf("cannot encode the campaign summary: %w", err)
		}
		return nil
	}
}

// sandboxArgs are the sandbox flags that reproduce o, for a finding's
// replay command.
func sandboxArgs(o target.SandboxOptions) []string {
	var out []string
	if o.Cwd != "" {
		out = append(out, "--cwd", shellQuote(o.Cwd))
	}
	if o.KeepHome {
		out = append(out, "--keep-home")
	}
	return out
}
