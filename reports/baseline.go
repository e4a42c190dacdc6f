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
//	    {"check": "tools/names",
//	     "version": "2025-11-25", "transport": "stdio",
//	     "requirements": ["tools.name.allowed-characters"],
//	     "reason": "upstream issue #123: tool names with spaces"}
//	  ]
//	}
//
// version and transport are optional and narrow the entry; requirements
// names the requirement IDs the check is expected to break (see
// BaselineEntry.Requirements); reason is required.
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
	// Requirements are the requirement IDs the entry expects the check to
	// break. A broken check is baselined only when every requirement it
	// broke (Check.BrokenRequirements) is named by an entry that matches
	// it; a requirement no entry names is a new failure, however long the
	// check has been failing for other reasons. An empty list ([] in the
	// file) expects the check broken without naming a requirement, which
	// covers only a check that broke none it could name, such as an
	// error: WriteBaseline writes it for a check that ended in error.
	//
	// nil (no "requirements" in the file) is a legacy entry, from before
	// baselines named requirements. It still covers whatever the check
	// breaks, so an old baseline keeps the verdicts it gave: a CI job does
	// not turn red on upgrading mcpcheck for failures it accepted with
	// reasons. But such an entry can hide a new broken requirement behind
	// an old failure, which is what requirement-keyed baselines exist to
	// prevent, so it is flagged wherever it is used: Apply lists the
	// legacy entries that covered a broken check in BaselineInfo.Legacy,
	// the reports print a hint to rewrite them, and a strict verdict
	// (Judgement.Failed(true), mcpcheck --strict) fails the run on them.
	// WriteBaseline never writes one.
	Requirements []string `json:"requirements"`
	Reason       string   `json:"reason"`
}

// Legacy reports whether the entry names no requirements (see
// BaselineEntry.Requirements): it covers whatever its check breaks.
func (e BaselineEntry) Legacy() bool { return e.Requirements == nil }

// MarshalJSON writes the entry in the file format: "requirements" is left
// out of a legacy entry and written as [] for an empty list, so the two
// stay apart. HTML characters are not escaped (reasons stay readable).
func (e BaselineEntry) MarshalJSON() ([]byte, error) {
	type file struct {
		Check        string       `json:"check"`
		Version      spec.Version `json:"version,omitempty"`
		Transport    string       `json:"transport,omitempty"`
		Requirements *[]string    `json:"requirements,omitempty"`
		Reason       string       `json:"reason"`
	}
	f := file{Check: e.Check, Version: e.Version, Transport: e.Transport, Reason: e.Reason}
	if e.Requirements != nil {
		reqs := e.Requirements
		f.Requirements = &reqs
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Matches reports whether the entry covers the check. A check renamed
// since the entry was written is still covered: both IDs are resolved
// through CanonicalCheckID.
func (e BaselineEntry) Matches(c Check) bool {
	return CanonicalCheckID(e.Check) == CanonicalCheckID(c.ID) && (e.Version == "" || e.Version == c.Version) && (e.Transport == "" || e.Transport == c.Transport)
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
	// StaleFixed: the checks the entry covers were judged (some may still
	// be broken) and none of them breaks the requirements Stale names.
	StaleFixed = "fixed"
)

// Stale is a baseline entry that no longer describes the run.
type Stale struct {
	Entry BaselineEntry `json:"entry"`
	// Why is StalePasses, StaleAbsent or StaleFixed.
	Why string `json:"why"`
	// Requirements, for StaleFixed, are the entry's requirements that no
	// check it covers breaks any more.
	Requirements []string `json:"requirements,omitempty"`
}

// String says which entry is stale and what to do.
func (s Stale) String() string {
	switch s.Why {
	case StaleAbsent:
		return fmt.Sprintf("baseline entry %s matches no check in this run; remove it (or run the checks it names)", s.Entry.Key())
	case StaleFixed:
		return fmt.Sprintf("baseline entry %s expects %s broken, but no check it covers breaks %s now; remove %s from its requirements (or the entry, if none is left)",
			s.Entry.Key(), strings.Join(s.Requirements, ", "), pronoun(len(s.Requirements)), pronoun(len(s.Requirements)))
	}
	return fmt.Sprintf("baseline entry %s now passes; remove it from the baseline", s.Entry.Key())
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// LegacyHint says what a legacy baseline entry (one without requirements)
// risks and how to rewrite it.
func LegacyHint(e BaselineEntry) string {
	return fmt.Sprintf("baseline entry %s names no requirements, so it also accepts any new requirement the check breaks; rewrite the baseline with mcpcheck baseline write, or add \"requirements\": [...] to the entry", e.Key())
}

// ParseBaseline reads a baseline from r; name is used in error messages and
// kept as Source. Errors give the line and column and say what to fix.
// Unknown fields, duplicate entries (two naming the same requirement of
// the same check, or overlapping an entry without requirements), unknown
// versions, malformed requirement IDs and missing reasons are errors.
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
	dups := entryIndex{}
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
				return p.errAt(off, "entry %d: %v; an entry has only check, version, transport, requirements and reason", n, strings.TrimPrefix(err.Error(), "json: "))
			}
			return p.errAt(off, "entry %d: %v; each entry is an object {\"check\": ..., \"reason\": ...}", n, err)
		}
		var reqs struct {
			Requirements json.RawMessage `json:"requirements"`
		}
		if err := json.Unmarshal(raw, &reqs); err == nil && string(reqs.Requirements) == "null" {
			return p.errAt(off, "entry %d (%s): \"requirements\" is null; list the requirement IDs the check is expected to break, [] for a check expected to end in error, or leave the field out (a legacy entry that accepts anything the check breaks)", n, e.Key())
		}
		switch {
		case strings.TrimSpace(e.Check) == "":
			return p.errAt(off, "entry %d: \"check\" is required: name the check ID that is expected to fail", n)
		case strings.TrimSpace(e.Reason) == "":
			return p.errAt(off, "entry %d (%s): \"reason\" is required and must not be empty: say why this failure is expected (an issue link, a known limitation)", n, e.Key())
		case e.Version != "" && !e.Version.Known():
			return p.errAt(off, "entry %d (%s): version %q is not a released protocol version; use one of %v or leave it out", n, e.Key(), e.Version, spec.Versions)
		}
		for i, r := range e.Requirements {
			if r == "" || strings.TrimSpace(r) != r {
				return p.errAt(off, "entry %d (%s): requirement %d is %q; name a catalog requirement ID such as tools.name.allowed-characters (mcpcheck spec list shows them)", n, e.Key(), i+1, r)
			}
			if slices.Contains(e.Requirements[:i], r) {
				return p.errAt(off, "entry %d (%s) names requirement %s twice; remove one", n, e.Key(), r)
			}
		}
		if err := dups.add(e, n); err != "" {
			return p.errAt(off, "%s", err)
		}
		b.Entries = append(b.Entries, e)
	}
	if _, err := p.dec.Token(); err != nil {
		return p.wrap(err, "\"entries\"")
	}
	return nil
}

// entryIndex finds entries that repeat one another: for each check key,
// the entry that names no requirements (a legacy one), the one with an
// empty list, and the entry naming each requirement.
type entryIndex map[CheckKey]*entrySlots

type entrySlots struct {
	legacy, empty int
	reqs          map[string]int
}

// add records entry n, or says which earlier entry it repeats.
func (x entryIndex) add(e BaselineEntry, n int) string {
	k := e.Key()
	k.ID = CanonicalCheckID(k.ID) // an old and a new name are one check
	s := x[k]
	if s == nil {
		s = &entrySlots{reqs: map[string]int{}}
		x[k] = s
	}
	switch {
	case s.legacy != 0 && e.Legacy():
		return fmt.Sprintf("entry %d (%s) repeats entry %d; remove one of them", n, k, s.legacy)
	case s.legacy != 0:
		return fmt.Sprintf("entry %d (%s) overlaps entry %d, which names no requirements and so already accepts anything the check breaks; remove one of them (baseline write names the requirements)", n, k, s.legacy)
	case e.Legacy() && (s.empty != 0 || len(s.reqs) > 0):
		return fmt.Sprintf("entry %d (%s) names no requirements, so it overlaps entry %d for the same check; remove one of them", n, k, max(s.empty, firstSlot(s.reqs)))
	case e.Legacy():
		s.legacy = n
	case len(e.Requirements) == 0 && s.empty != 0:
		return fmt.Sprintf("entry %d (%s) repeats entry %d; remove one of them", n, k, s.empty)
	case len(e.Requirements) == 0:
		s.empty = n
	}
	for _, r := range e.Requirements {
		if first, ok := s.reqs[r]; ok {
			return fmt.Sprintf("entry %d (%s) expects requirement %s, which entry %d already expects for the same check; remove it from one of them", n, k, r, first)
		}
	}
	for _, r := range e.Requirements {
		s.reqs[r] = n
	}
	return ""
}

// firstSlot is the lowest entry number in m.
func firstSlot(m map[string]int) int {
	first := 0
	for _, n := range m {
		if first == 0 || n < first {
			first = n
		}
	}
	return first
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	return off
}

// WriteBaseline writes a baseline that expects every currently broken check
// of run (fail, warn, error), one entry per check with its version and
// transport, naming the requirements it broke (Check.BrokenRequirements;
// [] for a check that broke none it could name, such as an error), with
// reason as each entry's reason. It is how a user adopts mcpcheck on a
// target that does not conform yet; the reasons should then be edited to
// say why each failure is expected. It never writes a legacy entry (one
// without requirements), so a requirement the check breaks later is a new
// failure.
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
			reqs := c.BrokenRequirements()
			if reqs == nil {
				reqs = []string{}
			}
			b.Entries = append(b.Entries, BaselineEntry{Check: CanonicalCheckID(c.ID), Version: c.Version, Transport: c.Transport, Requirements: reqs, Reason: reason})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(b)
}

// Apply holds run to the baseline, requirement by requirement. A broken
// check (fail, warn, error) is marked Baselined, with the reasons of the
// entries that expect it, when the entries matching it name every
// requirement it broke (Check.BrokenRequirements), or one of them is a
// legacy entry (no requirements, see BaselineEntry.Requirements). A check
// that matching entries do not fully cover stays unexpected, and its
// Unexpected lists the requirements no entry names. An error that broke
// no requirement it could name is covered by any matching entry.
//
// Apply returns the stale entries: those that match no check in the run
// (StaleAbsent); those whose checks all pass now (StalePasses); and those
// naming requirements that no check they cover breaks any more while the
// checks were judged (StaleFixed, with those requirements). An entry whose
// checks are only n/a or untestable, or one of whose checks ended in
// error, is not stale for what the run could not judge. An entry about
// checks the run did not select is out of scope, neither matched nor
// stale (BaselineInfo.OutOfScope counts them): one naming a version the
// run did not ask for or a transport it did not use, and in a run
// narrowed by a label filter, a selection (Run.Selection), a shard or
// missing shards, one that matches none of the run's checks by ID,
// version and transport. In a shard, an
// entry without a version is not made stale either: the other shards
// judge its other versions. An entry naming a check by an ID it carried
// before it was renamed (CanonicalCheckID) covers the renamed check and is
// listed once in BaselineInfo.Renamed, so the reports can say to rename
// it. Apply records the result, with the legacy
// entries that covered a broken check, in run.Baseline. A nil baseline
// clears the marks and the record.
func Apply(run *Run, b *Baseline) []Stale {
	for i := range run.Checks {
		run.Checks[i].Baselined = false
		run.Checks[i].BaselineReason = ""
		run.Checks[i].Unexpected = nil
	}
	if b == nil {
		run.Baseline = nil
		return nil
	}
	matched := 0
	legacyUsed := make([]bool, len(b.Entries))
	for i := range run.Checks {
		c := &run.Checks[i]
		if !c.Broken() {
			continue
		}
		broken := c.BrokenRequirements()
		covered := map[string]bool{}
		var reasons []string
		found, legacy := false, false
		for ei, e := range b.Entries {
			if !e.Matches(*c) {
				continue
			}
			found = true
			uses := len(broken) == 0
			if e.Legacy() {
				legacy, uses = true, true
				legacyUsed[ei] = true
			}
			for _, r := range e.Requirements {
				if slices.Contains(broken, r) {
					covered[r], uses = true, true
				}
			}
			if uses && !slices.Contains(reasons, e.Reason) {
				reasons = append(reasons, e.Reason)
			}
		}
		if !found {
			continue
		}
		if !legacy {
			for _, r := range broken {
				if !covered[r] {
					c.Unexpected = append(c.Unexpected, r)
				}
			}
		}
		if len(c.Unexpected) > 0 {
			continue
		}
		c.Baselined = true
		c.BaselineReason = strings.Join(reasons, "; ")
		matched++
	}
	var stale []Stale
	var legacy []BaselineEntry
	outside := 0
	for ei, e := range b.Entries {
		if legacyUsed[ei] {
			legacy = append(legacy, e)
		}
		found, broken, passing, judged, unjudgeable := false, false, false, false, false
		violated := map[string]bool{}
		for _, c := range run.Checks {
			if !e.Matches(c) {
				continue
			}
			found = true
			switch {
			case c.Broken():
				broken = true
			case c.Outcome == Pass:
				passing = true
			}
			switch c.Outcome {
			case Pass, Fail, Warn:
				judged = true
				for _, r := range c.BrokenRequirements() {
					violated[r] = true
				}
			case NA, Untestable:
			default: // error or unset: whatever it would have broken is unknown
				unjudgeable = true
			}
		}
		switch {
		case !found && outOfScope(e, run):
			// A run of other versions, another transport or a narrower
			// selection says nothing about this entry.
			outside++
		case run.Shard != "" && e.Version == "":
			// Judged here in this shard's versions only: the checks it
			// covers in the others ran elsewhere.
		case !found:
			stale = append(stale, Stale{Entry: e, Why: StaleAbsent})
		case !broken && passing:
			stale = append(stale, Stale{Entry: e, Why: StalePasses})
		case judged && !unjudgeable:
			var fixed []string
			for _, r := range e.Requirements {
				if !violated[r] {
					fixed = append(fixed, r)
				}
			}
			if len(fixed) > 0 {
				stale = append(stale, Stale{Entry: e, Why: StaleFixed, Requirements: fixed})
			}
		}
	}
	run.Baseline = &BaselineInfo{Source: b.Source, Entries: len(b.Entries), Matched: matched, Stale: stale, Legacy: legacy, OutOfScope: outside, Renamed: b.Renamed()}
	return stale
}

// Renamed lists, once each in entry order, the checks the baseline names
// by an ID they carried before they were renamed, with the ID they carry
// now. Such entries still match (BaselineEntry.Matches); the reports ask
// for the new name.
func (b *Baseline) Renamed() []RenamedCheck {
	var out []RenamedCheck
	seen := map[string]bool{}
	for _, e := range b.Entries {
		if n, ok := RenamedCheckID(e.Check); ok && !seen[e.Check] {
			seen[e.Check] = true
			out = append(out, RenamedCheck{Old: e.Check, New: n})
		}
	}
	return out
}

// outOfScope reports whether a run could not have judged what entry e
// covers, given that none of its checks matches e: the entry names a
// version the run did not ask for or a transport it did not use, or the
// run did not select every check (a label filter, a selection such as a
// go test -run pattern, a shard, a merge with shards missing), so an entry
// matching none of its checks by ID, version and transport is about one
// it left out.
func outOfScope(e BaselineEntry, run *Run) bool {
	if e.Version != "" && !slices.Contains(run.Versions, e.Version) {
		return true
	}
	if e.Transport != "" && run.Transport != "" && e.Transport != run.Transport {
		return true
	}
	return run.LabelFilter != "" || run.Selection != "" || run.Shard != "" || len(run.MissingShards) > 0
}

// Judgement is what a run means for a CI job, after Apply.
type Judgement struct {
	// Failures are fail checks the baseline does not expect.
	Failures []CheckKey `json:"failures,omitempty"`
	// Errors are checks where the harness broke, not expected.
	Errors []CheckKey `json:"errors,omitempty"`
	// Warnings are warn checks the baseline does not expect.
	Warnings []CheckKey `json:"warnings,omitempty"`
	// Unexpected are the requirements broken by checks among Failures,
	// Warnings and Errors that baseline entries match but do not name (see
	// Check.Unexpected): the new failures an expected, older failure of
	// the same check would otherwise hide.
	Unexpected []RequirementKey `json:"unexpected,omitempty"`
	// Stale are baseline entries that no longer describe the run.
	Stale []Stale `json:"stale,omitempty"`
	// Legacy are baseline entries without requirements that covered a
	// broken check (see BaselineEntry.Requirements); they fail only a
	// strict verdict.
	Legacy []BaselineEntry `json:"legacy,omitempty"`
	// Findings are the fuzz findings that fail a campaign (FailingFinding).
	Findings []string `json:"findings,omitempty"`
	// Unjudged says why the run is no pass even when nothing in it fails
	// (see OK): the run's own Unjudged, harness problems, or an
	// interruption; "" when the run judged what it set out to.
	Unjudged string `json:"unjudged,omitempty"`
	// Interrupted is the run's Interrupted: why a signal or the deadline
	// ended it ("" when it ran to its end).
	Interrupted string `json:"interrupted,omitempty"`
	// Untestable counts the untestable checks: a run with some that
	// fails nothing is incomplete, not a pass (see Word).
	Untestable int `json:"untestable,omitempty"`
}

// OK reports whether the run may be called a pass: nothing fails it
// (Failed) and nothing left it unjudged (Unjudged). The writers call a run
// passed, or print OK, only then.
func (j Judgement) OK(strict bool) bool { return !j.Failed(strict) && j.Unjudged == "" }

// Failed reports whether the run should fail a build: an unexpected failure
// or harness error, or a stale baseline entry; with strict, also an
// unexpected warning or a legacy baseline entry in use (one that names no
// requirements and so could hide a new one).
func (j Judgement) Failed(strict bool) bool {
	return len(j.Failures) > 0 || len(j.Errors) > 0 || len(j.Stale) > 0 || len(j.Findings) > 0 ||
		(strict && (len(j.Warnings) > 0 || len(j.Legacy) > 0))
}

// Summary says in one line what fails the build, for the CLI's exit
// message: "2 unexpected failures (new broken requirements of checks the
// baseline lists: ...), 0 harness errors, 1 stale baseline entries", with
// strict the unexpected warnings and legacy baseline entries too.
func (j Judgement) Summary(strict bool) string {
	msg := fmt.Sprintf("%d unexpected failures", len(j.Failures))
	if n := len(j.Unexpected); n > 0 {
		msg += fmt.Sprintf(" (new broken requirements of checks the baseline lists: %s)", joinKeys(j.Unexpected, 3))
	}
	msg += fmt.Sprintf(", %d harness errors, %d stale baseline entries", len(j.Errors), len(j.Stale))
	if strict {
		msg += fmt.Sprintf(", %d unexpected warnings (--strict)", len(j.Warnings))
		if n := len(j.Legacy); n > 0 {
			msg += fmt.Sprintf(", %d baseline entries without requirements (--strict; rewrite them with mcpcheck baseline write)", n)
		}
	}
	return msg
}

// joinKeys lists up to limit keys, then how many more.
func joinKeys(keys []RequirementKey, limit int) string {
	var parts []string
	for i, k := range keys {
		if i == limit {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-limit))
			break
		}
		parts = append(parts, k.String())
	}
	return strings.Join(parts, "; ")
}

// FailingFinding reports whether a fuzz finding fails the campaign: a
// crash, a hang, or a violation of a MUST-level requirement. The CLI, the
// campaign summary and every report format judge findings by this one rule.
func FailingFinding(f Finding) bool {
	return f.Kind == FindingCrash || f.Kind == FindingHang || (f.Kind == FindingViolation && f.Level.Mandatory())
}

// Verdict judges a run (after Apply, if a baseline is used): the checks that
// are broken and not baselined, the stale baseline entries, and why the run
// is no pass even if nothing fails (Judgement.Unjudged). The CLI exits 1
// when Verdict(run).Failed(strict), and 3 (or 5 when interrupted) on a
// run that is not OK for another reason.
func Verdict(run *Run) Judgement {
	var j Judgement
	if run == nil {
		return j
	}
	for _, c := range run.Checks {
		if c.Baselined && c.Broken() {
			continue
		}
		for _, r := range c.Unexpected {
			j.Unexpected = append(j.Unexpected, RequirementKey{CheckKey: c.Key(), Requirement: r})
		}
		switch c.Outcome {
		case Untestable:
			j.Untestable++
		case Fail:
			j.Failures = append(j.Failures, c.Key())
		case Warn:
			j.Warnings = append(j.Warnings, c.Key())
		case Pass, NA:
		default:
			j.Errors = append(j.Errors, c.Key())
		}
	}
	if run.Baseline != nil {
		j.Stale = append(j.Stale, run.Baseline.Stale...)
		j.Legacy = append(j.Legacy, run.Baseline.Legacy...)
	}
	if run.Fuzz != nil {
		for _, f := range run.Fuzz.Findings {
			if FailingFinding(f) {
				j.Findings = append(j.Findings, f.ID)
			}
		}
	}
	j.Interrupted = run.Interrupted
	switch {
	case run.Unjudged != "":
		j.Unjudged = run.Unjudged
	case len(run.Problems) > 0:
		j.Unjudged = "the harness had " + plural(len(run.Problems), "problem", "problems") + " during the run, so it is not to be trusted"
	case run.Interrupted != "":
		j.Unjudged = "the run was interrupted (" + run.Interrupted + "): the checks it did not reach were not run"
	}
	return j
}
