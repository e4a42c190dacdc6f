package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrorsExitTwoAndSayWhatIsWrong(t *testing.T) {
	cases := [][]string{
		{"frobnicate"},
		{"spec"},
		{"spec", "list", "--level", "OFTEN"},
		{"spec", "list", "--version", "2025-01-01"},
		{"spec", "list", "--area", "misc"},
		{"spec", "show"},
		{"spec", "show", "no.such.requirement"},
		{"spec", "coverage", "--role", "both"},
		{"reference"},
		{"client"},
		{"client", "--command", "x", "--stdio", "y"},
		{"client", "--command", "x", "--parallel", "0"},
		{"server", "--stdio", "x", "--parallel", "0"},
		{"server", "--url", "http://127.0.0.1:1/mcp", "--one-instance"},
		{"server", "--stdio", "x", "--one-instance", "--parallel", "4"},
		{"--parallel", "-1"},
		{"client", "--stdio", "x", "--header", "X-A: 1"},
		{"client", "--command", "x", "--header", "no-colon"},
		{"client", "--command", "x", "--header-env", "X-A:MCPCHECK_TEST_SURELY_UNSET"},
		{"relay"},
		// Found before any traffic: an unset --header-env variable, an
		// --out that cannot be written.
		{"server", "--url", "http://127.0.0.1:1/mcp", "--header-env", "Authorization:MCPCHECK_TEST_SURELY_UNSET"},
		{"server", "--stdio", "x", "--format", "json", "--out", "/proc/mcpcheck-cannot-write-here"},
		{"client", "--command", "x", "--format", "json", "--out", "/proc/mcpcheck-cannot-write-here"},
		// A selection that matches no check judged nothing: no pass.
		{"client", "--command", "x", "--label-filter", "area:ping && area:tasks", "--protocol", "2025-11-25"},
		{"server", "--stdio", "true", "--label-filter", "area:ping && area:tasks", "--protocol", "2025-11-25"},
		// The main job with flags checks the embedded reference server only.
		{"--stdio", "./my-server"},
		{"--url=http://127.0.0.1:1/mcp"},
		{"--format", "json"},
		{"--protocol", "1999-01-01"},
	}
	for _, args := range cases {
		code, _, stderr := runCLI(args...)
		if code != exitUsage {
			t.Errorf("mcpcheck %s: want exit %d (usage), got %d; stderr %q", strings.Join(args, " "), exitUsage, code, stderr)
		}
		if !strings.Contains(stderr, "mcpcheck:") || len(stderr) < 20 {
			t.Errorf("mcpcheck %s: want an explanation on stderr, got %q", strings.Join(args, " "), stderr)
		}
	}
}

func TestSpecListJSONMatchesCatalogAndFilters(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	code, out, stderr := runCLI("spec", "list", "--json")
	if code != exitOK {
		t.Fatalf("spec list --json: exit %d, stderr %q", code, stderr)
	}
	var all []catalog.Record
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("spec list --json must print a JSON array of records: %v\n%s", err, out)
	}
	if len(all) != len(cat.Records) {
		t.Fatalf("spec list --json: want all %d records, got %d", len(cat.Records), len(all))
	}
	code, out, _ = runCLI("spec", "list", "--json", "--level", "must", "--version", "2024-11-05", "--role", "server")
	if code != exitOK {
		t.Fatalf("filtered list: exit %d", code)
	}
	var some []catalog.Record
	if err := json.Unmarshal([]byte(out), &some); err != nil {
		t.Fatal(err)
	}
	for _, r := range some {
		if r.Level != catalog.Must || !r.In("2024-11-05") || (r.Role != catalog.RoleServer && r.Role != catalog.RoleBoth) {
			t.Errorf("filter leaked %s (%s, %s, %s)", r.ID, r.Level, r.Role, r.VersionRange())
		}
	}
	if len(cat.Records) > 0 {
		id := cat.Records[0].ID
		code, out, _ = runCLI("spec", "show", id)
		if code != exitOK || !strings.Contains(out, id) || !strings.Contains(out, "summary") {
			t.Errorf("spec show %s: exit %d, output %q", id, code, out)
		}
	}
}

func TestSpecCoverageCountsEveryWireRequirement(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("spec", "coverage", "--json")
	if code != exitOK {
		t.Fatalf("spec coverage: exit %d %q", code, stderr)
	}
	var cov []catalog.AreaCoverage
	if err := json.Unmarshal([]byte(out), &cov); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, a := range cov {
		total += a.Total
		if a.Checked+a.Excluded+len(a.Missing) != a.Total {
			t.Errorf("area %s: checked %d + excluded %d + missing %d != total %d", a.Area, a.Checked, a.Excluded, len(a.Missing), a.Total)
		}
	}
	want := 0
	for _, r := range cat.Records {
		if r.Testability == catalog.Wire && r.Level != catalog.May && catalog.CountsFor(r.Role, catalog.RoleServer) {
			want++
		}
	}
	if total != want {
		t.Errorf("coverage counts %d server-side wire MUST/SHOULD requirements, the catalog has %d", total, want)
	}
}

func TestVersionAndHelp(t *testing.T) {
	if code, out, _ := runCLI("version"); code != exitOK || !strings.HasPrefix(out, "mcpcheck ") {
		t.Errorf("version: exit %d %q", code, out)
	}
	if code, out, _ := runCLI("help"); code != exitOK || !strings.Contains(out, "mcpcheck spec list") {
		t.Errorf("help: exit %d %q", code, out)
	}
}
