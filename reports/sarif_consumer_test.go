package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
	"time"
)

// sarifMultitool finds Microsoft's SARIF Multitool (the npm package
// @microsoft/sarif-multitool-linux, which .ci/run installs): the binary
// named by MCPCHECK_SARIF_MULTITOOL, or the one under the user cache.
func sarifMultitool(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPCHECK_SARIF_MULTITOOL"); p != "" {
		return p
	}
	if dir, err := os.UserCacheDir(); err == nil {
		p := filepath.Join(dir, "mcpcheck", "sarif-multitool", "node_modules", "@microsoft", "sarif-multitool-linux", "Sarif.Multitool")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	t.Skip("Microsoft SARIF Multitool not installed: npm install --prefix ~/.cache/mcpcheck/sarif-multitool @microsoft/sarif-multitool (or set MCPCHECK_SARIF_MULTITOOL); .ci/run does this")
	return ""
}

// sarifValidate runs the Multitool's validate command once over every
// log (a name -> the log's text) and returns, per name, the results of
// level error and warning it reports on that log; extra arguments go to
// the command (--rule-kind Gh;Sarif adds GitHub code scanning's rules).
// One start of the tool judges them all: each start costs seconds.
func sarifValidate(t *testing.T, tool string, logs map[string][]byte, extra ...string) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "validation.sarif")
	args := []string{"validate"}
	byFile := map[string]string{}
	for name, log := range logs {
		in := filepath.Join(dir, name+".sarif")
		if err := os.WriteFile(in, log, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, in)
		byFile[filepath.Base(in)] = name
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append(append(args, "-o", out, "--log", "ForceOverwrite", "--level", "Error;Warning"), extra...)
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1", "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("Sarif.Multitool validate: %v\n%s", err, stderr.Bytes())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("Sarif.Multitool wrote no validation log: %v\n%s", err, stderr.Bytes())
	}
	var v struct {
		Runs []struct {
			Results []struct {
				Level     string          `json:"level"`
				RuleID    string          `json:"ruleId"`
				Message   json.RawMessage `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("the validation log does not parse: %v", err)
	}
	found := map[string][]string{}
	for _, r := range v.Runs {
		for _, res := range r.Results {
			if res.Level != "error" && res.Level != "warning" {
				continue
			}
			name, ok := "", false
			if len(res.Locations) > 0 {
				name, ok = byFile[path.Base(res.Locations[0].PhysicalLocation.ArtifactLocation.URI)]
			}
			if !ok {
				t.Errorf("the SARIF Multitool reports %s %s %s on none of the logs it was given", res.Level, res.RuleID, res.Message)
				continue
			}
			found[name] = append(found[name], res.Level+" "+res.RuleID+" "+string(res.Message))
		}
	}
	return found
}

// TestSARIFPassesMicrosoftValidator checks the SARIF output with a real
// consumer: Microsoft's SARIF Multitool validates it against the SARIF
// 2.1.0 schema and its own rules (SARIF1xxx errors, SARIF2xxx warnings),
// and, in a second start, under GitHub code scanning's rules too
// (GH1xxx, GH2xxx): what an upload to code scanning is held to. It must
// report nothing of level error or warning on the sample run's and the
// hostile run's logs. Deliberately broken logs, judged in the same
// starts, prove the validator is really judging: one whose tool.driver
// has no name (required by SARIF 2.1.0), and one with a rule without
// help (GitHub requires help on every rule).
func TestSARIFPassesMicrosoftValidator(t *testing.T) {
	t.Parallel()
	tool := sarifMultitool(t)
	logs := map[string][]byte{}
	for name, run := range map[string]*Run{"sample": sampleRun(t), "hostile": hostileRun(t)} {
		var buf bytes.Buffer
		if err := WriteSARIF(&buf, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		logs[name] = buf.Bytes()
	}
	// broken returns the sample log with break applied to its tool.driver.
	broken := func(breakDriver func(driver map[string]any)) []byte {
		var log map[string]any
		if err := json.Unmarshal(logs["sample"], &log); err != nil {
			t.Fatal(err)
		}
		breakDriver(log["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any)["driver"].(map[string]any))
		b, err := json.Marshal(log)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	noName := broken(func(driver map[string]any) { delete(driver, "name") })
	noHelp := broken(func(driver map[string]any) {
		rules, _ := driver["rules"].([]any)
		if len(rules) == 0 {
			t.Fatal("the sample run's SARIF log has no rules to take the help from")
		}
		delete(rules[0].(map[string]any), "help")
	})
	for _, rules := range []struct {
		what   string
		extra  []string
		broken string
		log    []byte
		says   string
	}{
		{"", nil, "no-name", noName, "the SARIF Multitool accepted a log whose tool.driver has no name: it is not validating"},
		{" under GitHub's rules", []string{"--rule-kind", "Gh;Sarif"}, "no-help", noHelp, "the SARIF Multitool accepted a rule without help under GitHub's rules: they are not judging"},
	} {
		found := sarifValidate(t, tool, map[string][]byte{"sample": logs["sample"], "hostile": logs["hostile"], rules.broken: rules.log}, rules.extra...)
		for _, name := range []string{"sample", "hostile"} {
			if len(found[name]) > 0 {
				t.Errorf("%s run%s: the SARIF Multitool reports %d problem(s):\n%v", name, rules.what, len(found[name]), found[name])
			}
		}
		if len(found[rules.broken]) == 0 {
			t.Error(rules.says)
		}
	}
}
