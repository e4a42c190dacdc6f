package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
)

// reportMerge runs "mcpcheck report merge RUN.json... --out DIR": the
// reports of the shards of one suite run joined into one (MergeRuns),
// written in the formats asked for and judged like a server run.
func reportMerge(e *env, args []string) error {
	fs := newFlags("report merge")
	format := fs.String("format", "json", "")
	out := fs.String("out", "", "")
	baseline := fs.String("baseline", "", "")
	strict := fs.Bool("strict", false, "")
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, reportUsage)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("report merge: give the JSON report of every shard (mcpcheck server --shard K/N --format json)")
	}
	if *out == "" {
		return usagef("report merge: give --out DIR for the merged report")
	}
	formats, err := lookupFormats(*format)
	if err != nil {
		return usagef("report merge: %v", strings.TrimPrefix(err.Error(), "server: "))
	}
	bl, err := readBaseline("report merge", *baseline)
	if err != nil {
		return err
	}
	var runs []*reports.Run
	inputs := map[string]string{}
	for _, p := range pos {
		run, err := readRun(p)
		if err != nil {
			return err
		}
		runs = append(runs, run)
		abs, _ := filepath.Abs(p)
		inputs[abs] = p
	}
	merged, missing, err := reports.MergeRuns(runs)
	if err != nil {
		return usagef("report merge: %v", err)
	}
	base := "mcpcheck-server"
	if merged.Target.Role == "client" {
		base = "mcpcheck-client"
	}
	for _, f := range formats {
		path := filepath.Join(*out, base+f.Extension)
		if abs, _ := filepath.Abs(path); inputs[abs] != "" {
			return usagef("report merge: writing %s would overwrite the input %s; choose another --out", path, inputs[abs])
		}
	}
	if err := checkOutDir("report merge", *out); err != nil {
		return err
	}
	for _, s := range missing {
		fmt.Fprintf(e.stderr, "mcpcheck report merge: shard %s is missing: its active checks are not in the merged report; add its JSON report\n", s)
	}
	if merged.Unjudged == "" {
		// Judged as mcpcheck server judges a run (shards of older
		// versions do not say it themselves).
		merged.Unjudged = runUnjudged(merged, bl, nil, false, *strict)
	}
	ropts := reports.Options{Strict: *strict}
	for _, h := range merged.Target.HeaderNames {
		ropts.Redaction.Headers = append(ropts.Redaction.Headers, h)
	}
	if err := writeReports(e, merged, bl, ropts, *out, base, formats); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "mcpcheck report merge: %d reports, %d checks, written to %s\n", len(runs), len(merged.Checks), *out)
	if len(merged.Problems) > 0 {
		return harnessError{fmt.Errorf("report merge: the runs had harness problems: %s", strings.Join(merged.Problems, "; "))}
	}
	if merged.Unjudged != "" {
		// An incomplete merge fails the gate even when the shards it has
		// found failures: what it lacks may hold more.
		return harnessError{fmt.Errorf("report merge: nothing complete was judged: %s", merged.Unjudged)}
	}
	j := reports.Verdict(merged)
	if j.Failed(*strict) {
		return checkFailed{"report merge: in the merged run, " + j.Summary(*strict)}
	}
	return nil
}
