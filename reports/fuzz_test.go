package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

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
		opts := Options{Catalog: testCatalog(t)}
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
