package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
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

// sarifValidate runs the Multitool's validate command on log and returns
// the results of level error and warning it reports; extra arguments go to
// the command (--rule-kind Gh;Sarif adds GitHub code scanning's rules).
func sarifValidate(t *testing.T, tool string, log []byte, extra ...string) []string {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.sarif"), filepath.Join(dir, "validation.sarif")
	if err := os.WriteFile(in, log, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"validate", in, "-o", out, "--log", "ForceOverwrite", "--level", "Error;Warning"}, extra...)
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
				Level   string          `json:"level"`
				RuleID  string          `json:"ruleId"`
				Message json.RawMessage `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("the validation log does not parse: %v", err)
	}
	var found []string
	for _, r := range v.Runs {
		for _, res := range r.Results {
			if res.Level == "error" || res.Level == "warning" {
				found = append(found, res.Level+" "+res.RuleID+" "+string(res.Message))
			}
		}
	}
	return found
}

// TestSARIFPassesMicrosoftValidator checks the SARIF output with a real
// consumer: Microsoft's SARIF Multitool validates it against the SARIF
// 2.1.0 schema and its own rules (SARIF1xxx errors, SARIF2xxx warnings)
// and must report nothing of level error or warning. A deliberately
// broken log proves the validator is really judging.
func TestSARIFPassesMicrosoftValidator(t *testing.T) {
	tool := sarifMultitool(t)
	for name, run := range map[string]*Run{"sample": sampleRun(t), "hostile": hostileRun(t)} {
		var buf bytes.Buffer
		if err := WriteSARIF(&buf, run, testOptions(t)); err != nil {
			t.Fatal(err)
		}
		if found := sarifValidate(t, tool, buf.Bytes()); len(found) > 0 {
			t.Errorf("%s run: the SARIF Multitool reports %d problem(s):\n%v", name, len(found), found)
		}
		// GitHub code scanning's own rules (GH1xxx, GH2xxx): what an upload
		// to code scanning is held to.
		if found := sarifValidate(t, tool, buf.Bytes(), "--rule-kind", "Gh;Sarif"); len(found) > 0 {
			t.Errorf("%s run: under GitHub's rules the SARIF Multitool reports %d problem(s):\n%v", name, len(found), found)
		}
		if name != "sample" {
			continue
		}
		var log map[string]any
		if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		driver := log["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any)["driver"].(map[string]any)
		if rules, _ := driver["rules"].([]any); len(rules) > 0 {
			delete(rules[0].(map[string]any), "help") // GitHub requires help on every rule
			noHelp, _ := json.Marshal(log)
			if found := sarifValidate(t, tool, noHelp, "--rule-kind", "Gh;Sarif"); len(found) == 0 {
				t.Error("the SARIF Multitool accepted a rule without help under GitHub's rules: they are not judging")
			}
		}
		delete(driver, "name") // required by SARIF 2.1.0
		broken, _ := json.Marshal(log)
		if found := sarifValidate(t, tool, broken); len(found) == 0 {
			t.Error("the SARIF Multitool accepted a log whose tool.driver has no name: it is not validating")
		}
	}
}
