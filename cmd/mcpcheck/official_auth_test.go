package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/scenarios/officialsuite"
)

// officialAuthScenarios are the official client suite's authorization
// scenarios its "auth" suite leaves out: the 2025-03-26 ones and those
// new in 2026-07-28 (the suite itself runs the other fourteen).
var officialAuthScenarios = []string{
	"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
	"auth/authorization-server-migration", "auth/iss-supported", "auth/iss-not-advertised",
	"auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
	"auth/metadata-issuer-mismatch",
}

// TestOfficialAuthScenariosWithTheReferenceClient: the official
// conformance suite's client authorization scenarios (the auth suite and
// every other auth/ scenario of a dated version) pass with mcpcheck's
// reference client, which acts out each one. It needs the lab (Node 22
// and the suite, ../shared/lab/setup.sh) and skips without it.
func TestOfficialAuthScenariosWithTheReferenceClient(t *testing.T) {
	s, err := officialsuite.Find()
	if err != nil {
		t.Skip(err)
	}
	client := mcpcheckBin(t) + " reference client --timeout 10s conformance"
	runs := [][]string{{"--suite", "auth"}}
	for _, sc := range officialAuthScenarios {
		runs = append(runs, []string{"--scenario", sc})
	}
	for _, args := range runs {
		args := args
		t.Run(args[1], func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, s.Node, append(append([]string{s.Script, "client", "--command", client}, args...), "-o", out)...)
			cmd.Env = append(os.Environ(), "NODE_OPTIONS=--require "+filepath.Join(s.Lab, "bind-localhost.cjs"))
			log, err := cmd.CombinedOutput()
			v := officialStatuses(out)
			if v["SUCCESS"] == 0 || v["FAILURE"] > 0 || v["WARNING"] > 0 {
				t.Errorf("%v: the official suite judged %v (exit %v), want successes only\n%s", args, v, err, tailString(string(log), 4000))
			}
			t.Logf("%v: %v", args, v)
		})
	}
}

// officialStatuses counts the statuses of the checks.json files the
// official suite wrote under dir.
func officialStatuses(dir string) map[string]int {
	v := map[string]int{}
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
		if json.Unmarshal(raw, &checks) == nil {
			for _, c := range checks {
				v[c.Status]++
			}
		}
		return nil
	})
	return v
}

// tailString is the last n bytes of s.
func tailString(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
