package reports

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reports/browsertest"
)

// pwnPayload is target-controlled text that, if it ever became markup,
// would run script that renames the document and marks <html>. The browser
// tests assert neither happened while the report's own script did run.
const pwnPayload = `<script>document.title='PWNED';document.documentElement.setAttribute('data-pwned','script')</script>` +
	`"><img src=x onerror="document.title='PWNED';document.documentElement.setAttribute('data-pwned','img')">` +
	`'><svg onload="document.title='PWNED'"></svg></textarea></pre></details></table>` +
	`<script>document.title='PWNED'</script><a href="javascript:document.title='PWNED'">x</a>`

// setAllStrings sets every settable string reachable from v to
// pwnPayload plus its path.
func setAllStrings(v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			setAllStrings(v.Elem(), path)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(pwnPayload + " @" + path)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				setAllStrings(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			setAllStrings(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// pwnRun is the sample run with every string (tool names, titles,
// messages, transcripts, target command) replaced by pwnPayload, except
// the outcomes and the cited requirement IDs, which stay resolvable.
func pwnRun(t *testing.T) *Run {
	run := sampleRun(t)
	run.Requirements = nil
	ids := make([][]string, len(run.Checks))
	for i, c := range run.Checks {
		ids[i] = c.Requirements
	}
	setAllStrings(reflect.ValueOf(run), "run")
	for i := range run.Checks {
		run.Checks[i].Requirements = ids[i]
		for j := range run.Checks[i].Transcript {
			run.Checks[i].Transcript[j].Base64 = false
		}
	}
	if run.Fuzz != nil {
		for i := range run.Fuzz.Findings {
			for j := range run.Fuzz.Findings[i].Transcript {
				run.Fuzz.Findings[i].Transcript[j].Base64 = false
			}
		}
	}
	return run
}

func writeHTMLFile(t *testing.T, dir, name string, write func(*bytes.Buffer) error) string {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatalf("render %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// browserContext bounds a browser test's renders, and each start of b:
// the browser tests run at the same time, so on a loaded 2-core machine
// a start can take longer than browsertest's default minute without
// anything being wrong with the page.
func browserContext(t *testing.T, b *browsertest.Browser) context.Context {
	b.Timeout = 2 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// assertNotPwned fails t when the page's title or <html> shows that
// injected script ran, or when the page has script elements or event
// handler attributes beyond the report's own single script.
func assertNotPwned(t *testing.T, name, dom string) {
	t.Helper()
	if title := browsertest.Title(dom); strings.HasPrefix(title, "PWNED") {
		t.Errorf("%s: injected script ran in the browser: document.title is %q", name, title)
	}
	if n := browsertest.Count(dom, `^<html[^>]*\sdata-pwned=`); n != 0 {
		t.Errorf("%s: injected script ran in the browser: <html> carries data-pwned", name)
	}
	if n := browsertest.Count(dom, `^<script[\s>]`); n != 1 {
		t.Errorf("%s: the rendered page has %d <script> elements, want only the report's own 1", name, n)
	}
	for _, attr := range []string{"onerror", "onload", "onclick"} {
		if browsertest.HasAttribute(dom, attr) {
			t.Errorf("%s: the rendered page has an element with an %s attribute: target text became markup", name, attr)
		}
	}
	if browsertest.Count(dom, `^<a\s[^>]*href="javascript:`) != 0 {
		t.Errorf("%s: the rendered page has a javascript: link", name)
	}
}

// TestHTMLReportInChromium renders the sample run's HTML report in headless
// Chromium and checks the page as a reader sees it after its script ran:
// the verdict, the problems first (the first failure on the first
// 1280×800 screen), one badge per check and outcome in the table of all
// checks, the filter count, a screenshot and a printed PDF (kept as
// artifacts).
func TestHTMLReportInChromium(t *testing.T) {
	t.Parallel()
	b := browsertest.Chromium(t)
	ctx := browserContext(t, b)
	art := browsertest.Artifacts(t)
	run := sampleRun(t)
	page := writeHTMLFile(t, art, "report.html", func(w *bytes.Buffer) error { return WriteHTML(w, run, testOptions(t)) })

	// Three starts of the browser: the page itself (its DOM, a screenshot
	// of 1280×2400 and the print), a measured copy at 1280×800 (where the
	// first failure lies, what overflows, the first screen's screenshot)
	// and one at 794 px (what overflows).
	shot, pdf := filepath.Join(art, "report.png"), filepath.Join(art, "report.pdf")
	dom, err := b.Render(ctx, page, browsertest.Shots{Width: 1280, Height: 2400, Screenshot: shot, PDF: pdf})
	if err != nil {
		t.Fatalf("render the report: %v", err)
	}
	if err := os.WriteFile(filepath.Join(art, "report.dom.html"), []byte(dom), 0o644); err != nil {
		t.Fatal(err)
	}
	prepared, err := Prepare(run, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := "CI verdict: <strong>fail</strong>."; !strings.Contains(dom, want) {
		t.Errorf("the rendered page does not show the verdict %q", want)
	}
	want := map[Outcome]int{}
	ids := map[string]bool{}
	for _, c := range prepared.Checks {
		want[c.Outcome]++
		ids[c.ID] = true
	}
	for _, o := range Outcomes {
		if got := browsertest.Count(dom, `^<(a|span) class="cb o-`+o.String()+`"`); got != want[o] {
			t.Errorf("the table of checks has %d %s verdicts, want %d", got, o, want[o])
		}
	}
	issues, _ := htmlIssues(prepared, Issues(prepared))
	if got := browsertest.Count(dom, `^<details class="issue o-`); got != len(issues) || got == 0 {
		t.Errorf("the rendered page has %d problem entries, want %d", got, len(issues))
	}
	if got, want := browsertest.ElementText(dom, "not-tested"), fmt.Sprintf("%d untestable", want[Untestable]); got != want {
		t.Errorf("the page says %q about what was not tested, want %q", got, want)
	}
	section := ""
	if i := strings.Index(dom, `id="untestable"`); i >= 0 {
		section = dom[i:]
	}
	for _, c := range prepared.Checks {
		if c.Outcome == Untestable && !strings.Contains(section, c.ID) {
			t.Errorf("the section of untestable checks does not name %s", c.ID)
		}
	}
	const boxes = ".card, header, details.issue, table.checks"
	box, wide, err := b.Measure(ctx, page, 1280, 800, "details.issue.o-fail", boxes, filepath.Join(art, "report-first-screen.png"))
	if err != nil {
		t.Fatal(err)
	}
	if !box.Found || !box.Visible || box.Top >= 800 {
		t.Errorf("the first failure is not on the first 1280×800 screen: %+v", box)
	}
	narrow, err := b.Layout(ctx, page, 794, boxes)
	if err != nil {
		t.Fatalf("measure the layout at 794px: %v", err)
	}
	for width, l := range map[int]browsertest.Layout{1280: wide, 794: narrow} {
		for _, o := range l.Overflows {
			t.Errorf("at %dpx wide: %s", width, o)
		}
	}
	if got, wantCount := browsertest.ElementText(dom, "f-count"), fmt.Sprintf("%d of %d checks", len(ids), len(ids)); got != wantCount {
		t.Errorf("the filter count reads %q, want %q: did the report's script run?", got, wantCount)
	}
	assertNotPwned(t, "sample report", dom)

	if pdftoppm, err := exec.LookPath("pdftoppm"); err == nil {
		cmd := exec.CommandContext(ctx, pdftoppm, "-png", "-r", "60", "-f", "1", "-l", "3", pdf, filepath.Join(art, "report-print"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("pdftoppm could not read the printed report: %v: %s", err, out)
		}
	}
	t.Logf("rendered report, DOM, screenshot and print in %s", art)
}

// TestHostileHTMLInChromium renders reports whose every target-controlled
// string is script and markup, and proves in a real browser that none of
// it executed or became elements.
func TestHostileHTMLInChromium(t *testing.T) {
	t.Parallel()
	b := browsertest.Chromium(t)
	ctx := browserContext(t, b)
	art := browsertest.Artifacts(t)
	run := pwnRun(t)
	report := writeHTMLFile(t, art, "hostile-report.html", func(w *bytes.Buffer) error { return WriteHTML(w, run, testOptions(t)) })
	m, err := BuildMatrix(pwnPayload, []MatrixInput{{Name: pwnPayload, Description: pwnPayload, Run: run}, {Run: sampleRun(t)}}, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	matrix := writeHTMLFile(t, art, "hostile-matrix.html", func(w *bytes.Buffer) error { return m.WriteHTML(w) })
	for _, page := range []string{report, matrix} {
		var shots browsertest.Shots
		if page == report {
			shots = browsertest.Shots{Width: 1280, Height: 1600, Screenshot: filepath.Join(art, "hostile-report.png")}
		}
		dom, err := b.Render(ctx, page, shots)
		if err != nil {
			t.Fatalf("render %s: %v", page, err)
		}
		name := filepath.Base(page)
		assertNotPwned(t, name, dom)
		if got := browsertest.ElementText(dom, "f-count"); !regexp.MustCompile(`^\d+ of \d+ `).MatchString(got) {
			t.Errorf("%s: the filter count reads %q: the page's own script did not run, so the test proves nothing", name, got)
		}
		if !strings.Contains(dom, "PWNED") {
			t.Errorf("%s: the hostile text is not shown at all; it must be shown, escaped", name)
		}
	}
	t.Logf("rendered hostile pages in %s", art)
}

// TestMatrixInChromium renders a matrix of two runs and checks the server
// cards, the failing cells and that the filter script ran.
func TestMatrixInChromium(t *testing.T) {
	t.Parallel()
	b := browsertest.Chromium(t)
	ctx := browserContext(t, b)
	art := browsertest.Artifacts(t)
	m := sampleMatrix(t)
	page := writeHTMLFile(t, art, "matrix.html", func(w *bytes.Buffer) error { return m.WriteHTML(w) })
	dom, err := b.Render(ctx, page, browsertest.Shots{Width: 1280, Height: 1400, Screenshot: filepath.Join(art, "matrix.png")})
	if err != nil {
		t.Fatalf("render the matrix: %v", err)
	}
	wantFail := 0
	for _, r := range m.Rows {
		for _, c := range r.Cells {
			if c.Outcome() == Fail {
				wantFail++
			}
		}
	}
	if got := browsertest.Count(dom, `^<td class="c o-fail"`); got != wantFail || wantFail == 0 {
		t.Errorf("the rendered matrix has %d failing cells, want %d (and more than 0)", got, wantFail)
	}
	if got, want := browsertest.ElementText(dom, "f-count"), fmt.Sprintf("%d of %d requirements", len(m.Rows), len(m.Rows)); got != want {
		t.Errorf("the filter count reads %q, want %q", got, want)
	}
	if got := browsertest.Count(dom, `^<div class="card" data-server=`); got != len(m.Servers) {
		t.Errorf("the rendered matrix has %d server cards, want %d", got, len(m.Servers))
	}
	t.Logf("rendered matrix and screenshot in %s", art)
}
