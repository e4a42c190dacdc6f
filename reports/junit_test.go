package reports

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// Types a JUnit consumer would use to read the report back.
type readSuites struct {
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Suites   []readSuite `xml:"testsuite"`
}

type readSuite struct {
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Cases    []readCase `xml:"testcase"`
}

type readCase struct {
	Name       string     `xml:"name,attr"`
	Classname  string     `xml:"classname,attr"`
	Properties []readProp `xml:"properties>property"`
	Failure    *readMsg   `xml:"failure"`
	Error      *readMsg   `xml:"error"`
	Skipped    *readMsg   `xml:"skipped"`
	SystemOut  string     `xml:"system-out"`
}

type readProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type readMsg struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func (c readCase) prop(name string) string {
	for _, p := range c.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

func TestJUnitCountsMatchTheModel(t *testing.T) {
	run := sampleRun(t)
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	var got readSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("the JUnit report does not parse: %v", err)
	}

	// What the model says, after Prepare (the unset outcome is an error),
	// and the verdict's own testcase, which fails with the run.
	prepared, _ := Prepare(run, testOptions(t))
	var want struct{ tests, failures, errors, skipped int }
	want.tests++
	if Verdict(prepared).Word(false) != VerdictFail {
		t.Fatalf("the sample run's verdict is %q, want fail", Verdict(prepared).Word(false))
	}
	want.failures++
	for _, c := range prepared.Checks {
		want.tests++
		switch {
		case c.Baselined && (c.Outcome == Fail || c.Outcome == Error):
			want.skipped++
		case c.Outcome == Fail:
			want.failures++
		case c.Outcome == Error:
			want.errors++
		case c.Outcome == NA || c.Outcome == Untestable:
			want.skipped++
		}
	}
	if got.Tests != want.tests || got.Failures != want.failures || got.Errors != want.errors || got.Skipped != want.skipped {
		t.Errorf("testsuites counts tests/failures/errors/skipped = %d/%d/%d/%d, want %d/%d/%d/%d",
			got.Tests, got.Failures, got.Errors, got.Skipped, want.tests, want.failures, want.errors, want.skipped)
	}

	// Suite attributes agree with their testcases, and every testcase's
	// element agrees with its outcome property.
	var cases, failures, errors, skipped int
	for _, s := range got.Suites {
		var f, e, sk int
		for _, c := range s.Cases {
			outcome := c.prop("outcome")
			baselined := c.prop("baselined") == "true"
			if outcome == "verdict" {
				if c.Failure == nil || c.Failure.Type != "verdict" || c.prop("verdict") != "fail" {
					t.Errorf("the verdict testcase of a failing run: %+v", c)
				} else {
					f++
				}
				continue
			}
			switch {
			case c.Failure != nil:
				f++
				if outcome != "fail" || baselined {
					t.Errorf("%s: <failure> on a check with outcome %q baselined=%v", c.Name, outcome, baselined)
				}
				if c.Failure.Type == "" || c.Failure.Message == "" {
					t.Errorf("%s: <failure> needs a type and a message, got %+v", c.Name, c.Failure)
				}
			case c.Error != nil:
				e++
				if outcome != "error" {
					t.Errorf("%s: <error> on a check with outcome %q", c.Name, outcome)
				}
			case c.Skipped != nil:
				sk++
				ok := outcome == "na" && strings.HasPrefix(c.Skipped.Message, "n/a: ") ||
					outcome == "untestable" && strings.HasPrefix(c.Skipped.Message, "untestable: ") ||
					baselined && strings.HasPrefix(c.Skipped.Message, "baselined")
				if !ok {
					t.Errorf("%s: <skipped message=%q> on a check with outcome %q baselined=%v", c.Name, c.Skipped.Message, outcome, baselined)
				}
			default:
				if outcome != "pass" && outcome != "warn" {
					t.Errorf("%s: a plain testcase for outcome %q: only pass and warn may pass", c.Name, outcome)
				}
				if outcome == "warn" && !strings.HasPrefix(c.SystemOut, "WARN ") {
					t.Errorf("%s: a warning must say WARN in <system-out>, got %q", c.Name, c.SystemOut)
				}
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
			t.Errorf("suite %s says %d/%d/%d/%d, its testcases %d/%d/%d/%d", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), f, e, sk)
		}
		cases += len(s.Cases)
		failures += f
		errors += e
		skipped += sk
	}
	if cases != got.Tests || failures != got.Failures || errors != got.Errors || skipped != got.Skipped {
		t.Errorf("testsuites totals do not add up over the suites")
	}
}

func TestJUnitKeepsControlCharactersVisible(t *testing.T) {
	run := &Run{Checks: []Check{{
		ID: "x/y", Version: "2025-11-25", Area: "base", Level: "MUST", Outcome: Fail,
		Actual: "bell\x07 nul\x00 esc\x1b[0m bad\xff cr\r", Title: "ff\x0c vt\x0b",
	}}}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	checkWellFormedXML(t, "junit", buf.String())
	var got readSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	text := got.Suites[1].Cases[0].Failure.Text // after the verdict's suite
	for _, want := range []string{`bell\u0007`, `nul\u0000`, `esc\u001b[0m`, `bad\xff`, `cr\u000d`, `ff\u000c vt\u000b`} {
		if !strings.Contains(text, want) {
			t.Errorf("failure text lacks %q: control characters must be encoded visibly, not dropped; got %q", want, text)
		}
	}
}
