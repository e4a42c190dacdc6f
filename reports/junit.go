package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
)

// JUnit XML, in the dialect Jenkins, GitLab, GitHub test reporters and
// Azure DevOps read: <testsuites> holding one <testsuite> per protocol
// version and area, one <testcase> per check.
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
//     expected versus actual and the transcript in its text.
//   - error: <error type="harness" message="reason">.
//   - warn: passes (JUnit has no warning), with the details in
//     <system-out> starting "WARN" and the property outcome=warn. This keeps
//     SHOULD findings visible without failing builds that only gate on MUSTs.
//   - n/a and untestable: <skipped message="n/a: reason"> and
//     <skipped message="untestable: reason">, never a pass.
//   - a baselined fail or error: <skipped message="baselined (expected
//     failure): reason"> with properties outcome=fail and baselined=true.
//
// A run that is no verdict on its target (Judgement.Unjudged: Run.Unjudged,
// harness problems, an interruption) comes first as a suite
// "mcpcheck/verdict" with the property unjudged and one testcase, "judged
// what it set out to", in <error type="not-judged" message="not judged:
// reason">, counted in the totals.
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
	byKey := map[key][]Check{}
	for _, c := range run.Checks {
		k := key{c.Version, c.Area}
		byKey[k] = append(byKey[k], c)
	}
	stamp := run.Started.Format("2006-01-02T15:04:05")
	// A run that is no verdict on its target (it judged nothing, or not
	// all it set out to) says so first, as a testcase in error: a CI job
	// that reads only the XML must not turn green on its skips.
	if why := Verdict(run).Unjudged; why != "" {
		doc.Suites = append(doc.Suites, junitUnjudged(why, stamp))
		doc.Tests++
		doc.Errors++
	}
	for _, vs := range sum.Versions {
		for _, area := range areasOf(vs.Cells) {
			checks := byKey[key{vs.Version, area}]
			s := junitSuite{Name: xs(string(vs.Version) + "/" + area), Timestamp: stamp}
			s.Properties = []junitProperty{{"protocolVersion", xs(string(vs.Version))}, {"area", xs(area)}}
			if run.Target.Role != "" {
				s.Properties = append(s.Properties, junitProperty{"role", xs(run.Target.Role)})
			}
			var total time.Duration
			for _, c := range checks {
				tc := junitCaseOf(run, c)
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

// junitUnjudged is the suite that says why a run is no verdict on its
// target (see WriteJUnit).
func junitUnjudged(why, stamp string) junitSuite {
	tc := junitCase{Name: "judged what it set out to", Classname: "mcpcheck.verdict", Time: seconds(0),
		Properties: []junitProperty{{"outcome", "not judged"}},
		Error:      &junitResult{Message: xs(truncate(oneLine("not judged: "+why), 300)), Type: "not-judged", Text: xs(why)}}
	return junitSuite{Name: "mcpcheck/verdict", Tests: 1, Errors: 1, Time: seconds(0), Timestamp: stamp,
		Properties: []junitProperty{{"unjudged", xs(oneLine(why))}}, Cases: []junitCase{tc}}
}

// xs makes a string safe for XML 1.0 (see printable).
func xs(s string) string { return printable(s) }

func junitCaseOf(run *Run, c Check) junitCase {
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
	details := xs(checkDetails(run, c))
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

// checkDetails is the plain-text body shared by JUnit and SARIF: outcome,
// requirements with summaries and sources, expected, actual, reason, and
// the whole transcript.
func checkDetails(run *Run, c Check) string {
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
		fmt.Fprintf(&b, "expected: %s\n", c.Expected)
	}
	if c.Actual != "" {
		fmt.Fprintf(&b, "actual: %s\n", c.Actual)
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", c.Reason)
	}
	if c.Baselined {
		fmt.Fprintf(&b, "baselined: %s\n", c.BaselineReason)
	}
	if len(c.Transcript) > 0 {
		b.WriteString("transcript:\n")
		for _, e := range c.Transcript {
			b.WriteString("  " + eventLine(e, true, "    ") + "\n")
		}
	}
	return b.String()
}
