package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
)

// junitSuites is the root of a JUnit XML report, in the dialect Jenkins,
// GitLab, GitHub test reporters and Azure DevOps read: <testsuites> holding
// one <testsuite> per protocol version and area, one <testcase> per check.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  *xmlText        `xml:"system-out,omitempty"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Skipped    *junitResult    `xml:"skipped,omitempty"`
	Error      *junitResult    `xml:"error,omitempty"`
	Failure    *junitResult    `xml:"failure,omitempty"`
	SystemOut  *xmlText        `xml:"system-out,omitempty"`
}

// xmlText is character data written with literal newlines (encoding/xml
// escapes newlines in ",chardata" fields, which makes long bodies one line).
type xmlText string

// MarshalXML writes the element with its text as one character-data token.
func (t xmlText) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	if err := e.EncodeToken(xml.CharData(t)); err != nil {
		return err
	}
	return e.EncodeToken(start.End())
}

type junitResult struct {
	Message string
	Type    string
	Text    string
}

// MarshalXML writes <failure|error|skipped message="" type="">text</...>.
func (r junitResult) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "message"}, Value: r.Message})
	if r.Type != "" {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "type"}, Value: r.Type})
	}
	return xmlText(r.Text).MarshalXML(e, start)
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// seconds renders a duration as JUnit wants it: seconds with milliseconds.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the run as JUnit XML: a <testsuite> per protocol version
// and area (named "VERSION/AREA"), a <testcase> per check (name: the check
// ID plus its transport; classname: "mcpcheck.VERSION.AREA"). Outcomes map
// as follows, so that a CI job reading only the XML agrees with mcpcheck's
// exit code:
//
//   - pass: a plain testcase.
//   - fail: <failure type="LEVEL" message="..."> with the requirements,
//     expected versus actual and the evidence (see Evidence) in its text.
//   - error: <error type="harness" message="reason">.
//   - warn: passes (JUnit has no warning), with the details in
//     <system-out> starting "WARN" and the property outcome=warn. This keeps
//     SHOULD findings visible without failing builds that only gate on MUSTs.
//   - n/a and untestable: <skipped message="n/a: reason"> and
//     <skipped message="untestable: reason">, never a pass.
//   - a baselined fail or error: <skipped message="baselined (expected
//     failure): reason"> with properties outcome=fail and baselined=true.
//
// The run's verdict (see RunVerdict) comes first, as a suite
// "mcpcheck/verdict" with the property verdict and one testcase,
// "verdict", counted in the totals: it passes on pass and incomplete
// (the sentence in <system-out>), fails on fail (<failure
// type="verdict">: stale baseline entries and, with Options.Strict,
// unexpected warnings fail a run though no check does), and is in error
// when the run was not judged or was interrupted (<error
// type="not-judged"> or "interrupted", and the suite property unjudged),
// so a CI job that reads only the XML agrees with the exit code. Suites
// with unexpected broken checks come next, and in each suite its broken
// checks first. A problem seen in several versions is told in full in
// the first one's testcase; the others name it (Options.Verbose tells
// each in full, with whole transcripts).
//
// Every testcase has properties outcome, level, version, transport and one
// requirement property per cited ID. Text is made printable first: control
// characters and bytes that are not UTF-8, which XML 1.0 cannot carry, are
// written as \u001b and \xff escapes, so the document is always well-formed.
func WriteJUnit(w io.Writer, run *Run, opts Options) error {
	run, err := Prepare(run, opts)
	if err != nil {
		return err
	}
	sum := Summarize(run)
	doc := junitSuites{Name: xs(toolName(run)), Time: seconds(run.Duration)}
	type key struct {
		v    spec.Version
		area string
	}
	byKey := map[key][]indexedCheck{}
	for i, c := range run.Checks {
		k := key{c.Version, c.Area}
		byKey[k] = append(byKey[k], indexedCheck{c, i})
	}
	stamp := run.Started.Format("2006-01-02T15:04:05")
	// The run's verdict comes first, as a testcase of its own: a CI job
	// that reads only the XML sees what the exit code says (a stale
	// baseline entry fails the run though no check does; a run that
	// judged nothing must not turn green on its skips).
	vsuite := junitVerdict(run, opts, stamp)
	doc.Suites = append(doc.Suites, vsuite)
	doc.Tests++
	doc.Failures += vsuite.Failures
	doc.Errors += vsuite.Errors
	// A problem seen in several versions is told in full once, in the
	// first; the others point there.
	firstOf := map[int]CheckKey{}
	for _, is := range Issues(run) {
		for _, i := range is.Checks[1:] {
			firstOf[i] = is.Where[0]
		}
	}
	// Suites with broken checks first, in version and area order.
	type suiteKey struct {
		v    spec.Version
		area string
	}
	var order []suiteKey
	for _, vs := range sum.Versions {
		for _, area := range areasOf(vs.Cells) {
			order = append(order, suiteKey{vs.Version, area})
		}
	}
	broken := func(k suiteKey) bool {
		for _, c := range byKey[key{k.v, k.area}] {
			if c.Broken() && !c.Baselined {
				return true
			}
		}
		return false
	}
	sort.SliceStable(order, func(i, k int) bool { return broken(order[i]) && !broken(order[k]) })
	for _, sk := range order {
		{
			version, area := sk.v, sk.area
			checks := byKey[key{version, area}]
			sort.SliceStable(checks, func(i, k int) bool {
				bi, bk := checks[i].Broken() && !checks[i].Baselined, checks[k].Broken() && !checks[k].Baselined
				return bi && !bk
			})
			s := junitSuite{Name: xs(string(version) + "/" + area), Timestamp: stamp}
			s.Properties = []junitProperty{{"protocolVersion", xs(string(version))}, {"area", xs(area)}}
			if run.Target.Role != "" {
				s.Properties = append(s.Properties, junitProperty{"role", xs(run.Target.Role)})
			}
			var total time.Duration
			for _, c := range checks {
				tc := junitCaseOf(run, c, opts.Verbose, firstOf)
				s.Tests++
				total += c.Duration
				switch {
				case tc.Failure != nil:
					s.Failures++
				case tc.Error != nil:
					s.Errors++
				case tc.Skipped != nil:
					s.Skipped++
				}
				s.Cases = append(s.Cases, tc)
			}
			s.Time = seconds(total)
			doc.Tests += s.Tests
			doc.Failures += s.Failures
			doc.Errors += s.Errors
			doc.Skipped += s.Skipped
			doc.Suites = append(doc.Suites, s)
		}
	}
	doc.Suites = append(doc.Suites, junitSideEffects(run)...)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	return nil
}

func toolName(run *Run) string {
	if run.Tool.Name == "" {
		return "mcpcheck"
	}
	return run.Tool.Name
}

// indexedCheck is a check with its index in Run.Checks.
type indexedCheck struct {
	Check
	i int
}

// junitVerdict is the suite that holds the run's verdict (see WriteJUnit):
// one testcase, "verdict", which passes on pass and incomplete, fails on
// fail and is in error when the run was not judged or was interrupted.
func junitVerdict(run *Run, opts Options, stamp string) junitSuite {
	j, word := verdictOf(run, opts)
	sentence := string(word) + ": " + tidy(j.Reason(opts.Strict))
	tc := junitCase{Name: "verdict", Classname: "mcpcheck.verdict", Time: seconds(0),
		Properties: []junitProperty{{"outcome", "verdict"}, {"verdict", string(word)}}}
	s := junitSuite{Name: "mcpcheck/verdict", Tests: 1, Time: seconds(0), Timestamp: stamp, Properties: []junitProperty{{"verdict", string(word)}}}
	switch word {
	case VerdictFail:
		tc.Failure = &junitResult{Message: xs(truncate(oneLine(sentence), 300)), Type: "verdict", Text: xs(sentence)}
		s.Failures = 1
	case VerdictNotJudged, VerdictInterrupted:
		tc.Error = &junitResult{Message: xs(truncate(oneLine(sentence), 300)), Type: strings.ReplaceAll(string(word), " ", "-"), Text: xs(sentence)}
		s.Errors = 1
		s.Properties = append(s.Properties, junitProperty{"unjudged", xs(oneLine(j.Unjudged))})
	default:
		out := xmlText(xs(sentence))
		tc.SystemOut = &out
	}
	s.Cases = []junitCase{tc}
	return s
}

// xs makes a string safe for XML 1.0 (see printable).
func xs(s string) string { return printable(s) }

func junitCaseOf(run *Run, ic indexedCheck, verbose bool, firstOf map[int]CheckKey) junitCase {
	c := ic.Check
	name := c.ID
	if c.Transport != "" {
		name += " [" + c.Transport + "]"
	}
	tc := junitCase{
		Name:      xs(name),
		Classname: xs("mcpcheck." + string(c.Version) + "." + c.Area),
		Time:      seconds(c.Duration),
	}
	tc.Properties = []junitProperty{
		{"outcome", c.Outcome.String()},
		{"level", xs(string(c.Level))},
		{"version", xs(string(c.Version))},
		{"transport", xs(c.Transport)},
	}
	for _, id := range c.Requirements {
		tc.Properties = append(tc.Properties, junitProperty{"requirement", xs(id)})
	}
	if c.Baselined && c.Broken() {
		tc.Properties = append(tc.Properties, junitProperty{"baselined", "true"}, junitProperty{"baselineReason", xs(oneLine(c.BaselineReason))})
	}
	var details string
	if first, ok := firstOf[ic.i]; ok && !verbose {
		details = xs(repeatDetails(c, first))
	} else {
		details = xs(checkDetails(run, c, verbose))
	}
	switch {
	case c.Baselined && (c.Outcome == Fail || c.Outcome == Error):
		tc.Skipped = &junitResult{Message: xs("baselined (expected failure): " + oneLine(c.BaselineReason)), Text: details}
	case c.Outcome == Fail:
		tc.Failure = &junitResult{Message: xs(failMessage(c)), Type: xs(string(c.Level)), Text: details}
	case c.Outcome == Error:
		tc.Error = &junitResult{Message: xs(truncate(oneLine(orElse(c.Reason, "the harness failed")), 300)), Type: "harness", Text: details}
	case c.Outcome == Warn:
		out := xmlText(details)
		tc.SystemOut = &out
	case c.Outcome == NA:
		tc.Skipped = &junitResult{Message: xs("n/a: " + oneLine(orElse(c.Reason, "does not apply")))}
	case c.Outcome == Untestable:
		tc.Skipped = &junitResult{Message: xs("untestable: " + oneLine(orElse(c.Reason, "a needed fixture or trigger is absent")))}
	}
	return tc
}

func orElse(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// failMessage is a one-line summary of a broken check.
func failMessage(c Check) string {
	var parts []string
	if c.Level != "" {
		parts = append(parts, string(c.Level)+" broken")
	}
	if c.Expected != "" {
		parts = append(parts, "expected "+oneLine(c.Expected))
	}
	if c.Actual != "" {
		parts = append(parts, "actual "+oneLine(c.Actual))
	}
	if len(parts) == 0 {
		parts = append(parts, orElse(c.Title, c.ID))
	}
	return truncate(strings.Join(parts, "; "), 300)
}

// repeatDetails is the body of a broken check whose problem the report
// tells in full in another version's testcase (first).
func repeatDetails(c Check, first CheckKey) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", c.Outcome.Label(), c.Key())
	if c.Level != "" {
		fmt.Fprintf(&b, " (%s)", c.Level)
	}
	fmt.Fprintf(&b, "\nthe same problem as in %s: its testcase has the requirements, expected versus actual and the evidence\n", first)
	if c.Actual != "" {
		fmt.Fprintf(&b, "actual: %s\n", tidy(c.Actual))
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", tidy(c.Reason))
	}
	return b.String()
}

// checkDetails is the plain-text body shared by JUnit and SARIF: outcome,
// requirements with summaries and sources, expected, actual, reason, and
// the evidence (see Evidence), or with verbose the whole transcript.
func checkDetails(run *Run, c Check, verbose bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", c.Outcome.Label(), c.Key())
	if c.Level != "" {
		fmt.Fprintf(&b, " (%s)", c.Level)
	}
	b.WriteString("\n")
	if c.Title != "" {
		fmt.Fprintf(&b, "%s\n", c.Title)
	}
	for _, id := range c.Requirements {
		if r, ok := run.Requirements[id]; ok {
			fmt.Fprintf(&b, "requirement %s (%s): %s\n  source: %s\n", id, r.Level, r.Summary, r.Source())
		} else {
			fmt.Fprintf(&b, "requirement %s\n", id)
		}
	}
	if c.Expected != "" {
		fmt.Fprintf(&b, "expected: %s\n", tidy(c.Expected))
	}
	if c.Actual != "" {
		fmt.Fprintf(&b, "actual: %s\n", tidy(c.Actual))
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", tidy(c.Reason))
	}
	if c.Baselined {
		fmt.Fprintf(&b, "baselined: %s\n", c.BaselineReason)
	}
	if verbose && len(c.Transcript) > 0 {
		b.WriteString("transcript:\n")
		for _, e := range c.Transcript {
			b.WriteString("  " + eventLine(e, true, "    ") + "\n")
		}
	} else if ev := EvidenceOf(c); len(ev.Events) > 0 {
		fmt.Fprintf(&b, "%s:\n", evidenceHead(c.Key(), ev))
		for _, l := range evidenceLines(ev) {
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}
