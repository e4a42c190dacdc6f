package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// decodeCorpus holds FuzzDecode's seeds. (Other files name neither: OSS-Fuzz
// finds a target's file by its name.)
const decodeCorpus = "testdata/fuzz/FuzzDecode"

// The native fuzz targets of this package. This file compiles on its own
// with the package's production files: OSS-Fuzz's compile_native_go_fuzzer
// (.clusterfuzzlite/build.sh) builds it alone, with a testing package that
// has T and F only.

// FuzzDecode checks that Decode never panics, keeps Raw, is deterministic,
// agrees with encoding/json on what is JSON, and that valid messages survive
// a canonical re-encoding. Its seeds are the decode cases, in decodeCorpus
// (TestDecodeCorpusHasEveryCase keeps them in step).
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkDecode(t, data) })
}

// checkDecode is the body of FuzzDecode.
func checkDecode(t *testing.T, data []byte) {
	{
		orig := bytes.Clone(data)
		m := Decode(data)
		if !bytes.Equal(data, orig) {
			t.Fatal("Decode modified its input")
		}
		if !bytes.Equal(m.Raw, orig) {
			t.Fatalf("Raw = %q, want %q", m.Raw, orig)
		}
		if again := Decode(orig); !reflect.DeepEqual(again, m) {
			t.Fatalf("Decode is not deterministic:\n%+v\n%+v", m, again)
		}
		checkInvariants(t, m)

		// encoding/json agrees on what is one JSON value (it does not check
		// UTF-8, and it has the same depth limit).
		syntaxOK := !m.Has(ReasonNotJSON) && !m.Has(ReasonTooDeep) && !m.Has(ReasonTrailingData)
		if json.Valid(data) != syntaxOK {
			t.Fatalf("json.Valid = %v but Decode problems are %v", json.Valid(data), m.Problems)
		}

		// DecodeBatch agrees with Decode on everything that is not a batch.
		msgs, isBatch := DecodeBatch(data)
		if !isBatch {
			if len(msgs) != 1 || !reflect.DeepEqual(msgs[0], m) {
				t.Fatalf("DecodeBatch of a non-batch differs from Decode")
			}
		} else {
			if !m.Has(ReasonBatch) && !m.Has(ReasonEmptyBatch) {
				t.Fatalf("DecodeBatch says batch but Decode says %v", m.Problems)
			}
			for _, e := range msgs {
				checkInvariants(t, e)
			}
		}

		if m.Kind == KindInvalid {
			return
		}
		// Valid messages: encoding/json sees the same members.
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("valid message but json.Unmarshal fails: %v", err)
		}
		if raw, ok := obj["method"]; ok {
			var method string
			if err := json.Unmarshal(raw, &method); err != nil || method != m.Method {
				t.Fatalf("method: encoding/json %q, Decode %q", method, m.Method)
			}
		}
		if raw, ok := obj["id"]; ok && !m.IDNull {
			var id ID
			if err := json.Unmarshal(raw, &id); err != nil || id != m.ID {
				t.Fatalf("id: encoding/json %v (%v), Decode %v", id, err, m.ID)
			}
		}

		// Re-encoding yields the same kind, id and method, and is stable.
		enc, err := m.Encode()
		if err != nil {
			t.Fatalf("Encode of a valid %s: %v", m.Kind, err)
		}
		m2 := Decode(enc)
		if m2.Kind != m.Kind || m2.ID != m.ID || m2.Method != m.Method || m2.IDNull != m.IDNull || m2.IDAbsent != m.IDAbsent {
			t.Fatalf("re-encoded %s decodes as %s id %v method %q (problems %v); want %s id %v method %q",
				enc, m2.Kind, m2.ID, m2.Method, m2.Problems, m.Kind, m.ID, m.Method)
		}
		if m.Error != nil && (m2.Error == nil || m2.Error.Code != m.Error.Code || m2.Error.Message != m.Error.Message) {
			t.Fatalf("re-encoded error object differs: %+v vs %+v", m2.Error, m.Error)
		}
		enc2, err := m2.Encode()
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("canonical encoding is not stable:\n%s\n%s (%v)", enc, enc2, err)
		}
		if bytes.ContainsAny(enc, "\r\n") {
			t.Fatalf("canonical encoding contains a raw newline: %q", enc)
		}
	}
}

func checkInvariants(t *testing.T, m Message) {
	t.Helper()
	invalid := false
	for _, p := range m.Problems {
		if p.Severity() == SeverityInvalid {
			invalid = true
		}
		if _, known := severities[p.Reason]; !known {
			t.Fatalf("unknown reason %q", p.Reason)
		}
		if p.Pointer != "" && !strings.HasPrefix(p.Pointer, "/") {
			t.Fatalf("bad pointer %q", p.Pointer)
		}
		if p.Offset < 0 || p.Offset > len(m.Raw) {
			t.Fatalf("%s offset %d outside [0,%d]", p.Reason, p.Offset, len(m.Raw))
		}
		if p.Detail == "" {
			t.Fatalf("%s without detail", p.Reason)
		}
	}
	if invalid != (m.Kind == KindInvalid) {
		t.Fatalf("Kind %s but invalid problems = %v: %v", m.Kind, invalid, m.Problems)
	}
	if m.Kind != KindInvalid && m.Kind != m.Shape {
		t.Fatalf("valid message with Kind %s and Shape %s", m.Kind, m.Shape)
	}
	if (m.Has(ReasonNotJSON) || m.Has(ReasonTooDeep)) && len(m.Problems) != 1 {
		t.Fatalf("syntax problems come alone: %v", m.Problems)
	}
}

// FuzzLineReader checks that LineReader never panics, accounts for every
// byte, never returns a line over the limit or containing LF, and keeps its
// buffer within the limit, whatever the input, limit and read sizes.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n\r\nccc"), uint16(2), uint8(0))
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n"), uint16(0), uint8(1))
	f.Add([]byte(strings.Repeat("x", 300)+"\n\r\n"+strings.Repeat("y", 10)), uint16(16), uint8(3))
	f.Add([]byte("\r\r\r\n\n"), uint16(1), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, mode uint8) {
		var r io.Reader = bytes.NewReader(data)
		switch mode % 4 {
		case 1:
			r = iotest.OneByteReader(r)
		case 2:
			r = iotest.HalfReader(r)
		case 3:
			r = iotest.DataErrReader(r)
		}
		lr := NewLineReader(r, int(limit))
		lr.KeepEmpty = mode&4 != 0
		var returned, calls int
		for {
			calls++
			if calls > len(data)+2 {
				t.Fatalf("ReadLine did not reach the end after %d calls", calls)
			}
			line, err := lr.ReadLine()
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("line contains LF: %q", line)
			}
			if len(line) > lr.Limit() {
				t.Fatalf("line of %d bytes over the limit %d", len(line), lr.Limit())
			}
			if cap(lr.buf) > lr.Limit()+2 {
				t.Fatalf("buffer of %d bytes over the limit %d", cap(lr.buf), lr.Limit())
			}
			returned += len(line)
			if err == io.EOF {
				if line != nil {
					t.Fatalf("io.EOF with a line %q", line)
				}
				break
			}
			if err != nil && !isLineTooLong(err) && !errors.Is(err, ErrUnterminatedLine) {
				t.Fatalf("unexpected error %v", err)
			}
		}
		st := lr.Stats()
		newlines := bytes.Count(data, []byte{'\n'})
		if got, want := int64(returned)+st.Discarded+st.CRLF, int64(len(data)-newlines); got != want {
			t.Fatalf("returned %d + discarded %d + stripped CRs %d = %d, want %d (input minus LFs)",
				returned, st.Discarded, st.CRLF, got, want)
		}
		if st.Bytes != int64(len(data)) {
			t.Fatalf("Stats().Bytes = %d, want %d", st.Bytes, len(data))
		}
	})
}

// isLineTooLong reports whether err is a *LineTooLongError.
func isLineTooLong(err error) bool {
	var e *LineTooLongError
	return errors.As(err, &e)
}
