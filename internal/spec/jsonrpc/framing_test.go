package jsonrpc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// readResult is one ReadLine outcome.
type readResult struct {
	line string
	err  error
	info LineInfo
}

func readAll(lr *LineReader) []readResult {
	var out []readResult
	for i := 0; i < 10000; i++ {
		line, err := lr.ReadLine()
		out = append(out, readResult{string(line), err, lr.Info()})
		if err != nil && !isLineTooLong(err) && err != ErrUnterminatedLine {
			return out
		}
	}
	panic("ReadLine never stopped")
}

func TestLineReader(t *testing.T) {
	tooLong := func(limit int, seen int64) error { return &LineTooLongError{Limit: limit, Seen: seen} }
	tests := []struct {
		name      string
		in        string
		limit     int
		keepEmpty bool
		want      []readResult // info compared on CR, Unterminated, EmptySkipped and Offset
	}{
		{"simple", "a\nbc\n", 0, false, []readResult{
			{"a", nil, LineInfo{Offset: 0}}, {"bc", nil, LineInfo{Offset: 2}}, {"", io.EOF, LineInfo{Offset: 5}}}},
		{"crlf", "a\r\nb\n", 0, false, []readResult{
			{"a", nil, LineInfo{CR: true}}, {"b", nil, LineInfo{Offset: 3}}, {"", io.EOF, LineInfo{Offset: 5}}}},
		{"bare cr inside a line is kept", "a\rb\n", 0, false, []readResult{
			{"a\rb", nil, LineInfo{}}, {"", io.EOF, LineInfo{Offset: 4}}}},
		{"empty lines skipped", "\n\r\n\n x\n\n", 0, false, []readResult{
			{" x", nil, LineInfo{Offset: 4, EmptySkipped: 3}}, {"", io.EOF, LineInfo{Offset: 8, EmptySkipped: 1}}}},
		{"empty lines kept", "\n\r\nx\n", 0, true, []readResult{
			{"", nil, LineInfo{}}, {"", nil, LineInfo{Offset: 1, CR: true}}, {"x", nil, LineInfo{Offset: 3}}, {"", io.EOF, LineInfo{Offset: 5}}}},
		{"unterminated", "a\nbc", 0, false, []readResult{
			{"a", nil, LineInfo{}}, {"bc", ErrUnterminatedLine, LineInfo{Offset: 2, Unterminated: true}}, {"", io.EOF, LineInfo{Offset: 4}}}},
		{"unterminated with cr", "abc\r", 0, false, []readResult{
			{"abc\r", ErrUnterminatedLine, LineInfo{Unterminated: true}}, {"", io.EOF, LineInfo{Offset: 4}}}},
		{"empty input", "", 0, false, []readResult{{"", io.EOF, LineInfo{}}}},
		{"at the limit", "12345678\n12345678\r\nx\n", 8, false, []readResult{
			{"12345678", nil, LineInfo{}}, {"12345678", nil, LineInfo{Offset: 9, CR: true}}, {"x", nil, LineInfo{Offset: 19}}, {"", io.EOF, LineInfo{Offset: 21}}}},
		{"over the limit", "123456789\nok\n123456789\r\nok2\n", 8, false, []readResult{
			{"", tooLong(8, 9), LineInfo{}}, {"ok", nil, LineInfo{Offset: 10}},
			{"", tooLong(8, 10), LineInfo{Offset: 13}}, {"ok2", nil, LineInfo{Offset: 24}}, {"", io.EOF, LineInfo{Offset: 28}}}},
		{"over the limit with a long line", strings.Repeat("x", 100) + "\nok\n", 8, false, []readResult{
			{"", tooLong(8, 100), LineInfo{}}, {"ok", nil, LineInfo{Offset: 101}}, {"", io.EOF, LineInfo{Offset: 104}}}},
		{"over the limit at the end", "ok\n123456", 4, false, []readResult{
			{"ok", nil, LineInfo{}}, {"", tooLong(4, 6), LineInfo{Offset: 3}}, {"", io.EOF, LineInfo{Offset: 9}}}},
		{"limit of one", "a\nab\n\nb", 1, false, []readResult{
			{"a", nil, LineInfo{}}, {"", tooLong(1, 2), LineInfo{Offset: 2}},
			{"b", ErrUnterminatedLine, LineInfo{Offset: 6, Unterminated: true, EmptySkipped: 1}}, {"", io.EOF, LineInfo{Offset: 7}}}},
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"data+EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
	for _, tc := range tests {
		for rname, mk := range readers {
			t.Run(tc.name+"/"+rname, func(t *testing.T) {
				lr := NewLineReader(mk(tc.in), tc.limit)
				lr.KeepEmpty = tc.keepEmpty
				got := readAll(lr)
				if len(got) != len(tc.want) {
					t.Fatalf("got %d results %+v, want %d %+v", len(got), got, len(tc.want), tc.want)
				}
				for i := range got {
					g, w := got[i], tc.want[i]
					if g.line != w.line || fmt.Sprint(g.err) != fmt.Sprint(w.err) || g.info != w.info {
						t.Errorf("result %d: got %q, %v, %+v; want %q, %v, %+v", i, g.line, g.err, g.info, w.line, w.err, w.info)
					}
				}
				st := lr.Stats()
				if st.Bytes != int64(len(tc.in)) {
					t.Errorf("Stats().Bytes = %d, want %d", st.Bytes, len(tc.in))
				}
			})
		}
	}
}

func TestLineReaderUnterminatedIsUnexpectedEOF(t *testing.T) {
	if !errors.Is(ErrUnterminatedLine, io.ErrUnexpectedEOF) {
		t.Error("ErrUnterminatedLine should match io.ErrUnexpectedEOF")
	}
	if lr := NewLineReader(strings.NewReader(""), -1); lr.Limit() != DefaultMaxLineSize {
		t.Errorf("default limit = %d", lr.Limit())
	}
}

func TestLineTooLongErrorMessage(t *testing.T) {
	msg := (&LineTooLongError{Limit: 65536, Seen: 10 << 20}).Error()
	for _, want := range []string{"10485760", "65536", "raise the limit", "NewLineReader", "next line"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}
}

// repeatReader yields n copies of c without holding them in memory.
type repeatReader struct {
	c byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.c
	}
	r.n -= int64(len(p))
	return len(p), nil
}

func TestLineReaderLongLineBoundedMemory(t *testing.T) {
	const limit = 64 << 10
	const long = 10 << 20
	run := func() (*LineReader, []readResult) {
		in := io.MultiReader(strings.NewReader("{\"a\":1}\n"), &repeatReader{'x', long}, strings.NewReader("\n{\"b\":2}\n"))
		lr := NewLineReader(in, limit)
		return lr, readAll(lr)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	lr, got := run()
	runtime.ReadMemStats(&after)

	if len(got) != 4 || got[0].line != `{"a":1}` || got[2].line != `{"b":2}` || got[3].err != io.EOF {
		t.Fatalf("results: %+v", got)
	}
	var tl *LineTooLongError
	if !errors.As(got[1].err, &tl) || tl.Seen != long || tl.Limit != limit {
		t.Fatalf("second result: %v, want a LineTooLongError for %d bytes", got[1].err, long)
	}
	if c := cap(lr.buf); c > limit+2 {
		t.Errorf("buffer grew to %d bytes, over the limit %d + 2", c, limit)
	}
	// Everything the reader allocated, including the returned lines and the
	// error: at most about twice the limit.
	t.Logf("allocated %d bytes for a %d-byte limit", after.TotalAlloc-before.TotalAlloc, limit)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*limit+16<<10 {
		t.Errorf("reading a %d-byte line with a %d-byte limit allocated %d bytes, want at most ~%d", long, limit, alloc, 2*limit)
	}
	if st := lr.Stats(); st.TooLong != 1 || st.Discarded != long || st.Lines != 2 {
		t.Errorf("stats: %+v", st)
	}

	allocs := testing.AllocsPerRun(3, func() { run() })
	if allocs > 20 {
		t.Errorf("reading a %d-byte line made %.0f allocations", long, allocs)
	}
}

func TestLineReaderIOError(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)), 0)
	if line, err := lr.ReadLine(); string(line) != "a" || err != nil {
		t.Fatalf("first: %q, %v", line, err)
	}
	line, err := lr.ReadLine()
	if string(line) != "b" || !errors.Is(err, boom) || !lr.Info().Unterminated {
		t.Fatalf("second: %q, %v, %+v; want the partial line with the error", line, err, lr.Info())
	}
	for i := 0; i < 2; i++ {
		if line, err := lr.ReadLine(); line != nil || !errors.Is(err, boom) {
			t.Fatalf("after the error: %q, %v; want the error again", line, err)
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

type badCountReader struct{}

func (badCountReader) Read(p []byte) (int, error) { return len(p) + 1, nil }

func TestLineReaderMisbehavingReaders(t *testing.T) {
	if _, err := NewLineReader(zeroReader{}, 0).ReadLine(); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("reader that never progresses: %v", err)
	}
	if _, err := NewLineReader(badCountReader{}, 0).ReadLine(); err == nil || !strings.Contains(err.Error(), "impossible count") {
		t.Errorf("reader with an impossible count: %v", err)
	}
}

func TestLineReaderReturnsFreshSlices(t *testing.T) {
	lr := NewLineReader(strings.NewReader("aaaa\nbbbb\n"), 0)
	a, _ := lr.ReadLine()
	b, _ := lr.ReadLine()
	if string(a) != "aaaa" || string(b) != "bbbb" {
		t.Errorf("lines overwritten: %q %q", a, b)
	}
}

func TestLineWriter(t *testing.T) {
	var buf bytes.Buffer
	lw := NewLineWriter(&buf)
	if err := lw.WriteLine([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"{\n}", "{}\r", ""} {
		err := lw.WriteLine([]byte(bad))
		if err == nil {
			t.Errorf("WriteLine(%q) succeeded", bad)
		}
		if bad != "" && !errors.Is(err, ErrEmbeddedNewline) {
			t.Errorf("WriteLine(%q) = %v, want ErrEmbeddedNewline", bad, err)
		}
		if err != nil && !strings.Contains(err.Error(), "Unsafe") && !strings.Contains(err.Error(), "WriteRaw") {
			t.Errorf("error %q does not point to the unsafe methods", err)
		}
	}
	if err := lw.WriteLineUnsafe([]byte("{\n}")); err != nil {
		t.Fatal(err)
	}
	if err := lw.WriteRaw([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "{\"a\":1}\n{\n}\npartial"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

type failWriter struct{ err error }

func (w failWriter) Write(p []byte) (int, error) { return 0, w.err }

func TestLineWriterErrors(t *testing.T) {
	if err := NewLineWriter(shortWriter{}).WriteLine([]byte("abcd")); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("short write: %v", err)
	}
	boom := errors.New("boom")
	if err := NewLineWriter(failWriter{boom}).WriteLine([]byte("abcd")); !errors.Is(err, boom) {
		t.Errorf("failed write: %v", err)
	}
}

// lockedCheckWriter fails the test if two Writes overlap.
type lockedCheckWriter struct {
	mu     sync.Mutex
	inside bool
	buf    bytes.Buffer
	t      *testing.T
}

func (w *lockedCheckWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.inside {
		w.t.Error("concurrent Write calls")
	}
	w.inside = true
	w.mu.Unlock()
	runtime.Gosched()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inside = false
	return w.buf.Write(p)
}

func TestLineWriterConcurrent(t *testing.T) {
	w := &lockedCheckWriter{t: t}
	lw := NewLineWriter(w)
	const goroutines, per = 8, 200
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				msg, err := NewRequest(IntID(int64(g*per+i)), "m", map[string]string{"pad": strings.Repeat("p", i)})
				if err != nil {
					t.Error(err)
					return
				}
				if err := lw.WriteLine(msg); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	lr := NewLineReader(&w.buf, 0)
	seen := map[ID]bool{}
	for {
		line, err := lr.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		m := Decode(line)
		if m.Kind != KindRequest {
			t.Fatalf("interleaved line %q: %v", line, m.Problems)
		}
		seen[m.ID] = true
	}
	if len(seen) != goroutines*per {
		t.Errorf("read %d distinct messages, want %d", len(seen), goroutines*per)
	}
}
