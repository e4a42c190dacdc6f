package fuzz

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Throughput over stdio, all measured in one run:
//
//	echo            a newline-echo process: one line out, one line back — the
//	                transport's limit (round trips per second), read as the
//	                campaign reads stdout (from the pipe, with deadlines)
//	echo-reader-goroutine
//	                the same through the fallback path for pipes that take no
//	                deadline (a reader goroutine hands frames over a channel;
//	                the only path before), for comparison
//	careful-server  the test MCP server, every input built by a mutator and
//	                followed by a liveness probe, every answer judged by all
//	                oracles (execs per second): /valid sends only valid
//	                generated requests (the steady state), /all draws from
//	                every stream mutator with the campaign's weights,
//	                restarts after crashes and closed stdin included
//	target          the same against MCPCHECK_FUZZ_BENCH_TARGET, a command line
//	                (for example the reference server: "go run ./cmd/mcpcheck
//	                reference server --stdio", or its built binary), speaking
//	                MCPCHECK_FUZZ_BENCH_VERSION (default the latest version)
//
// MCPCHECK_FUZZ_BENCH_WORKERS sets the campaign's workers (default 1).
//
// Each fuzzing sub-benchmark reports execs/s and pct-of-echo, its rate as a
// percentage of the echo round trips measured just before.
//
//	go test ./internal/fuzz -run '^$' -bench StdioThroughput -benchtime 5s
func BenchmarkStdioThroughput(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	var echoRate, bareRate float64
	echo := func(b *testing.B, polled bool) float64 {
		defer func(old bool) { conn.PollPipes = old }(conn.PollPipes)
		conn.PollPipes = polled
		conn, err := (&conn.ExecTarget{Argv: []string{exe, "-test.run=^$"}, Env: []string{helperEnv + "=echo"}}).Start(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		msg := mutate.Line(gen.PingFor(spec.V20251125, "mcpcheck-probe-1"))
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			if err := conn.Send(msg); err != nil {
				b.Fatal(err)
			}
			if _, err := conn.Recv(time.Now().Add(10 * time.Second)); err != nil {
				b.Fatal(err)
			}
		}
		rate := float64(b.N) / time.Since(start).Seconds()
		b.ReportMetric(rate, "roundtrips/s")
		return rate
	}
	b.Run("echo", func(b *testing.B) { echoRate = echo(b, true) })
	b.Run("echo-reader-goroutine", func(b *testing.B) { echo(b, false) })
	// fuzzBench runs a campaign of b.N executions: the campaign's own
	// worker (inputs made ahead, instances started ahead, inputs that
	// close stdin finished in the background), judging with every oracle,
	// reproducing and minimizing whatever it finds.
	fuzzBench := func(b *testing.B, target conn.Target, v spec.Version, muts []string) {
		b.ResetTimer()
		start := time.Now()
		workers, _ := strconv.Atoi(os.Getenv("MCPCHECK_FUZZ_BENCH_WORKERS"))
		res, err := Run(context.Background(), Config{Target: target, Version: v, MaxExecs: int64(b.N), Seed: 1, Mutators: muts, Wait: 10 * time.Second, Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		rate := float64(res.Execs) / time.Since(start).Seconds()
		b.StopTimer()
		for _, f := range res.Findings {
			b.Logf("finding: %s %s (%s seed %d): %s", f.Kind, f.Check, f.Mutator, f.Seed, f.Message)
		}
		b.ReportMetric(rate, "execs/s")
		if echoRate > 0 {
			b.ReportMetric(100*rate/echoRate, "pct-of-echo")
		}
		if bareRate > 0 && target != nil {
			b.ReportMetric(100*rate/bareRate, "pct-of-bare")
		}
	}
	// bare is the target's own limit for a fuzzing execution's traffic: a
	// valid generated request and a ping in one write, read back up to
	// the ping's answer, nothing judged, inputs made before the clock
	// starts. Against it, a campaign's rate says how much the fuzzer
	// itself (generation, oracles, bookkeeping) costs.
	bare := func(b *testing.B, target conn.Target, v spec.Version) float64 {
		s, err := openSession(context.Background(), target, v, 10*time.Second, 0, false)
		if err != nil {
			b.Fatal(err)
		}
		defer s.close()
		const kinds = 256
		writes := make([][]byte, kinds)
		keys := make([][]byte, kinds)
		for i := range writes {
			in, err := mutate.MakeInput(v, "protocol/valid", mutate.Mix(1, 0, i), nil)
			if err != nil {
				b.Fatal(err)
			}
			id := "mcpcheck-probe-" + strconv.Itoa(i)
			writes[i] = append(append(in.Bytes(), '\n'), mutate.Line(gen.PingFor(v, id))...)
			keys[i] = []byte(`"` + id + `"`)
		}
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			if err := s.conn.Send(writes[i%kinds]); err != nil {
				b.Fatal(err)
			}
			for {
				f, err := s.conn.Recv(time.Now().Add(10 * time.Second))
				if err != nil {
					b.Fatal(err)
				}
				if bytes.Contains(f.Data, keys[i%kinds]) {
					break
				}
			}
		}
		rate := float64(b.N) / time.Since(start).Seconds()
		b.ReportMetric(rate, "execs/s")
		if echoRate > 0 {
			b.ReportMetric(100*rate/echoRate, "pct-of-echo")
		}
		return rate
	}
	valid, all := []string{"protocol/valid"}, []string(nil)
	b.Run("careful-server/bare", func(b *testing.B) { bareRate = bare(b, helperTarget(b, spec.V20251125, ""), spec.V20251125) })
	b.Run("careful-server/valid", func(b *testing.B) {
		fuzzBench(b, helperTarget(b, spec.V20251125, ""), spec.V20251125, valid)
	})
	b.Run("careful-server/all", func(b *testing.B) {
		fuzzBench(b, helperTarget(b, spec.V20251125, ""), spec.V20251125, all)
	})
	cmd := strings.TrimSpace(os.Getenv("MCPCHECK_FUZZ_BENCH_TARGET"))
	if cmd == "" {
		return
	}
	v := spec.Version(os.Getenv("MCPCHECK_FUZZ_BENCH_VERSION"))
	if v == "" {
		v = spec.Latest
	}
	t, err := conn.CommandTarget(cmd)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("target/bare", func(b *testing.B) { bareRate = bare(b, t, v) })
	b.Run("target/valid", func(b *testing.B) { fuzzBench(b, t, v, valid) })
	b.Run("target/all", func(b *testing.B) { fuzzBench(b, t, v, all) })
}
