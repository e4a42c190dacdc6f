// Package browsertest renders mcpcheck's HTML reports in a real browser,
// headless Chromium, for tests: the DOM after the page's scripts ran, a
// screenshot and a printed PDF. Tests that need a browser call Chromium,
// which skips the test with a clear message when none is installed, and
// Artifacts, which says where to keep what they render.
//
// Every run of the browser uses a fresh profile directory, no network
// features (no QUIC, no background networking, no component updates, no
// sync) and a time bound; the browser's process group is killed when the
// bound passes. Pages are opened from file:// URLs only.
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Browser is a headless Chromium binary.
type Browser struct {
	// Path is the browser's executable.
	Path string
	// Timeout bounds each run of the browser; zero means 60 s.
	Timeout time.Duration
}

// candidates are the executables Find looks for, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"}

// Find locates Chromium: $MCPCHECK_CHROMIUM when set, else the first of
// chromium, chromium-browser, google-chrome, google-chrome-stable and
// headless_shell on $PATH.
func Find() (*Browser, error) {
	if p := os.Getenv("MCPCHECK_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("MCPCHECK_CHROMIUM=%s: %v", p, err)
		}
		return &Browser{Path: p}, nil
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return &Browser{Path: p}, nil
		}
	}
	return nil, fmt.Errorf("no Chromium found (looked for %s on $PATH and $MCPCHECK_CHROMIUM); install it with 'apt-get install -y chromium' on Debian", strings.Join(candidates, ", "))
}

// Chromium returns the browser, or skips t saying how to install one. It
// skips under go test -short too: a browser run takes seconds.
func Chromium(t testing.TB) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping the browser test in -short mode")
	}
	b, err := Find()
	if err != nil {
		t.Skipf("skipping the browser test: %v", err)
	}
	return b
}

// Artifacts returns a directory for t's rendered files that outlives the
// test: $MCPCHECK_ARTIFACTS/<test name> when set, else
// <os temp dir>/mcpcheck-artifacts/<test name>. It is emptied first.
func Artifacts(t testing.TB) string {
	t.Helper()
	root := os.Getenv("MCPCHECK_ARTIFACTS")
	if root == "" {
		root = filepath.Join(os.TempDir(), "mcpcheck-artifacts")
	}
	dir := filepath.Join(root, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatalf("clear the artifact directory %s: %v", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("create the artifact directory %s: %v", dir, err)
	}
	return dir
}

// flags are passed to every run: headless, no sandbox (containers run as
// root), and nothing that talks to the network on its own.
var flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
	"--no-default-browser-check", "--disable-dev-shm-usage",
}

// crashRetries is how many times a browser that died of a signal on its
// own (a segmentation fault of a loaded machine's headless Chromium) is
// started again on the same page: the page is not at fault, and a test
// that reads it would otherwise fail at random.
const crashRetries = 2

// run starts the browser on page with extra flags and returns its stdout;
// a browser that crashed is started again (crashRetries).
func (b *Browser) run(ctx context.Context, page string, extra ...string) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		out, crashed, err := b.runOnce(ctx, page, extra...)
		if !crashed || attempt == crashRetries || ctx.Err() != nil {
			return out, err
		}
	}
}

// runOnce starts the browser once; crashed says it died of a signal it
// was not sent by the time bound.
func (b *Browser) runOnce(ctx context.Context, page string, extra ...string) (out []byte, crashed bool, err error) {
	abs, err := filepath.Abs(page)
	if err != nil {
		return nil, false, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, false, fmt.Errorf("the page to render: %v", err)
	}
	profile, err := os.MkdirTemp("", "mcpcheck-chromium-")
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(profile)
	timeout := b.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := append(append(append([]string{}, flags...), "--user-data-dir="+profile), extra...)
	args = append(args, "file://"+filepath.ToSlash(abs))
	cmd := exec.CommandContext(ctx, b.Path, args...)
	setProcessGroup(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, false, fmt.Errorf("%s did not finish rendering %s within %s; stderr: %s", b.Path, page, timeout, tail(stderr.String()))
	}
	if err != nil {
		var exit *exec.ExitError
		crashed := errors.As(err, &exit) && exit.ProcessState != nil && !exit.Exited()
		return nil, crashed, fmt.Errorf("%s failed on %s: %v; stderr: %s", b.Path, page, err, tail(stderr.String()))
	}
	return stdout.Bytes(), false, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// Screenshot renders page at width×height CSS pixels into the PNG file
// png, after the page's scripts ran.
func (b *Browser) Screenshot(ctx context.Context, page, png string, width, height int) error {
	if _, err := b.run(ctx, page, "--virtual-time-budget=5000", fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+png); err != nil {
		return err
	}
	return nonEmpty(png)
}

// Shots are the files one start of the browser writes besides the DOM
// (Render): a screenshot of the window and the printed page.
type Shots struct {
	// Width and Height are the window's size in CSS pixels; zero leaves
	// Chromium's default.
	Width, Height int
	// Screenshot, when not "", is the PNG file the window is rendered to.
	Screenshot string
	// PDF, when not "", is the file the page is printed to.
	PDF string
}

// Render loads page once, lets its scripts run (a virtual time budget of
// 5 s) and returns the serialized DOM, writing the screenshot and the PDF
// that s names in the same start of the browser: what DumpDOM,
// Screenshot and PrintPDF do, for the price of one start.
func (b *Browser) Render(ctx context.Context, page string, s Shots) (string, error) {
	args := []string{"--virtual-time-budget=5000", "--dump-dom"}
	if s.Width > 0 && s.Height > 0 {
		args = append(args, fmt.Sprintf("--window-size=%d,%d", s.Width, s.Height))
	}
	if s.Screenshot != "" {
		args = append(args, "--screenshot="+s.Screenshot)
	}
	if s.PDF != "" {
		args = append(args, "--no-pdf-header-footer", "--print-to-pdf="+s.PDF)
	}
	out, err := b.run(ctx, page, args...)
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return "", fmt.Errorf("%s printed no DOM for %s", b.Path, page)
	}
	for _, f := range []string{s.Screenshot, s.PDF} {
		if f == "" {
			continue
		}
		if err := nonEmpty(f); err != nil {
			return "", err
		}
	}
	return string(out), nil
}

// measuring is one measuring script for measure: a format with one %s
// (the selector as a JSON string) that leaves its JSON result in the
// attribute attr of <html>.
type measuring struct {
	script, attr, selector string
}

// measure renders a copy of page, with the scripts added before </body>,
// in a window width × height CSS pixels, in one start of the browser, and
// returns the DOM after the scripts ran and each script's result, in the
// order of scripts: the JSON text the script left in its attribute of
// <html>. A screenshot of the window goes to png when it is not "".
// Position, Layout and Measure measure with it; the page itself is
// untouched.
func (b *Browser) measure(ctx context.Context, page string, width, height int, png string, scripts ...measuring) (dom []byte, results [][]byte, err error) {
	src, err := os.ReadFile(page)
	if err != nil {
		return nil, nil, err
	}
	i := strings.LastIndex(string(src), "</body>")
	if i < 0 {
		return nil, nil, fmt.Errorf("%s has no </body> to put the measuring script before", page)
	}
	var added strings.Builder
	for _, m := range scripts {
		sel, _ := json.Marshal(m.selector)
		fmt.Fprintf(&added, m.script, sel)
	}
	measured := string(src[:i]) + added.String() + string(src[i:])
	dir, err := os.MkdirTemp("", "mcpcheck-measure-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, filepath.Base(page))
	if err := os.WriteFile(copyPath, []byte(measured), 0o644); err != nil {
		return nil, nil, err
	}
	args := []string{"--virtual-time-budget=5000", fmt.Sprintf("--window-size=%d,%d", width, height), "--dump-dom"}
	if png != "" {
		args = append(args, "--screenshot="+png)
	}
	dom, err = b.run(ctx, copyPath, args...)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range scripts {
		found := regexp.MustCompile(`<html[^>]*\s` + regexp.QuoteMeta(m.attr) + `="([^"]*)"`).FindSubmatch(dom)
		if found == nil {
			return nil, nil, fmt.Errorf("the measuring script did not run in %s (no %s on <html>); does the page's Content-Security-Policy allow inline script?", page, m.attr)
		}
		results = append(results, []byte(html.UnescapeString(string(found[1]))))
	}
	if png != "" {
		if err := nonEmpty(png); err != nil {
			return nil, nil, err
		}
	}
	return dom, results, nil
}

func nonEmpty(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("the browser wrote no %s: %v", path, err)
	}
	if st.Size() == 0 {
		return fmt.Errorf("the browser wrote an empty %s", path)
	}
	return nil
}

// Title returns the text of the DOM's <title> element, or "" when it has
// none.
func Title(dom string) string {
	m := titleRE.FindStringSubmatch(dom)
	if m == nil {
		return ""
	}
	return m[1]
}

var titleRE = regexp.MustCompile(`(?s)<title>(.*?)</title>`)

// Count returns how many start tags in dom match the regular expression
// tag, applied to the whole start tag ("<details ...>").
func Count(dom, tag string) int {
	re := regexp.MustCompile(tag)
	n := 0
	for _, t := range startTagRE.FindAllString(dom, -1) {
		if re.MatchString(t) {
			n++
		}
	}
	return n
}

var startTagRE = regexp.MustCompile(`<[a-zA-Z][^<>]*>`)

// ElementText returns the text inside the first element whose start tag
// carries id="id" (tags inside it stripped), or "" when there is none.
func ElementText(dom, id string) string {
	i := strings.Index(dom, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := dom[i:]
	j := strings.IndexByte(rest, '>')
	if j < 0 {
		return ""
	}
	rest = rest[j+1:]
	k := strings.Index(rest, "</")
	if k < 0 {
		return ""
	}
	return strings.TrimSpace(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(rest[:k], ""))
}

// HasAttribute reports whether any start tag in dom carries an attribute
// named name. Quoted attribute values are ignored, so text that merely
// mentions "onerror=" inside a value does not count.
func HasAttribute(dom, name string) bool {
	re := regexp.MustCompile(`(?i)\s` + regexp.QuoteMeta(name) + `(\s*=|[\s/>])`)
	for _, t := range startTagRE.FindAllString(dom, -1) {
		if re.MatchString(quotedRE.ReplaceAllString(t, `""`)) {
			return true
		}
	}
	return false
}

var quotedRE = regexp.MustCompile(`"[^"]*"|'[^']*'`)
