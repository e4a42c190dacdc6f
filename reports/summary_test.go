package reports

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

func TestRateDefinition(t *testing.T) {
	cases := []struct {
		r       Rate
		percent string
		defined bool
	}{
		{Rate{}, "n/a", false},
		{Rate{NA: 3, Untestable: 2, Error: 1}, "n/a", false}, // nothing judged is not 100%
		{Rate{Pass: 4}, "100%", true},
		{Rate{Pass: 4, NA: 10, Untestable: 10}, "100%", true}, // n/a and untestable are outside the denominator
		{Rate{Pass: 1, Broken: 2}, "33.3%", true},
		{Rate{Pass: 1999, Broken: 1}, "99.9%", true}, // rounds down: never shows 100% with a failure
		{Rate{Broken: 5}, "0.0%", true},
	}
	for _, c := range cases {
		if got := c.r.Percent(); got != c.percent {
			t.Errorf("%+v.Percent() = %q, want %q", c.r, got, c.percent)
		}
		if _, ok := c.r.Value(); ok != c.defined {
			t.Errorf("%+v.Value() defined = %v, want %v", c.r, ok, c.defined)
		}
	}
}

func TestSummarize(t *testing.T) {
	run := &Run{Versions: []spec.Version{"2026-07-28", "2025-11-25"}, Checks: []Check{
		{ID: "1", Version: "2025-11-25", Area: "tools", Level: catalog.Must, Outcome: Pass},
		{ID: "2", Version: "2025-11-25", Area: "tools", Level: catalog.MustNot, Outcome: Fail},
		{ID: "3", Version: "2025-11-25", Area: "lifecycle", Level: catalog.Must, Outcome: Untestable},
		{ID: "4", Version: "2025-11-25", Area: "lifecycle", Level: catalog.Should, Outcome: Warn, Baselined: true},
		{ID: "5", Version: "2025-11-25", Area: "lifecycle", Level: catalog.ShouldNot, Outcome: Pass},
		{ID: "6", Version: "2025-11-25", Area: "zzz-unknown", Level: catalog.May, Outcome: NA},
		{ID: "7", Version: "2026-07-28", Area: "ping", Level: catalog.Must, Outcome: Error},
		{ID: "8", Version: "2024-11-05", Area: "ping", Level: catalog.Must, Outcome: Pass},
	}}
	s := Summarize(run)
	if got := []spec.Version{s.Versions[0].Version, s.Versions[1].Version, s.Versions[2].Version}; !cmp.Equal(got, []spec.Version{"2024-11-05", "2025-11-25", "2026-07-28"}) {
		t.Errorf("versions in order %v, want oldest first including versions only checks name", got)
	}
	v := s.Versions[1]
	if want := (Rate{Pass: 1, Broken: 1, Untestable: 1}); v.Must != want {
		t.Errorf("2025-11-25 MUST rate %+v, want %+v (MUST and MUST NOT; untestable outside)", v.Must, want)
	}
	if want := (Rate{Pass: 1, Broken: 1}); v.Should != want {
		t.Errorf("2025-11-25 SHOULD rate %+v, want %+v (SHOULD and SHOULD NOT)", v.Should, want)
	}
	if want := (Counts{Pass: 2, Fail: 1, Warn: 1, NA: 1, Untestable: 1, Baselined: 1}); v.Counts != want {
		t.Errorf("2025-11-25 counts %+v, want %+v", v.Counts, want)
	}
	var cells []string
	for _, c := range v.Cells {
		cells = append(cells, c.Area+" "+string(c.Level)+" "+c.Counts.Worst().String())
	}
	want := []string{"lifecycle MUST untestable", "lifecycle SHOULD warn", "lifecycle SHOULD NOT pass", "tools MUST pass", "tools MUST NOT fail", "zzz-unknown MAY na"}
	if diff := cmp.Diff(want, cells); diff != "" {
		t.Errorf("cells in catalog area order, levels strongest first (-want +got)\n%s", diff)
	}
	if s.Headline != "fail" || s.Versions[0].Headline != "pass" || s.Versions[2].Headline != "error" {
		t.Errorf("headlines %q %q %q", s.Headline, s.Versions[0].Headline, s.Versions[2].Headline)
	}
}

func TestHeadlineAndWorst(t *testing.T) {
	cases := []struct {
		c        Counts
		headline string
		worst    Outcome
	}{
		{Counts{}, "none", 0},
		{Counts{NA: 2}, "none", NA},
		{Counts{Pass: 3, NA: 2}, "pass", Pass},
		{Counts{Pass: 3, Untestable: 1}, "incomplete", Untestable}, // untestable is never green
		{Counts{Pass: 3, Warn: 1, Untestable: 1}, "warn", Warn},
		{Counts{Pass: 3, Warn: 1, Error: 1}, "error", Error},
		{Counts{Fail: 1, Error: 1}, "fail", Fail},
	}
	for _, c := range cases {
		if got := c.c.Headline(); got != c.headline {
			t.Errorf("%+v.Headline() = %q, want %q", c.c, got, c.headline)
		}
		if got := c.c.Worst(); got != c.worst {
			t.Errorf("%+v.Worst() = %v, want %v", c.c, got, c.worst)
		}
	}
}

func TestOutcomeText(t *testing.T) {
	for _, o := range Outcomes {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var back Outcome
		if err := json.Unmarshal(b, &back); err != nil || back != o {
			t.Errorf("%v: JSON %s came back as %v, %v", o, b, back, err)
		}
	}
	if _, err := json.Marshal(Outcome(0)); err == nil {
		t.Error("marshalling an unset outcome must fail")
	}
	var o Outcome
	if err := json.Unmarshal([]byte(`"green"`), &o); err == nil {
		t.Error(`"green" is not an outcome`)
	}
	if o, err := ParseOutcome("n/a"); err != nil || o != NA {
		t.Errorf(`ParseOutcome("n/a") = %v, %v`, o, err)
	}
}

func TestRawBytes(t *testing.T) {
	for _, in := range [][]byte{[]byte("plain {\"a\":1}\n"), {0xff, 0x00, 'x'}, {}} {
		raw, b64 := RawBytes(in)
		back, err := WireEvent{Raw: raw, Base64: b64}.Bytes()
		if err != nil || string(back) != string(in) {
			t.Errorf("RawBytes(%q) did not round-trip: %q, %v", in, back, err)
		}
	}
	if _, err := (WireEvent{Raw: "%%%", Base64: true}).Bytes(); err == nil {
		t.Error("a base64 flag on text that does not decode must be an error")
	}
}

// TestUnspokenVersionIsNoPass: a version the server said it does not speak
// is headed "unspoken", not "pass", whatever its negotiation checks
// found, unless one of them broke something; a run of only such versions
// is headed so too, and a spoken version beside it keeps its verdict.
func TestUnspokenVersionIsNoPass(t *testing.T) {
	run := &Run{Versions: []spec.Version{spec.V20251125, spec.V20260728}, Unspoken: []spec.Version{spec.V20260728}}
	add := func(v spec.Version, o Outcome, n int) {
		for i := 0; i < n; i++ {
			run.Checks = append(run.Checks, Check{ID: fmt.Sprintf("x/%s-%d", o, i), Version: v, Outcome: o, Level: catalog.Must})
		}
	}
	add(spec.V20260728, Pass, 1)
	add(spec.V20260728, NA, 88)
	add(spec.V20251125, Pass, 40)
	s := Summarize(run)
	if s.Versions[1].Headline != "unspoken" || s.Versions[0].Headline != "pass" || s.Headline != "pass" {
		t.Errorf("headlines %s / %s, overall %s; want pass / unspoken, overall pass", s.Versions[0].Headline, s.Versions[1].Headline, s.Headline)
	}
	run.Versions, run.Checks = run.Versions[1:], run.Checks[:89]
	if s := Summarize(run); s.Headline != "unspoken" {
		t.Errorf("a run of only an unspoken version is headed %s, want unspoken", s.Headline)
	}
	add(spec.V20260728, Fail, 1)
	if s := Summarize(run); s.Versions[0].Headline != "fail" {
		t.Errorf("an unspoken version whose negotiation check failed is headed %s, want fail", s.Versions[0].Headline)
	}
}
