// Package reports is mcpcheck's neutral result model and its pure writers.
//
// The harness and the fuzzer fill in a Run; the CLI hands it to the writers:
// WriteText (console), WriteJSON (the documented mcpcheck.report/v1 format,
// whose JSON Schema is embedded as SchemaJSON), WriteJUnit, WriteMarkdown
// (CI step summaries), WriteHTML (one self-contained file), WriteSARIF and
// WriteBadge. Baselines of expected failures (Apply, Verdict) and run
// comparisons (Compare) live here too; both compare broken checks
// requirement by requirement (Check.BrokenRequirements), so a check that
// already fails cannot hide a second requirement it breaks.
//
// Every writer takes an io.Writer, the Run and Options. Writers never print,
// exit or read the clock, and their output depends only on their input, so
// they are golden-tested. Every writer entry point redacts secrets (Redact)
// before it looks at the Run, so no writer can forget to.
//
// Verdicts tell the truth: pass; fail (a MUST broken); warn (a SHOULD
// broken); n/a (capability not declared or outside the version window,
// never counted against the target); untestable (a needed fixture or
// trigger is absent: reported, never shown as green); error (the harness
// broke).
package reports
