package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

// The native fuzz targets of this package. This file compiles on its own
// with the package's production files: OSS-Fuzz's compile_native_go_fuzzer
// (.clusterfuzzlite/build.sh) builds it alone, so what the targets use
// lives here (the other tests share it) and nothing is read from testdata.

// hostilePayload is what a malicious target might put in every field it
// can influence: markup, script, attribute breakouts, a javascript: URL,
// Markdown syntax, terminal escapes, XML-illegal controls, bytes that are
// not UTF-8 and a bidi override.
const hostilePayload = `<script>alert(1)</script>"><img src=x onerror=alert(2)></textarea>` +
	`<a href="javascript:alert(3)">x</a> javascript:alert(4) | pipe ` + "`tick` ```fence``` </pre> ]]> " +
	"[md](javascript:alert(5)) <!-- c --> \x1b[2J\x1b]0;title\x07 \x00\x01\x0b\x0c\r \xff\xfe \u202e"

// FuzzPrintable: whatever a target sends, printable's output is valid UTF-8
// with no control character a terminal or XML 1.0 would act on.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "plain", hostilePayload, "\xff\xfe", "\r\n\t", "\u202e\u2066", "\x7f\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := printable(s)
		if !utf8.ValidString(out) {
			t.Fatalf("printable(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if unsafeRune(r) {
				t.Fatalf("printable(%q) = %q keeps %U", s, out, r)
			}
		}
	})
}

// FuzzWriters: any text in a check's fields and transcript yields
// well-formed XML, valid JSON, and HTML without a second <script>.
func FuzzWriters(f *testing.F) {
	f.Add("title", "actual", []byte(`{"jsonrpc":"2.0"}`))
	f.Add(hostilePayload, "</failure>]]>", []byte("\xff\x00<script>"))
	f.Fuzz(func(t *testing.T, title, actual string, raw []byte) {
		r, b64 := RawBytes(raw)
		run := &Run{Checks: []Check{{
			ID: title, Title: title, Actual: actual, Expected: actual, Reason: actual, Area: title, Version: "2025-11-25",
			Level: "MUST", Outcome: Fail, Transcript: []WireEvent{{Direction: Received, Raw: r, Base64: b64, Note: actual}},
		}}}
		var opts Options // the embedded catalog
		var buf bytes.Buffer
		if err := WriteJUnit(&buf, run, opts); err != nil {
			t.Fatal(err)
		}
		checkWellFormedXML(t, "junit", buf.String())
		buf.Reset()
		if err := WriteJSON(&buf, run, opts); err != nil {
			t.Fatal(err)
		}
		if !json.Valid(buf.Bytes()) {
			t.Fatalf("WriteJSON wrote invalid JSON")
		}
		buf.Reset()
		if err := WriteHTML(&buf, run, opts); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(strings.ToLower(buf.String()), "<script"); n != 1 {
			t.Fatalf("HTML has %d <script> tags", n)
		}
	})
}

// checkWellFormedXML fails t unless s, named name, is well-formed XML.
func checkWellFormedXML(t *testing.T, name, s string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return
			}
			t.Fatalf("%s output is not well-formed XML: %v", name, err)
		}
	}
}
