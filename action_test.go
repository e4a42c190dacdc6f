package mcpcheck

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/server"
)

// actionScript is the shell logic of the GitHub Action; action.yml runs it.
const actionScript = ".github/action/run.sh"

// yamlSection returns the lines of the top-level key section of a YAML
// document (from "section:" to the next top-level key).
func yamlSection(doc, section string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case line == section+":":
			in = true
		case in && line != "" && line[0] != ' ' && line[0] != '#':
			return out
		case in:
			out = append(out, line)
		}
	}
	return out
}

// keysAt returns the keys at two spaces of indent in lines.
func keysAt(lines []string) []string {
	var keys []string
	re := regexp.MustCompile(`^  ([a-z0-9-]+):`)
	for _, l := range lines {
		if m := re.FindStringSubmatch(l); m != nil {
			keys = append(keys, m[1])
		}
	}
	return keys
}

// TestActionDeclaresAndUsesItsInputs reads action.yml without a YAML
// library: a composite action whose inputs include the ones the README
// documents, each of them used by a step, each handed to the script as
// INPUT_NAME and read there (and the script reads no other input); whose
// outputs come from the script's step; and whose third-party actions are
// pinned to a major version.
func TestActionDeclaresAndUsesItsInputs(t *testing.T) {
	b, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	script, err := os.ReadFile(actionScript)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(actionScript); err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("%s is not executable", actionScript)
	}
	runs := strings.Join(yamlSection(doc, "runs"), "\n")
	if !strings.Contains(runs, "using: composite") {
		t.Errorf("action.yml is not a composite action")
	}
	if !strings.Contains(runs, `bash "$ACTION_PATH/`+actionScript+`"`) || !strings.Contains(runs, "ACTION_PATH: ${{ github.action_path }}") {
		t.Errorf("action.yml does not run %s from the action's checkout", actionScript)
	}
	inputs := keysAt(yamlSection(doc, "inputs"))
	for _, want := range []string{"stdio", "url", "protocol", "headers", "baseline", "formats", "strict", "mcpcheck-version", "label-filter", "upload-sarif", "call-tools", "tool-args"} {
		if !slices.Contains(inputs, want) {
			t.Errorf("action.yml has no input %q (inputs: %v)", want, inputs)
		}
	}
	envRE := regexp.MustCompile(`(?m)^\s+(INPUT_[A-Z_]+): \$\{\{ inputs\.([a-z0-9-]+) \}\}$`)
	passed := map[string]bool{}
	for _, m := range envRE.FindAllStringSubmatch(runs, -1) {
		if want := "INPUT_" + strings.ToUpper(strings.ReplaceAll(m[2], "-", "_")); m[1] != want {
			t.Errorf("input %s is handed to the script as %s, want %s", m[2], m[1], want)
		}
		passed[m[1]] = true
		if !regexp.MustCompile(`\b` + m[1] + `\b`).Match(script) {
			t.Errorf("the script never reads %s (input %s)", m[1], m[2])
		}
	}
	for _, in := range inputs {
		if !strings.Contains(runs, "inputs."+in+" ") && !strings.Contains(runs, "inputs."+in+"\n") && !strings.Contains(runs, "inputs."+in+" }}") {
			t.Errorf("input %s is declared but no step uses it", in)
		}
	}
	for _, v := range regexp.MustCompile(`INPUT_[A-Z_]+`).FindAllString(string(script), -1) {
		if !passed[v] {
			t.Errorf("the script reads %s, which action.yml does not set", v)
		}
	}
	outputs := keysAt(yamlSection(doc, "outputs"))
	for _, o := range outputs {
		if !strings.Contains(doc, "value: ${{ steps.run.outputs."+o+" }}") {
			t.Errorf("output %s does not come from the script's step", o)
		}
	}
	if len(outputs) < 3 {
		t.Errorf("action.yml declares outputs %v; want exit-code, report-dir and the reports", outputs)
	}
	for _, m := range regexp.MustCompile(`uses: (\S+)`).FindAllStringSubmatch(runs, -1) {
		if !regexp.MustCompile(`@v\d+$`).MatchString(m[1]) {
			t.Errorf("%s is not pinned to a major version", m[1])
		}
	}
	for _, want := range []string{"github/codeql-action/upload-sarif@", "actions/upload-artifact@", "actions/setup-go@"} {
		if !strings.Contains(runs, "uses: "+want) {
			t.Errorf("action.yml does not use %s", want)
		}
	}
}

// actionRun is one simulated run of the action's script.
type actionRun struct {
	code    int
	log     string
	outputs map[string]string
	summary string
	path    string
}

// runAction runs the script as action.yml does, with the GitHub
// environment (RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH)
// simulated by files in a fresh temporary directory and inputs as INPUT_*
// variables; extra holds further "K=V" variables.
func runAction(t *testing.T, inputs map[string]string, extra ...string) actionRun {
	t.Helper()
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	files := map[string]string{}
	env := append(os.Environ(), "ACTION_PATH="+root, "RUNNER_TEMP="+tmp)
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_PATH"} {
		files[k] = filepath.Join(tmp, strings.ToLower(k))
		if err := os.WriteFile(files[k], nil, 0o644); err != nil {
			t.Fatal(err)
		}
		env = append(env, k+"="+files[k])
	}
	for k, v := range inputs {
		env = append(env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_"))+"="+v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", actionScript)
	cmd.Env = append(env, extra...)
	cmd.WaitDelay = 5 * time.Second
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	err = cmd.Run()
	r := actionRun{log: log.String(), outputs: map[string]string{}}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v\n%s", actionScript, err, log.String())
	}
	out, _ := os.ReadFile(files["GITHUB_OUTPUT"])
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			r.outputs[k] = v
		}
	}
	sum, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	r.summary = string(sum)
	p, _ := os.ReadFile(files["GITHUB_PATH"])
	r.path = strings.TrimSpace(string(p))
	return r
}

// TestActionScriptAgainstTheReferenceServer runs the Action's shell logic
// here, as GitHub would: it builds mcpcheck from this checkout, checks the
// reference server and writes every report, the job summary and the step
// outputs, exiting 0; against a reference server with a fault it exits 1
// with the broken requirement in the summary; with a baseline of that
// failure it exits 0 again; over HTTP it sends the headers input's values
// from the environment without writing them anywhere; and a wrong input is
// a usage error (2) that still sets the exit-code output.
func TestActionScriptAgainstTheReferenceServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpcheck and runs it")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run the action's script with")
	}
	suite := map[string]string{"protocol": "2025-11-25", "label-filter": "area:ping"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range suite {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}

	// The default install builds mcpcheck from the action's checkout; the
	// stdio command finds it on PATH.
	clean := runAction(t, with("stdio", "mcpcheck reference server --stdio"))
	if clean.code != 0 || clean.outputs["exit-code"] != "0" {
		t.Fatalf("against the reference server: exit %d, exit-code output %q; want 0\n%s", clean.code, clean.outputs["exit-code"], clean.log)
	}
	bin := clean.outputs["binary"]
	if st, err := os.Stat(bin); err != nil || st.Mode()&0o111 == 0 || clean.path != filepath.Dir(bin) {
		t.Fatalf("the binary output %q is not the installed mcpcheck on GITHUB_PATH (%q): %v", bin, clean.path, err)
	}
	for _, o := range []string{"json", "junit", "sarif", "markdown", "html"} {
		p := clean.outputs[o]
		if st, err := os.Stat(p); err != nil || st.Size() == 0 || filepath.Dir(p) != clean.outputs["report-dir"] {
			t.Errorf("output %s = %q is not a report in report-dir %q: %v", o, p, clean.outputs["report-dir"], err)
		}
	}
	if !strings.Contains(clean.summary, "## ✅ mcpcheck: PASS") || !strings.Contains(clean.summary, "pass — no unexpected failures") {
		t.Errorf("the job summary is not the passing Markdown report:\n%s", clean.summary)
	}

	faulty := "mcpcheck reference server --stdio --fault ping-nonempty-result"
	broken := runAction(t, with("stdio", faulty, "binary", bin), "GITHUB_WORKFLOW_REF=acme/server/.github/workflows/mcp.yml@refs/heads/main")
	if broken.code != 1 || broken.outputs["exit-code"] != "1" || !strings.Contains(broken.log, "::error title=mcpcheck::unexpected failures") {
		t.Fatalf("against a faulty reference server: exit %d, exit-code output %q; want 1 and an error annotation\n%s", broken.code, broken.outputs["exit-code"], broken.log)
	}
	if !strings.Contains(broken.summary, "FAIL") || !strings.Contains(broken.summary, "ping.response.prompt-empty-result") {
		t.Errorf("the job summary does not show the broken requirement:\n%s", broken.summary)
	}
	// Every SARIF result is located in the workflow file, so that GitHub
	// code scanning shows it (issue 27).
	if sarif, err := os.ReadFile(broken.outputs["sarif"]); err != nil || !strings.Contains(string(sarif), `"uri": ".github/workflows/mcp.yml"`) {
		t.Errorf("the SARIF report's results are not located in the workflow file (%v)", err)
	}

	baseline := filepath.Join(t.TempDir(), "expected-failures.json")
	if out, err := exec.Command(bin, "baseline", "write", broken.outputs["json"], "--reason", "known: the reference runs with a fault", "--out", baseline).CombinedOutput(); err != nil {
		t.Fatalf("mcpcheck baseline write: %v\n%s", err, out)
	}
	if r := runAction(t, with("stdio", faulty, "binary", bin, "baseline", baseline, "strict", "true")); r.code != 0 {
		t.Errorf("with the failure baselined: exit %d, want 0\n%s", r.code, r.log)
	}

	srv, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const secret = "s3cret-token-value"
	var mu sync.Mutex
	var sent, withToken int
	ref := srv.HTTPHandler(server.HTTPOptions{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent++
		if r.Header.Get("X-Mcpcheck-Token") == secret {
			withToken++
		}
		mu.Unlock()
		ref.ServeHTTP(w, r)
	}))
	defer hs.Close()
	r := runAction(t, with("url", hs.URL+"/mcp", "binary", bin, "headers", "X-Mcpcheck-Token:MCPCHECK_ACTION_TOKEN\n# a comment\n"), "MCPCHECK_ACTION_TOKEN="+secret)
	if r.code != 0 {
		t.Errorf("over HTTP with a header from the environment: exit %d, want 0\n%s", r.code, r.log)
	}
	mu.Lock()
	if sent == 0 || withToken != sent {
		t.Errorf("%d of the %d requests carried the header from the headers input", withToken, sent)
	}
	mu.Unlock()
	written := r.log + r.summary
	for _, o := range []string{"json", "junit", "sarif", "markdown", "html"} {
		b, _ := os.ReadFile(r.outputs[o])
		written += string(b)
	}
	if strings.Contains(written, secret) {
		t.Errorf("the header's value appears in the log, the summary or a report")
	}

	for _, c := range []struct {
		name   string
		inputs map[string]string
	}{
		{"stdio and url", with("stdio", "mcpcheck reference server --stdio", "url", "http://127.0.0.1:1/mcp", "binary", bin)},
		{"no server", with("binary", bin)},
		{"a header that is not NAME:ENVVAR", with("url", "http://127.0.0.1:1/mcp", "binary", bin, "headers", "Authorization")},
		{"strict neither true nor false", with("stdio", "mcpcheck reference server --stdio", "binary", bin, "strict", "yes")},
	} {
		r := runAction(t, c.inputs)
		if r.code != 2 || r.outputs["exit-code"] != "2" || !strings.Contains(r.log, "::error title=mcpcheck::") {
			t.Errorf("%s: exit %d, exit-code output %q; want 2 with an error annotation\n%s", c.name, r.code, r.outputs["exit-code"], r.log)
		}
	}
}
