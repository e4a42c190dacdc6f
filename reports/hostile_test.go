package reports

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fillStrings sets every string reachable from v (struct fields, slice
// elements, map keys and values) to payload plus its path, so a failure
// names the field.
func fillStrings(v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			fillStrings(v.Elem(), path)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(hostilePayload + " @" + path)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillStrings(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			fillStrings(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		out := reflect.MakeMap(v.Type())
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			val := reflect.New(v.Type().Elem()).Elem()
			val.Set(iter.Value())
			fillStrings(val, path+"["+k+"]")
			out.SetMapIndex(reflect.ValueOf(hostilePayload+" @"+path+"{"+k+"}").Convert(v.Type().Key()), val)
		}
		v.Set(out)
	}
}

// hostileRun is the sample run with every string replaced by hostilePayload,
// one check per outcome kept, the baseline's stale entries kept.
func hostileRun(t *testing.T) *Run {
	run := sampleRun(t)
	run.Requirements = map[string]Requirement{"x": {ID: "x", Summary: "s"}}
	fillStrings(reflect.ValueOf(run), "run")
	// Keep the cited IDs resolvable so the requirement texts are rendered.
	for i := range run.Checks {
		run.Checks[i].Requirements = []string{run.Checks[i].Requirements[0]}
		for id := range run.Requirements {
			run.Checks[i].Requirements = append(run.Checks[i].Requirements, id)
		}
	}
	return run
}

func writeAll(t *testing.T, run *Run, opts Options) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range Formats() {
		var buf bytes.Buffer
		if err := f.Write(&buf, run, opts); err != nil {
			t.Fatalf("%s writer: %v", f.Name, err)
		}
		out[f.Name] = buf.String()
	}
	d := Compare(sampleRun(t), run)
	var buf bytes.Buffer
	if err := d.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	out["diff.md"] = buf.String()
	buf.Reset()
	if err := d.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out["diff.txt"] = buf.String()
	return out
}

var (
	jsAttrRE    = regexp.MustCompile(`(?i)\b(href|src|action|formaction|xlink:href|data)\s*=\s*["']?\s*javascript:`)
	eventRE     = regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`)
	scriptTags  = regexp.MustCompile(`(?i)<script`)
	quotedValue = regexp.MustCompile(`="[^"]*"`)
)

// TestHostileTargetCannotInject fills every string field with markup,
// script, Markdown, terminal escapes and XML-illegal bytes, and checks that
// no writer lets any of it through unescaped.
func TestHostileTargetCannotInject(t *testing.T) {
	out := writeAll(t, hostileRun(t), Options{Catalog: testCatalog(t)})

	for _, name := range []string{"html", "md", "diff.md", "badge"} {
		s := out[name]
		for _, bad := range []string{"<script>alert", "<img", "</textarea>", `<a href="javascript`, "<!-- c -->", "\x1b", "\x00", "\xff"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s output contains %q unescaped", name, bad)
			}
		}
		if m := jsAttrRE.FindString(s); m != "" {
			t.Errorf("%s output has a javascript: URL in an attribute: %q", name, m)
		}
		// html/template escapes quotes inside attribute values, so a quoted
		// value cannot hide a tag's end; drop values, then look for handlers.
		if m := eventRE.FindString(quotedValue.ReplaceAllString(s, `=""`)); m != "" {
			t.Errorf("%s output has an event-handler attribute: %q", name, m)
		}
	}
	if n := len(scriptTags.FindAllString(out["html"], -1)); n != 1 {
		t.Errorf("HTML has %d <script> tags, want exactly the report's own one", n)
	}
	if strings.Contains(out["md"], "](javascript") && !strings.Contains(out["md"], `\](javascript`) {
		t.Errorf("Markdown output forms a javascript: link")
	}

	// Markdown tables keep their shape: every row has as many unescaped
	// pipes as its header.
	for _, name := range []string{"md", "diff.md"} {
		checkMarkdownTables(t, name, out[name])
	}

	// Terminal output: no escape sequences, bells, carriage returns or bidi
	// overrides reach the terminal.
	for _, name := range []string{"text", "diff.txt"} {
		for _, bad := range []string{"\x1b", "\x07", "\r", "\x00", "\u202e", "\xff"} {
			if strings.Contains(out[name], bad) {
				t.Errorf("%s output contains the raw control %q", name, bad)
			}
		}
	}

	// XML stays well-formed.
	checkWellFormedXML(t, "junit", out["junit"])
	checkWellFormedXML(t, "badge", out["badge"])
}

var unescapedPipe = regexp.MustCompile(`(^|[^\\])\|`)

func checkMarkdownTables(t *testing.T, name, s string) {
	t.Helper()
	want := -1
	for i, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		// Count pipes not escaped by a backslash, outside code spans.
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if want < 0 {
			want = n
			continue
		}
		if n != want {
			t.Errorf("%s line %d has %d cell separators, the table header %d: %q", name, i+1, n, want, line)
		}
	}
}

// TestHTMLHasNoExternalReferences checks the page fetches nothing.
func TestHTMLHasNoExternalReferences(t *testing.T) {
	for _, run := range []*Run{sampleRun(t), hostileRun(t)} {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, run, Options{Catalog: testCatalog(t)}); err != nil {
			t.Fatal(err)
		}
		s := buf.String()
		for _, bad := range []string{`src="http`, `src='http`, `href="http`, `href='http`, `href="//`, `src="//`, "@import", "url(http", "url(//", "<link", "<iframe", "<object", "<embed", "fetch(", "XMLHttpRequest", "<img"} {
			if strings.Contains(s, bad) {
				t.Errorf("the HTML report contains %q: it must be self-contained", bad)
			}
		}
		if !strings.Contains(s, "default-src 'none'") {
			t.Errorf("the HTML report lost its Content-Security-Policy")
		}
	}
}
