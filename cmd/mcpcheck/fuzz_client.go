package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/reports"
)

// runClientFuzz runs a client campaign (fuzz --client, --client-stdio):
// progress and findings on stderr, the summary on stdout and in --out.
func runClientFuzz(e *env, o fuzzOptions) error {
	cfg := *o.client
	// Without --protocol, 2026-07-28 is the newest version the client may
	// speak: a legacy client is fuzzed at 2025-11-25 rather than only
	// through the refusal of its initialize.
	cfg.NewestSpoken = !o.protocolSet
	stderr := &lockedWriter{w: e.stderr}
	pp := &progressPrinter{w: stderr}
	cfg.Progress = pp.update
	cfg.OnFinding = func(f *fuzz.Finding) {
		fmt.Fprintf(stderr, "mcpcheck fuzz: new finding: %s %s%s -> %s\n", f.Kind, f.Check, reqSuffix(f.Requirement, string(f.Level)), f.Dir)
	}
	shard := ""
	if cfg.Shard.N > 0 {
		shard = ", shard " + cfg.Shard.String()
	}
	fmt.Fprintf(stderr, "mcpcheck fuzz: hostile server for %s, protocol %s, seed %d%s, %d worker(s), %s; findings go to %s\n",
		cfg.Client.Describe(), cfg.Version, cfg.Seed, shard, cfg.Workers, clientBounds(cfg), cfg.FindingsDir)
	started := time.Now()
	res, err := fuzz.RunClient(e.ctx, cfg)
	if err != nil {
		if e.ctx.Err() != nil {
			return interruptedError{fmt.Sprintf("fuzz: interrupted before the campaign started (%v); nothing was judged", err)}
		}
		return harnessError{fmt.Errorf("fuzz: %w", err)}
	}
	rate := 0.0
	if res.Duration > 0 {
		rate = float64(res.Execs) / res.Duration.Seconds()
	}
	fmt.Fprintf(stderr, "mcpcheck fuzz: done %s\n", progressLine(pp.last, rate))
	if e.ctx.Err() != nil {
		fmt.Fprintf(stderr, "mcpcheck fuzz: interrupted; the summary covers the campaign so far\n")
	}
	var text strings.Builder
	writeFuzzText(&text, res, cfg.Reproducer)
	fmt.Fprint(e.stdout, text.String())
	if o.out != "" {
		target := reports.Target{Role: "client", Kind: reports.TargetStdio, Command: cfg.Client.Command}
		if !cfg.Client.Stdio {
			target.Kind = reports.TargetHTTP
		}
		if err := writeFuzzFiles(o.out, o.formats, res, cfg.Reproducer, started, text.String(), target, res.Transport, reports.Options{}); err != nil {
			return err
		}
	}
	for _, msg := range res.Errors {
		fmt.Fprintf(stderr, "mcpcheck fuzz: campaign problem: %s\n", msg)
	}
	if res.Interrupted != "" {
		return interruptedCampaign(res, o.out)
	}
	if res.Verdict.Unjudged {
		return harnessError{fmt.Errorf("fuzz: %s", res.Verdict.Reason)}
	}
	if res.Verdict.Failed {
		return checkFailed{"fuzz: " + res.Verdict.Reason}
	}
	if len(res.Errors) > 0 {
		return harnessError{fmt.Errorf("fuzz: the campaign had %d problem(s); see above", len(res.Errors))}
	}
	return nil
}

func clientBounds(cfg fuzz.ClientConfig) string {
	var b []string
	if cfg.Duration > 0 {
		b = append(b, "for "+cfg.Duration.String())
	}
	if cfg.MaxExecs > 0 {
		b = append(b, fmt.Sprintf("at most %d execs", cfg.MaxExecs))
	}
	return strings.Join(b, ", ")
}
