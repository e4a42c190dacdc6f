package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMeasureAddsTheScriptAndReadsItsResult runs Layout, Position and
// Measure (both in one start) against a stand-in browser (a shell script that prints the page it was
// given after an <html> tag carrying both measuring results, as Chromium's
// --dump-dom would once the scripts ran): the measured copy holds the
// page and the measuring script before </body>, the results are read
// back unescaped, and the page itself is untouched. Chromium itself is
// exercised by the reports tests that render reports (they skip without
// it).
func TestMeasureAddsTheScriptAndReadsItsResult(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in browser is a POSIX shell script")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "browser")
	script := `#!/bin/sh
for last; do :; done
printf '%s' '<html data-overflow="[&#34;a &lt;b&gt; runs 3px out of it&#34;]" data-position="{&#34;found&#34;:true,&#34;top&#34;:7,&#34;visible&#34;:true}">'
cat "${last#file://}"
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page.html")
	const src = "<html><body><p>report</p></body></html>"
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Browser{Path: fake, Timeout: time.Minute}
	ctx := context.Background()

	l, err := b.Layout(ctx, page, 1280, ".card")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Overflows) != 1 || l.Overflows[0] != "a <b> runs 3px out of it" {
		t.Errorf("overflows %q, want the one the stand-in reported, unescaped", l.Overflows)
	}
	if !strings.Contains(l.DOM, "<p>report</p>") || !strings.Contains(l.DOM, `"data-overflow"`) || strings.Index(l.DOM, "data-overflow\"") > strings.LastIndex(l.DOM, "</body>") {
		t.Errorf("the rendered copy does not hold the page with the measuring script before </body>:\n%s", l.DOM)
	}
	box, err := b.Position(ctx, page, 1280, 800, "details.issue")
	if err != nil {
		t.Fatal(err)
	}
	if !box.Found || !box.Visible || box.Top != 7 {
		t.Errorf("box %+v, want the one the stand-in reported", box)
	}
	// Both in one start: both results, both scripts in the copy.
	mbox, ml, err := b.Measure(ctx, page, 1280, 800, "details.issue", ".card", "")
	if err != nil {
		t.Fatal(err)
	}
	if mbox != box || len(ml.Overflows) != 1 || ml.Overflows[0] != l.Overflows[0] {
		t.Errorf("Measure gave %+v and %q, want what Position (%+v) and Layout (%q) gave", mbox, ml.Overflows, box, l.Overflows)
	}
	if body := ml.DOM[strings.Index(ml.DOM, "<p>report</p>"):]; !strings.Contains(body, `"data-overflow"`) || !strings.Contains(body, `"data-position"`) {
		t.Errorf("the copy Measure rendered does not hold both measuring scripts after the page:\n%s", ml.DOM)
	}
	if got, _ := os.ReadFile(page); string(got) != src {
		t.Errorf("the page was changed: %q", got)
	}

	if err := os.WriteFile(page, []byte("<html>no body</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Layout(ctx, page, 1280, ".card"); err == nil || !strings.Contains(err.Error(), "</body>") {
		t.Errorf("a page without </body>: %v, want an error saying so", err)
	}
}
