package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// TestColorFollowsTheFlagAndNoColor (issue 27): --color always and never
// decide; auto colours only a terminal, and not when NO_COLOR is set or
// TERM is dumb. A buffer, a file and the null device are no terminal.
func TestColorFollowsTheFlagAndNoColor(t *testing.T) {
	envWith := func(vars map[string]string) *env {
		return &env{ctx: context.Background(), getenv: func(k string) string { return vars[k] }}
	}
	var buf bytes.Buffer
	if !colorOn(envWith(nil), &buf, "always") || colorOn(envWith(nil), &buf, "never") || colorOn(envWith(nil), &buf, "auto") {
		t.Errorf("always, never or auto (on a buffer) decided wrong")
	}
	if colorOn(envWith(map[string]string{"NO_COLOR": "1"}), os.Stdout, "auto") || colorOn(envWith(map[string]string{"TERM": "dumb"}), os.Stdout, "auto") {
		t.Errorf("auto colours with NO_COLOR or TERM=dumb")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(null) || isTerminal(f) {
		t.Errorf("the null device or a file is taken for a terminal")
	}
	if err := parseColor("server", "sometimes"); err == nil {
		t.Errorf("--color sometimes is accepted")
	}
	code, _, stderr := runBin(t, "server", "--stdio", "true", "--color", "sometimes")
	if code != exitUsage || !strings.Contains(stderr, "--color") {
		t.Errorf("mcpcheck server --color sometimes: exit %d, %q; want a usage error", code, stderr)
	}
}

// TestProgressLine (issue 27): on a terminal the progress is one line
// rewritten in place (checks done, failing and warning so far, the
// version running, the time taken, rounded), cleared before the report;
// on a CI log it is one line per check that fails, warns or broke the
// harness, naming its version, and nothing per version change.
func TestProgressLine(t *testing.T) {
	checks := []reports.Check{
		{ID: "ping/answers", Version: "2024-11-05", Outcome: reports.Pass, Duration: 1234567},
		{ID: "tools/names", Version: "2024-11-05", Outcome: reports.Warn, Duration: 16967922022},
		{ID: "ping/answers", Version: "2025-11-25", Outcome: reports.Pass},
		{ID: "base/invalid-ids", Version: "2025-11-25", Outcome: reports.Fail, Duration: 751512579},
	}
	var log bytes.Buffer
	p := &liveProgress{w: &log, start: time.Now()}
	for _, c := range checks {
		p.check(c)
	}
	p.finish()
	want := "  WARN       2024-11-05 tools/names (17s)\n  FAIL       2025-11-25 base/invalid-ids (752ms)\n"
	if log.String() != want {
		t.Errorf("the CI log reads\n%q\nwant\n%q", log.String(), want)
	}

	var tty bytes.Buffer
	p = &liveProgress{w: &tty, tty: true, color: true, start: time.Now()}
	for _, c := range checks {
		p.check(c)
	}
	out := tty.String()
	last := out[strings.LastIndex(out, "\r\x1b[K"):]
	for _, w := range []string{"4 checks done", "1 failing", "1 warning", "now 2025-11-25", "\x1b[31m"} {
		if !strings.Contains(last, w) {
			t.Errorf("the progress line %q lacks %q", last, w)
		}
	}
	if strings.Contains(out, "== protocol") {
		t.Errorf("the progress prints a line per version: %q", out)
	}
	p.finish()
	if !strings.HasSuffix(tty.String(), "\r\x1b[K") {
		t.Errorf("the progress line is not cleared before the report: %q", tty.String())
	}
	for d, want := range map[time.Duration]string{16967922022: "17s", 1401824769: "1.4s", 751512579: "752ms", 103293441000: "1m43.3s", 300: "<1ms", 0: "0s"} {
		if got := roundDuration(d); got != want {
			t.Errorf("roundDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
