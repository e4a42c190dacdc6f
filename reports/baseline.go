package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// Baseline is a list of expected failures. Its file format is:
//
//	{
//	  "entries": [
//	    {"check": "lifecycle/initialize/echoes-supported-version",
//	     "version": "2025-11-25", "transport": "stdio",
//	     "reason": "upstream issue #123: echoes the client's version"}
//	  ]
//	}
//
// version and transport are optional and narrow the entry; reason is
// required.
type Baseline struct {
	// Source names where the baseline came from (a file name).
	Source  string          `json:"-"`
	Entries []BaselineEntry `json:"entries"`
}

// BaselineEntry expects one check (optionally only in one version or over
// one transport) to be broken, for a stated reason.
type BaselineEntry struct {
	Check     string       `json:"check"`
	Version   spec.Version `json:"version,omitempty"`
	Transport string       `json:"transport,omitempty"`
	Reason    string       `json:"reason"`
}

// Matches reports whether the entry covers the check.
func (e BaselineEntry) Matches(c Check) bool {
	return e.Check == c.ID && (e.Version == "" || e.Version == c.Version) && (e.Transport == "" || e.Transport == c.Transport)
}

// Key is the entry as a CheckKey, for printing.
func (e BaselineEntry) Key() CheckKey {
	return CheckKey{ID: e.Check, Version: e.Version, Transport: e.Transport}
}

// Why a baseline entry is stale.
const (
	// StalePasses: every check the entry covers now passes.
	StalePasses = "passes"
	// StaleAbsent: no check in the run matches the entry.
	StaleAbsent = "absent"
)

// Stale is a baseline entry that no longer describes the run.
type Stale struct {
	Entry BaselineEntry `json:"entry"`
	// Why is StalePasses or StaleAbsent.
	Why string `json:"why"`
}

// String says which entry is stale and what to do.
func (s Stale) String() string {
	if s.Why == StaleAbsent {
		return fmt.Sprintf("baseline entry %s matches no check in this run; remove it (or run the checks it names)", s.Entry.Key())
	}
	return fmt.Sprintf("baseline entry %s now passes; remove it from the baseline", s.Entry.Key())
}

// ParseBaseline reads a baseline from r; name is used in error messages and
// kept as Source. Errors give the line and column and say what to fix.
// Unknown fields, duplicate entries, unknown versions and missing reasons
// are errors.
func ParseBaseline(name string, r io.Reader) (*Baseline, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read baseline %s: %w", name, err)
	}
	p := &baselineParser{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	b, err := p.parse()
	if err != nil {
		return nil, err
	}
	b.Source = name
	return b, nil
}

type baselineParser struct {
	name string
	data []byte
	dec  *json.Decoder
}

// errAt formats an error at a byte offset as "name:line:col: msg".
func (p *baselineParser) errAt(off int64, format string, a ...any) error {
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(p.data)); i++ {
		if p.data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%s:%d:%d: %s", p.name, line, col, fmt.Sprintf(format, a...))
}

// wrap turns a decoder error into a positioned one.
func (p *baselineParser) wrap(err error, what string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return p.errAt(syn.Offset, "invalid JSON in %s: %v; fix the syntax (a missing comma or quote?)", what, syn)
	case errors.As(err, &typ):
		return p.errAt(typ.Offset, "%s: field %q must be a %s, not a JSON %s", what, typ.Field, typ.Type, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.errAt(int64(len(p.data)), "the file ends inside %s; close every brace and bracket", what)
	}
	return p.errAt(p.dec.InputOffset(), "%s: %v", what, err)
}

func (p *baselineParser) parse() (*Baseline, error) {
	if len(bytes.TrimSpace(p.data)) == 0 {
		return nil, fmt.Errorf("%s: the baseline is empty; write {\"entries\": []} for no expected failures", p.name)
	}
	if err := p.expectDelim('{', "the baseline: it must be a JSON object {\"entries\": [...]}"); err != nil {
		return nil, err
	}
	b := &Baseline{}
	sawEntries := false
	for p.dec.More() {
		off := p.dec.InputOffset()
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.wrap(err, "the baseline")
		}
		key, _ := tok.(string)
		switch key {
		case "entries":
			sawEntries = true
			if err := p.entries(b); err != nil {
				return nil, err
			}
		case "$schema", "comment":
			var skip json.RawMessage
			if err := p.dec.Decode(&skip); err != nil {
				return nil, p.wrap(err, "the baseline")
			}
		default:
			return nil, p.errAt(skipSpace(p.data, off), "unknown field %q in the baseline; the only fields are \"entries\" (and \"$schema\", \"comment\")", key)
		}
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.wrap(err, "the baseline")
	}
	if !sawEntries {
		return nil, fmt.Errorf("%s: the baseline has no \"entries\" array; add \"entries\": [] (each entry {\"check\", \"reason\"})", p.name)
	}
	if p.dec.More() {
		return nil, p.errAt(skipSpace(p.data, p.dec.InputOffset()), "unexpected data after the baseline object; a baseline file holds one JSON object")
	}
	return b, nil
}

func (p *baselineParser) expectDelim(d json.Delim, what string) error {
	off := skipSpace(p.data, p.dec.InputOffset())
	tok, err := p.dec.Token()
	if err != nil {
		return p.wrap(err, what)
	}
	if tok != d {
		return p.errAt(off, "expected %q to open %s", string(d), what)
	}
	return nil
}

func (p *baselineParser) entries(b *Baseline) error {
	if err := p.expectDelim('[', "\"entries\": it must be an array of {\"check\", \"reason\"} objects"); err != nil {
		return err
	}
	seen := map[BaselineEntry]int{}
	for n := 1; p.dec.More(); n++ {
		off := skipSpace(p.data, p.dec.InputOffset())
		// Skip the comma between entries so the position names the entry.
		if off < int64(len(p.data)) && p.data[off] == ',' {
			off = skipSpace(p.data, off+1)
		}
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return p.wrap(err, fmt.Sprintf("entry %d", n))
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var e BaselineEntry
		if err := dec.Decode(&e); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				return p.errAt(off+typ.Offset, "entry %d: field %q must be a %s, not a JSON %s", n, typ.Field, typ.Type, typ.Value)
			}
			if strings.Contains(err.Error(), "unknown field") {
				return p.errAt(off, "entry %d: %v; an entry has only check, version, transport and reason", n, strings.TrimPrefix(err.Error(), "json: "))
			}
			return p.errAt(off, "entry %d: %v; each entry is an object {\"check\": ..., \"reason\": ...}", n, err)
		}
		switch {
		case strings.TrimSpace(e.Check) == "":
			return p.errAt(off, "entry %d: \"check\" is required: name the check ID that is expected to fail", n)
		case strings.TrimSpace(e.Reason) == "":
			return p.errAt(off, "entry %d (%s): \"reason\" is required and must not be empty: say why this failure is expected (an issue link, a known limitation)", n, e.Key())
		case e.Version != "" && !e.Version.Known():
			return p.errAt(off, "entry %d (%s): version %q is not a released protocol version; use one of %v or leave it out", n, e.Key(), e.Version, spec.Versions)
		}
		if first, dup := seen[e.withoutReason()]; dup {
			return p.errAt(off, "entry %d (%s) repeats entry %d; remove one of them", n, e.Key(), first)
		}
		seen[e.withoutReason()] = n
		b.Entries = append(b.Entries, e)
	}
	if _, err := p.dec.Token(); err != nil {
		return p.wrap(err, "\"entries\"")
	}
	return nil
}

func (e BaselineEntry) withoutReason() BaselineEntry { e.Reason = ""; return e }

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	return off
}

// WriteBaseline writes a baseline that expects every currently broken check
// of run (fail, warn, error), one entry per check with its version and
// transport, with reason as each entry's reason. It is how a user adopts
// mcpcheck on a target that does not conform yet; the reasons should then be
// edited to say why each failure is expected.
func WriteBaseline(w io.Writer, run *Run, reason string) error {
	if run == nil {
		return errNilRun
	}
	if strings.TrimSpace(reason) == "" {
		return errors.New("reports: a baseline entry needs a reason; pass one such as \"accepted on first adoption\"")
	}
	b := Baseline{Entries: []BaselineEntry{}}
	for _, c := range run.Checks {
		if c.Broken() {
			b.Entries = append(b.Entries, BaselineEntry{Check: c.ID, Version: c.Version, Transport: c.Transport, Reason: reason})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(b)
}

// Apply holds run to the baseline: every fail, warn or error check an entry
// matches is marked Baselined with the entry's reason (the first matching
// entry wins). It returns the stale entries: those that match no check in
// the run (StaleAbsent), and those whose checks all pass now (StalePasses).
// An entry whose checks are only n/a or untestable is not stale: the run
// could not tell whether the failure is fixed. An entry for a check that a
// label filter left out of the run is absent too: a caller running a subset
// should hold it to the entries for that subset. Apply records the result
// in run.Baseline. A nil baseline clears the marks and the record.
func Apply(run *Run, b *Baseline) []Stale {
	for i := range run.Checks {
		run.Checks[i].Baselined = false
		run.Checks[i].BaselineReason = ""
	}
	if b == nil {
		run.Baseline = nil
		return nil
	}
	var stale []Stale
	matched := 0
	for _, e := range b.Entries {
		found, broken, passing := false, false, false
		for i := range run.Checks {
			c := &run.Checks[i]
			if !e.Matches(*c) {
				continue
			}
			found = true
			switch {
			case c.Broken():
				broken = true
				if !c.Baselined {
					c.Baselined = true
					c.BaselineReason = e.Reason
					matched++
				}
			case c.Outcome == Pass:
				passing = true
			}
		}
		switch {
		case !found && outOfScope(e, run):
			// A run of other versions, another transport or a narrower
			// selection says nothing about this entry.
		case !found:
			stale = append(stale, Stale{Entry: e, Why: StaleAbsent})
		case !broken && passing:
			stale = append(stale, Stale{Entry: e, Why: StalePasses})
		}
	}
	run.Baseline = &BaselineInfo{Source: b.Source, Entries: len(b.Entries), Matched: matched, Stale: stale}
	return stale
}

// outOfScope reports whether a run could not have judged what entry e
// covers: the entry names a version the run did not ask for or a transport
// it did not use, or the run was narrowed by a label filter (an entry whose
// check it left out is not stale).
func outOfScope(e BaselineEntry, run *Run) bool {
	if e.Version != "" && !slices.Contains(run.Versions, e.Version) {
		return true
	}
	if e.Transport != "" && run.Transport != "" && e.Transport != run.Transport {
		return true
	}
	if run.LabelFilter != "" || run.Shard != "" {
		for _, c := range run.Checks {
			if c.ID == e.Check {
				return false
			}
		}
		return true
	}
	return false
}

// Judgement is what a run means for a CI job, after Apply.
type Judgement struct {
	// Failures are fail checks the baseline does not expect.
	Failures []CheckKey `json:"failures,omitempty"`
	// Errors are checks where the harness broke, not expected.
	Errors []CheckKey `json:"errors,omitempty"`
	// Warnings are warn checks the baseline does not expect.
	Warnings []CheckKey `json:"warnings,omitempty"`
	// Stale are baseline entries that no longer describe the run.
	Stale []Stale `json:"stale,omitempty"`
	// Findings are the fuzz findings that fail a campaign (FailingFinding).
	Findings []string `json:"findings,omitempty"`
}

// Failed reports whether the run should fail a build: an unexpected failure
// or harness error, or a stale baseline entry; with strict, also an
// unexpected warning.
func (j Judgement) Failed(strict bool) bool {
	return len(j.Failures) > 0 || len(j.Errors) > 0 || len(j.Stale) > 0 || len(j.Findings) > 0 || (strict && len(j.Warnings) > 0)
}

// FailingFinding reports whether a fuzz finding fails the campaign: a
// crash, a hang, or a violation of a MUST-level requirement. The CLI, the
// campaign summary and every report format judge findings by this one rule.
func FailingFinding(f Finding) bool {
	return f.Kind == FindingCrash || f.Kind == FindingHang || (f.Kind == FindingViolation && f.Level.Mandatory())
}

// Verdict judges a run (after Apply, if a baseline is used): the checks that
// are broken and not baselined, and the stale baseline entries. The CLI
// exits 1 when Verdict(run).Failed(strict).
func Verdict(run *Run) Judgement {
	var j Judgement
	if run == nil {
		return j
	}
	for _, c := range run.Checks {
		if c.Baselined && c.Broken() {
			continue
		}
		switch c.Outcome {
		case Fail:
			j.Failures = append(j.Failures, c.Key())
		case Warn:
			j.Warnings = append(j.Warnings, c.Key())
		case Pass, NA, Untestable:
		default:
			j.Errors = append(j.Errors, c.Key())
		}
	}
	if run.Baseline != nil {
		j.Stale = append(j.Stale, run.Baseline.Stale...)
	}
	if run.Fuzz != nil {
		for _, f := range run.Fuzz.Findings {
			if FailingFinding(f) {
				j.Findings = append(j.Findings, f.ID)
			}
		}
	}
	return j
}
