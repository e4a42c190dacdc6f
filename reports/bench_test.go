package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// bigRun has 2,000 checks over five versions and a dozen areas, every
// outcome, each with a short transcript.
func bigRun() *Run {
	areas := []string{"base", "lifecycle", "versioning", "transport-stdio", "transport-http", "ping", "cancellation", "progress", "tools", "resources", "prompts", "logging"}
	levels := []catalog.Level{catalog.Must, catalog.MustNot, catalog.Should, catalog.ShouldNot}
	run := &Run{Tool: Tool{Name: "mcpcheck", Version: "bench"}, Target: Target{Kind: TargetStdio, Command: "./server"},
		Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Versions: spec.Versions, Transport: "stdio"}
	for i := 0; i < 2000; i++ {
		c := Check{
			ID: fmt.Sprintf("%s/check-%04d", areas[i%len(areas)], i), Title: "a check that does something reasonable",
			Requirements: []string{"lifecycle.initialize.result-shape"}, Level: levels[i%len(levels)],
			Area: areas[i%len(areas)], Version: spec.Versions[i%len(spec.Versions)], Transport: "stdio",
			Outcome: Outcomes[i%len(Outcomes)], Duration: time.Duration(i) * time.Microsecond,
			Expected: "a result", Actual: "an error with code -32601",
			Transcript: []WireEvent{
				{Offset: time.Duration(i) * time.Millisecond, Direction: Sent, Raw: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)},
				{Offset: time.Duration(i)*time.Millisecond + 80*time.Microsecond, Direction: Received, Raw: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`, i)},
			},
		}
		run.Checks = append(run.Checks, c)
	}
	return run
}

func benchmarkWriter(b *testing.B, write WriterFunc) {
	run := bigRun()
	opts := Options{Catalog: testCatalog(b)}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := write(io.Discard, run, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteHTML2000(b *testing.B) { benchmarkWriter(b, WriteHTML) }
func BenchmarkWriteJSON2000(b *testing.B) { benchmarkWriter(b, WriteJSON) }

func TestMarkdownStaysUnderTheStepSummaryLimit(t *testing.T) {
	run := bigRun()
	for i := range run.Checks {
		run.Checks[i].Outcome = Fail
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, run, Options{Catalog: testCatalog(t), Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 1<<20 {
		t.Errorf("the Markdown summary of 2,000 failures is %d bytes; GitHub refuses step summaries over 1 MiB", buf.Len())
	}
	if !strings.Contains(buf.String(), "and 1800 more") {
		t.Errorf("a cut list must say how many checks it left out")
	}
}
