package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
)

const reportUsage = `Usage:
  mcpcheck report convert RUN.json [--format LIST] [--out DIR] [--badge-version V] [--verbose]
                          [--strict] [--sarif-path FILE]
  mcpcheck report diff OLD.json NEW.json [--format text|md|json]
  mcpcheck report matrix [NAME=]RUN.json... [--format LIST] [--out DIR] [--title T]
  mcpcheck report merge RUN.json... --out DIR [--format LIST] [--baseline FILE] [--strict]

convert  rewrites a JSON report (mcpcheck server --format json) in other
         formats: text, json, junit, md, html, sarif, badge (default html).
         With one format and no --out the report goes to stdout; with --out
         each format is written to DIR/<RUN>.<ext>. --strict gives the
         verdict of mcpcheck server --strict; --sarif-path names the file
         SARIF results are located in (see mcpcheck server --help).
diff     compares two runs check by check: new failures, fixed, lost (judged
         before, n/a or untestable now), changed outcomes, added and removed
         checks; and a check that fails in both runs requirement by
         requirement: one it breaks now and did not before is a new failure
         (one it no longer breaks is fixed), so an old failure cannot hide a
         second. Exits 1 on new failures or lost checks (judged in OLD,
         not judged or absent in NEW; a whole version lost is named), so CI
         can gate on it.
matrix   compares servers or clients: one column per run, one row per requirement, in
         html, md and/or json (default md to stdout; with --out,
         DIR/MATRIX.html, DIR/MATRIX.md, DIR/MATRIX.json). Each broken check
         is listed with the requirements it breaks (in JSON, per server), so
         two matrices show a requirement newly broken even in a cell that was
         red already. NAME= labels a column; the default label is the file
         name (or its directory's name for mcpcheck-server.json).
merge    joins the JSON reports of a suite split with mcpcheck server --shard K/N
         (one per shard, in any order) into the report of one unsharded run:
         every check once, a passive check (run by every shard) with its most
         severe outcome. Writes DIR/mcpcheck-server.<ext> for each format of
         --format (default json; also text, junit, md, html, sarif, badge),
         prints the text report, names any shard that is missing (a merge
         without every shard is not judged: exit 3), and judges the merged
         run as mcpcheck server does (--baseline, --strict).

Exit codes: 0 done; 1 (diff) new failures, lost checks or versions, (merge)
unexpected failures or stale baseline entries in the merged run; 2 usage error
or unreadable input; 3 a report could not be written, or (merge) the runs had
harness problems, a shard is missing or nothing complete was judged.
`

// reportMain runs "mcpcheck report ARGS".
func reportMain(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("report needs a subcommand: convert, diff, matrix or merge (see 'mcpcheck report --help')")
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprint(e.stdout, reportUsage)
		return nil
	case "convert":
		return reportConvert(e, args[1:])
	case "diff":
		return reportDiff(e, args[1:])
	case "matrix":
		return reportMatrix(e, args[1:])
	case "merge":
		return reportMerge(e, args[1:])
	}
	return usagef("report: unknown subcommand %q (use convert, diff, matrix or merge)", args[0])
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// readRun reads a JSON report, saying which file failed and how.
func readRun(path string) (*reports.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("cannot open the report %s: %v", path, err)
	}
	defer f.Close()
	run, err := reports.ReadJSON(f)
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	return run, nil
}

func reportConvert(e *env, args []string) error {
	fs := newFlags("report convert")
	format := fs.String("format", "html", "")
	out := fs.String("out", "", "")
	badgeVersion := fs.String("badge-version", "", "")
	verbose := fs.Bool("verbose", false, "")
	strict := fs.Bool("strict", false, "")
	sarifPath := fs.String("sarif-path", "", "")
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, reportUsage)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("report convert: give exactly one JSON report (got %d arguments)", len(pos))
	}
	formats, err := lookupFormats(*format)
	if err != nil {
		return usagef("report convert: %v", strings.TrimPrefix(err.Error(), "server: "))
	}
	if *out == "" && len(formats) != 1 {
		return usagef("report convert: --format %s names %d formats: give --out DIR to write them as files", *format, len(formats))
	}
	run, err := readRun(pos[0])
	if err != nil {
		return err
	}
	opts := reports.Options{Verbose: *verbose, BadgeVersion: *badgeVersion, Strict: *strict, SARIFPath: *sarifPath}
	for _, h := range run.Target.HeaderNames {
		opts.Redaction.Headers = append(opts.Redaction.Headers, h)
	}
	if *out == "" {
		if err := formats[0].Write(e.stdout, run, opts); err != nil {
			return harnessError{fmt.Errorf("report convert: %w", err)}
		}
		return nil
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return harnessError{fmt.Errorf("report convert: --out: %v", err)}
	}
	base := strings.TrimSuffix(filepath.Base(pos[0]), ".json")
	in, _ := filepath.Abs(pos[0])
	for _, f := range formats {
		path := filepath.Join(*out, base+f.Extension)
		if abs, _ := filepath.Abs(path); abs == in {
			return usagef("report convert: writing %s would overwrite the input; choose another --out", path)
		}
		if err := writeFile(path, func(w io.Writer) error { return f.Write(w, run, opts) }); err != nil {
			return harnessError{fmt.Errorf("report convert: writing %s: %v", path, err)}
		}
		fmt.Fprintf(e.stderr, "mcpcheck: wrote %s\n", path)
	}
	return nil
}

func reportDiff(e *env, args []string) error {
	fs := newFlags("report diff")
	format := fs.String("format", "text", "")
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, reportUsage)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("report diff: give the old and the new JSON report (got %d arguments)", len(pos))
	}
	if *format != "text" && *format != "md" && *format != "json" {
		return usagef("report diff: --format %q: use text, md or json", *format)
	}
	before, err := readRun(pos[0])
	if err != nil {
		return err
	}
	after, err := readRun(pos[1])
	if err != nil {
		return err
	}
	d := reports.Compare(before, after)
	switch *format {
	case "md":
		err = d.WriteMarkdown(e.stdout)
	case "json":
		err = writeJSON(e.stdout, d)
	default:
		err = d.WriteText(e.stdout)
	}
	if err != nil {
		return harnessError{fmt.Errorf("report diff: %w", err)}
	}
	if d.Regressed() {
		msg := fmt.Sprintf("%d new failures and %d checks no longer judged since %s", len(d.NewFailures), len(d.Lost), pos[0])
		if len(d.LostVersions) > 0 {
			var vs []string
			for _, v := range d.LostVersions {
				vs = append(vs, string(v))
			}
			msg += fmt.Sprintf(", %d protocol version(s) lost (%s: judged there, not run now)", len(vs), strings.Join(vs, ", "))
		}
		return checkFailed{msg}
	}
	return nil
}

func reportMatrix(e *env, args []string) error {
	fs := newFlags("report matrix")
	format := fs.String("format", "md", "")
	out := fs.String("out", "", "")
	title := fs.String("title", "MCP interop matrix", "")
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, reportUsage)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("report matrix: give one or more JSON reports, optionally as NAME=FILE")
	}
	var kinds []string
	for _, f := range strings.Split(*format, ",") {
		f = strings.TrimSpace(f)
		if f != "html" && f != "md" && f != "json" {
			return usagef("report matrix: --format %q: use html, md, json or a list such as html,md,json", f)
		}
		kinds = append(kinds, f)
	}
	if *out == "" && len(kinds) != 1 {
		return usagef("report matrix: --format %s writes %d files: give --out DIR", *format, len(kinds))
	}
	var inputs []reports.MatrixInput
	for _, a := range pos {
		name, path, ok := strings.Cut(a, "=")
		if !ok {
			name, path = matrixName(a), a
		}
		run, err := readRun(path)
		if err != nil {
			return err
		}
		inputs = append(inputs, reports.MatrixInput{Name: name, Run: run})
	}
	m, err := reports.BuildMatrix(*title, inputs, reports.Options{})
	if err != nil {
		return harnessError{fmt.Errorf("report matrix: %w", err)}
	}
	write := func(kind string, w io.Writer) error {
		switch kind {
		case "html":
			return m.WriteHTML(w)
		case "json":
			return m.WriteJSON(w)
		}
		return m.WriteMarkdown(w)
	}
	if *out == "" {
		if err := write(kinds[0], e.stdout); err != nil {
			return harnessError{err}
		}
		return nil
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return harnessError{fmt.Errorf("report matrix: --out: %v", err)}
	}
	for _, k := range kinds {
		path := filepath.Join(*out, "MATRIX."+k)
		if err := writeFile(path, func(w io.Writer) error { return write(k, w) }); err != nil {
			return harnessError{fmt.Errorf("report matrix: writing %s: %v", path, err)}
		}
		fmt.Fprintf(e.stderr, "mcpcheck: wrote %s\n", path)
	}
	return nil
}

// matrixName labels a matrix column after its report file: the file name
// without .json, or the directory's name for the default file name
// mcpcheck-server.json.
func matrixName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	if base == "mcpcheck-server" {
		if d := filepath.Base(filepath.Dir(path)); d != "." && d != string(filepath.Separator) {
			return d
		}
	}
	return base
}
