package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/reports"
)

// fuzzMergeMain runs "mcpcheck fuzz merge DIR... --out DIR": campaigns
// (the shards of one) joined by fuzz.Merge, summarised and judged like a
// campaign.
func fuzzMergeMain(e *env, args []string) error {
	fs := newFlags("fuzz merge")
	out := fs.String("out", "", "")
	format := fs.String("format", "text", "")
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, fuzzUsage)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("fuzz merge: give the --out directories of the campaigns to merge (each holds %s)", fuzz.SummaryFile)
	}
	if *out == "" {
		return usagef("fuzz merge: give --out DIR for the merged summary and findings")
	}
	var formats []string
	for _, f := range strings.Split(*format, ",") {
		f = strings.TrimSpace(f)
		ok := false
		for _, k := range fuzzFormats {
			ok = ok || f == k
		}
		if !ok {
			return usagef("fuzz merge: --format %q: use %s", f, strings.Join(fuzzFormats, ", "))
		}
		formats = append(formats, f)
	}
	for _, d := range pos {
		if _, err := fuzz.LoadResult(d); err != nil {
			return usagef("fuzz merge: %v", err)
		}
	}
	if err := checkOutDir("fuzz merge", *out); err != nil {
		return err
	}
	res, missing, err := fuzz.Merge(pos, *out)
	if err != nil {
		return usagef("fuzz merge: %v", err)
	}
	for _, s := range missing {
		fmt.Fprintf(e.stderr, "mcpcheck fuzz merge: shard %s is missing: its inputs are not in the merged campaign; add its --out directory\n", s)
	}
	keep := func(f *fuzz.Finding) string { return f.Reproducer }
	var text strings.Builder
	writeFuzzText(&text, res, keep)
	fmt.Fprint(e.stdout, text.String())
	target := reports.Target{Role: "server", Kind: reports.TargetStdio, Command: res.Target}
	switch res.Transport {
	case "streamable":
		target = reports.Target{Role: "server", Kind: reports.TargetHTTP, URL: res.Target}
	case "sse":
		target = reports.Target{Role: "server", Kind: reports.TargetSSE, URL: res.Target}
	}
	transport := res.Transport
	if transport == "" {
		transport = reports.TargetStdio
	}
	if err := writeFuzzFiles(*out, formats, res, keep, time.Now().Add(-res.Duration), text.String(), target, transport, reports.Options{}); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "mcpcheck fuzz merge: %d campaigns, %d execs, %d finding(s), written to %s\n", len(res.Parts), res.Execs, len(res.Findings), *out)
	if res.Verdict.Unjudged {
		return harnessError{fmt.Errorf("fuzz merge: nothing complete was judged: %s", res.Unjudged)}
	}
	if res.Verdict.Failed {
		return checkFailed{"fuzz merge: " + res.Verdict.Reason}
	}
	return nil
}
