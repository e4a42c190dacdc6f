package reports

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"

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

// jsonReport is the document WriteJSON writes: the Run's fields, then the
// computed summary.
type jsonReport struct {
	*Run
	Summary Summary `json:"summary"`
}

// WriteJSON writes the run as one indented JSON document in the
// mcpcheck.report/v1 format: the Run's fields as tagged in this package
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
	if err := enc.Encode(jsonReport{Run: run, Summary: Summarize(run)}); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// ReadJSON reads a report WriteJSON wrote (the computed summary is
// ignored). It refuses documents of another schema.
func ReadJSON(r io.Reader) (*Run, error) {
	var run Run
	dec := json.NewDecoder(r)
	if err := dec.Decode(&run); err != nil {
		return nil, fmt.Errorf("read JSON report: %w; is this a file written by mcpcheck --format json?", err)
	}
	if run.Schema != Schema {
		return nil, fmt.Errorf("read JSON report: schema is %q, want %q; regenerate the report with this mcpcheck version", run.Schema, Schema)
	}
	return &run, nil
}
