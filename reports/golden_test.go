package reports

import (
	"bytes"
	"testing"
)

func TestGolden(t *testing.T) {
	verbose := testOptions(t)
	verbose.Verbose = true
	verbose.Color = true
	badge := testOptions(t)
	badge.BadgeVersion = "2025-11-25"
	cases := []struct {
		file  string
		write WriterFunc
		opts  Options
	}{
		{"text.txt", WriteText, testOptions(t)},
		{"text-verbose-color.txt", WriteText, verbose},
		{"report.json", WriteJSON, testOptions(t)},
		{"junit.xml", WriteJUnit, testOptions(t)},
		{"summary.md", WriteMarkdown, testOptions(t)},
		{"report.html", WriteHTML, testOptions(t)},
		{"report.sarif", WriteSARIF, testOptions(t)},
		{"badge.svg", WriteBadge, testOptions(t)},
		{"badge-2025-11-25.svg", WriteBadge, badge},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			run := sampleRun(t)
			var buf bytes.Buffer
			if err := c.write(&buf, run, c.opts); err != nil {
				t.Fatalf("write: %v", err)
			}
			golden(t, c.file, buf.Bytes())
			// Same input, same output: writers read no clock and no map order.
			var again bytes.Buffer
			if err := c.write(&again, sampleRun(t), c.opts); err != nil {
				t.Fatalf("second write: %v", err)
			}
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Errorf("two writes of the same run differ: the writer is not deterministic")
			}
		})
	}
}

func TestGoldenDiff(t *testing.T) {
	before := sampleRun(t)
	after := sampleRun(t)
	// The session check is fixed, the ping check regresses, the untestable
	// pagination check becomes n/a, one check disappears and one appears;
	// the null-id check fails in both runs, but breaks another of its
	// requirements now (one new, one fixed).
	for i := range before.Checks {
		if c := &before.Checks[i]; c.ID == "base/jsonrpc/no-null-id" {
			c.Violated = []string{"base.jsonrpc.no-null-id"}
		}
	}
	for i := range after.Checks {
		c := &after.Checks[i]
		switch c.ID {
		case "base/jsonrpc/no-null-id":
			c.Violated = []string{"not.in.catalog"}
		case "transport-http/session/reject-unknown":
			c.Outcome = Pass
		case "ping/response/empty-result":
			c.Outcome = Fail
		case "tools/list/cursor-advances":
			c.Outcome = NA
		}
	}
	after.Checks = append(after.Checks[:1], after.Checks[2:]...) // drop result-shape
	after.Checks = append(after.Checks, Check{ID: "prompts/list/basic", Title: "prompts/list | works", Version: "2026-07-28", Transport: "streamable", Outcome: Warn})
	d := Compare(before, after)
	var txt, mdb bytes.Buffer
	if err := d.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteMarkdown(&mdb); err != nil {
		t.Fatal(err)
	}
	golden(t, "diff.txt", txt.Bytes())
	golden(t, "diff.md", mdb.Bytes())
}
