// Package officialsuite runs the official MCP conformance suite
// (npm @modelcontextprotocol/conformance under Node 22, as the peer lab
// installs it) for the benchmarks that compare mcpcheck with it, and
// counts what it judged. It is test support: nothing in mcpcheck's runs
// depends on it, and it finds nothing on a machine without the lab.
package officialsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Suite is an installed official suite.
type Suite struct {
	// Lab is the lab's directory.
	Lab string
	// Node is the Node 22 binary, Script the suite's entry point.
	Node, Script string
}

// LabDir is where the lab is installed: $MCPCHECK_LAB, else /tmp/lab (as
// the lab's setup.sh installs it).
func LabDir() string {
	if d := os.Getenv("MCPCHECK_LAB"); d != "" {
		return d
	}
	return "/tmp/lab"
}

// Find returns the suite of the lab, or an error that says what is
// missing and how to install it (a benchmark then skips with it). extra
// names further files of the lab that must be there (relative to it).
func Find(extra ...string) (Suite, error) {
	lab := LabDir()
	s := Suite{
		Lab:    lab,
		Node:   filepath.Join(lab, "node22", "node"),
		Script: filepath.Join(lab, "npm-conf-next", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
	}
	need := []string{s.Node, s.Script, filepath.Join(lab, "bind-localhost.cjs")}
	for _, e := range extra {
		need = append(need, filepath.Join(lab, e))
	}
	for _, p := range need {
		if _, err := os.Stat(p); err != nil {
			return Suite{}, fmt.Errorf("the lab is not installed (%s missing); run ../shared/lab/setup.sh or set MCPCHECK_LAB", p)
		}
	}
	return s, nil
}

// Command is the suite run with args (its mode and flags; "-o out" is
// added), its test servers kept on loopback; ctx kills it.
func (s Suite) Command(ctx context.Context, out string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.Node, append(append([]string{s.Script}, args...), "-o", out)...)
	cmd.Env = append(os.Environ(), "NODE_OPTIONS=--require "+filepath.Join(s.Lab, "bind-localhost.cjs"))
	return cmd
}

// Run runs the suite with args (its mode and flags; "-o DIR" is added),
// its test servers kept on loopback, and returns how many checks it
// judged and how long it took. A run that ends without its summary line
// is an error with the suite's output.
func (s Suite) Run(out string, args ...string) (int, time.Duration, error) {
	cmd := s.Command(context.Background(), out, args...)
	start := time.Now()
	msg, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil && !strings.Contains(string(msg), "Total") {
		return 0, took, fmt.Errorf("the official suite failed: %v\n%s", err, msg)
	}
	return CountVerdicts(out), took, nil
}

// CountVerdicts counts the rows with a verdict (SUCCESS, FAILURE or
// WARNING) in the checks.json files the suite wrote under dir: one check
// judged on one scenario, the suite's unit.
func CountVerdicts(dir string) int {
	st := Statuses(dir)
	return st["SUCCESS"] + st["FAILURE"] + st["WARNING"]
}

// Statuses counts the rows of the checks.json files the suite wrote under
// dir by status (SUCCESS, FAILURE, WARNING, and any other the suite
// writes).
func Statuses(dir string) map[string]int {
	n := map[string]int{}
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var checks []struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(raw, &checks) != nil {
			return nil
		}
		for _, c := range checks {
			n[c.Status]++
		}
		return nil
	})
	return n
}
