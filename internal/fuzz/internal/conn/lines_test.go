package conn

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestPipeLines: the deadline-aware line splitter frames stdout as
// jsonrpc.LineReader does, and a deadline leaves a partial line buffered.
func TestPipeLines(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := NewPipeLines(r, 16)
	soon := func() time.Time { return time.Now().Add(5 * time.Second) }
	write := func(s string) {
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(data, problem string) {
		t.Helper()
		f, err := p.Next(soon())
		if err != nil {
			t.Fatalf("want %q, got %v", data, err)
		}
		if string(f.Data) != data || !strings.Contains(f.Problem, problem) || (problem == "" && f.Problem != "") {
			t.Fatalf("got %q (problem %q), want %q (problem containing %q)", f.Data, f.Problem, data, problem)
		}
	}
	write("one\r\n\n\r\n  \ntwo")
	expect("one", "")
	expect("  ", "")
	if _, err := p.Next(time.Now().Add(20 * time.Millisecond)); !errors.Is(err, ErrDeadline) {
		t.Fatalf("a partial line: %v, want ErrDeadline", err)
	}
	if _, ok := p.available(); ok {
		t.Fatal("available returned a partial line")
	}
	write("\n" + strings.Repeat("x", 40) + "\nthree\n" + strings.Repeat("y", 17) + "\r\n" + strings.Repeat("z", 16) + "\r\n")
	expect("two", "")
	expect("", "40 bytes, over the 16-byte line limit")
	expect("three", "")
	expect("", "17 bytes")
	expect(strings.Repeat("z", 16), "")
	write("last")
	w.Close()
	expect("last", "without a final newline")
	if _, err := p.Next(soon()); !errors.Is(err, ErrClosed) {
		t.Fatalf("after the end: %v, want ErrClosed", err)
	}
}
