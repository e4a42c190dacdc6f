package reports

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/mcpcheck/mcpcheck/spec"
)

//go:embed schema/report-v1.json
var schemaFS embed.FS

// SchemaJSON is the JSON Schema (draft 2020-12) of the report WriteJSON
// writes, as bytes.
var SchemaJSON = mustRead(schemaFS, "schema/report-v1.json")

// SchemaID is the $id of SchemaJSON.
const SchemaID = "https://mcpcheck.dev/schema/report-v1.json"

func mustRead(fs embed.FS, name string) []byte {
	b, err := fs.ReadFile(name)
	if err != nil {
		panic("reports: embedded file " + name + " is missing: " + err.Error())
	}
	return b
}

// jsonReport is the document WriteJSON writes: the computed verdict and
// issues first (what a reader wants first), then the Run's fields, then
// the computed summary.
type jsonReport struct {
	Verdict jsonVerdict `json:"verdict"`
	Issues  []Issue     `json:"issues,omitempty"`
	*Run
	// Checks shadows Run.Checks: each with its shared transcript and
	// reason replaced by a reference into Transcripts and Texts.
	Checks []jsonCheck `json:"checks"`
	// Transcripts and Texts hold, once, the transcripts and the long
	// reasons several checks share (see shareRepeated).
	Transcripts [][]WireEvent `json:"transcripts,omitempty"`
	Texts       []string      `json:"texts,omitempty"`
	Summary     Summary       `json:"summary"`
}

// jsonCheck is a check as the JSON report stores it: its transcript or
// its reason may be a reference to the one copy the report keeps of it.
type jsonCheck struct {
	Check
	// TranscriptRef is the index in the report's transcripts of the
	// check's transcript, when other checks share it.
	TranscriptRef *int `json:"transcriptRef,omitempty"`
	// ReasonRef is the index in the report's texts of the check's reason,
	// when other checks share it.
	ReasonRef *int `json:"reasonRef,omitempty"`
}

// sharedTextRunes is the length from which a reason several checks give
// is stored once: shorter ones cost less than their reference.
const sharedTextRunes = 120

// shareRepeated stores once what several checks repeat: a client's case
// judged by many checks gives each of them its whole transcript and
// often the same long untestable reason (what the client did not do,
// with its output), which made a client run's report megabytes of
// copies. The report keeps each such transcript and reason once, in
// transcripts and texts, and the checks refer to it (transcriptRef,
// reasonRef); ReadJSON puts them back.
func shareRepeated(checks []Check) (out []jsonCheck, transcripts [][]WireEvent, texts []string) {
	out = make([]jsonCheck, len(checks))
	tkeys := make([]string, len(checks))
	tcount := map[string]int{}
	rcount := map[string]int{}
	for i, c := range checks {
		out[i].Check = c
		if len(c.Transcript) > 0 {
			b, _ := json.Marshal(c.Transcript)
			tkeys[i] = string(b)
			tcount[tkeys[i]]++
		}
		if len([]rune(c.Reason)) >= sharedTextRunes {
			rcount[c.Reason]++
		}
	}
	tat, rat := map[string]int{}, map[string]int{}
	for i := range out {
		c := &out[i]
		if k := tkeys[i]; k != "" && tcount[k] > 1 {
			n, ok := tat[k]
			if !ok {
				n = len(transcripts)
				tat[k] = n
				transcripts = append(transcripts, c.Transcript)
			}
			c.TranscriptRef, c.Transcript = &n, nil
		}
		if r := c.Reason; rcount[r] > 1 {
			n, ok := rat[r]
			if !ok {
				n = len(texts)
				rat[r] = n
				texts = append(texts, r)
			}
			c.ReasonRef, c.Reason = &n, ""
		}
	}
	return out, transcripts, texts
}

// jsonVerdict is the run's verdict in JSON (see RunVerdict).
type jsonVerdict struct {
	Outcome  RunVerdict `json:"outcome"`
	Sentence string     `json:"sentence"`
}

// WriteJSON writes the run as one indented JSON document in the
// mcpcheck.report/v1 format: the run's verdict (see RunVerdict) and its
// issues (the broken checks grouped across versions, see Issues) first,
// then the Run's fields as tagged in this package
// (durations as integer nanoseconds, outcomes as names, non-UTF-8 wire bytes
// as base64 with "base64": true), a "requirements" snapshot of every cited
// catalog record, and a computed "summary" (see Summarize). SchemaJSON
// describes it. ReadJSON reads it back.
func WriteJSON(w io.Writer, run *Run, opts Options) error {
	run, err := Prepare(run, opts)
	if err != nil {
		return err
	}
	if run.Checks == nil {
		run.Checks = []Check{}
	}
	if run.Versions == nil {
		run.Versions = []spec.Version{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	j, word := verdictOf(run, opts)
	doc := jsonReport{Verdict: jsonVerdict{Outcome: word, Sentence: j.Sentence(opts.Strict)}, Issues: Issues(run), Run: run, Summary: Summarize(run)}
	doc.Checks, doc.Transcripts, doc.Texts = shareRepeated(run.Checks)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// ReadJSON reads a report WriteJSON wrote (the computed summary is
// ignored). It refuses documents of another schema.
func ReadJSON(r io.Reader) (*Run, error) {
	var doc struct {
		*Run
		Checks      []jsonCheck   `json:"checks"`
		Transcripts [][]WireEvent `json:"transcripts"`
		Texts       []string      `json:"texts"`
	}
	doc.Run = &Run{}
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("read JSON report: %w; is this a file written by mcpcheck --format json?", err)
	}
	run := doc.Run
	if run.Schema != Schema {
		return nil, fmt.Errorf("read JSON report: schema is %q, want %q; regenerate the report with this mcpcheck version", run.Schema, Schema)
	}
	if doc.Checks != nil {
		run.Checks = make([]Check, len(doc.Checks))
	}
	for i, jc := range doc.Checks {
		c := jc.Check
		if ref := jc.TranscriptRef; ref != nil {
			if *ref < 0 || *ref >= len(doc.Transcripts) {
				return nil, fmt.Errorf("read JSON report: check %d (%s) refers to transcript %d of %d", i, c.ID, *ref, len(doc.Transcripts))
			}
			c.Transcript = slices.Clone(doc.Transcripts[*ref])
		}
		if ref := jc.ReasonRef; ref != nil {
			if *ref < 0 || *ref >= len(doc.Texts) {
				return nil, fmt.Errorf("read JSON report: check %d (%s) refers to text %d of %d", i, c.ID, *ref, len(doc.Texts))
			}
			c.Reason = doc.Texts[*ref]
		}
		run.Checks[i] = c
	}
	return run, nil
}
