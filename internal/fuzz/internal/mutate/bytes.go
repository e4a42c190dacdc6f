package mutate

import (
	"bytes"
	"math/rand/v2"
)

// bytesMutators damage the bytes of one valid message.
var bytesMutators = []Mutator{
	{Name: "bytes/flip", Doc: "flips 1 to 8 random bits of a valid message", Mutate: func(r *rand.Rand, b Base) Input {
		m := b.Msg.Raw()
		for i, n := 0, 1+r.IntN(8); i < n; i++ {
			m[r.IntN(len(m))] ^= 1 << r.IntN(8)
		}
		return Single(noNewlines(m))
	}},
	{Name: "bytes/truncate", Doc: "cuts a valid message at a random byte", Mutate: func(r *rand.Rand, b Base) Input {
		m := b.Msg.Raw()
		return Single(m[:r.IntN(len(m))])
	}},
	{Name: "bytes/invalid-utf8", Doc: "puts a byte sequence that is not UTF-8 inside a string of a valid message", Mutate: func(r *rand.Rand, b Base) Input {
		bad := pick(r, [][]byte{{0xff}, {0xc0, 0x80}, {0xed, 0xa0, 0x80}, {0x80}, {0xe2, 0x82}, {0xf4, 0x90, 0x80, 0x80}, {0xfe, 0xfe}})
		return Single(insertInString(r, b.Msg.Raw(), bad))
	}},
	{Name: "bytes/nul", Doc: "puts NUL bytes inside a string or between tokens of a valid message", Mutate: func(r *rand.Rand, b Base) Input {
		m := b.Msg.Raw()
		if r.IntN(2) == 0 {
			return Single(insertInString(r, m, []byte{0}))
		}
		at := r.IntN(len(m) + 1)
		return Single(splice(m, at, at, []byte{0}))
	}},
	{Name: "bytes/line-separator", Doc: "puts raw U+2028 or U+2029 (valid JSON, fatal to JavaScript-style parsers) inside a string", Mutate: func(r *rand.Rand, b Base) Input {
		sep := pick(r, [][]byte{[]byte("\u2028"), []byte("\u2029"), []byte("\u2028\u2029")})
		return Single(insertInString(r, b.Msg.Raw(), sep))
	}},
	{Name: "bytes/garbage-line", Doc: "sends a line that is not JSON at all (text, headers, binary)", Mutate: func(r *rand.Rand, b Base) Input {
		g := pick(r, [][]byte{
			[]byte("hello"),
			[]byte("Content-Length: 42"),
			[]byte("GET / HTTP/1.1"),
			[]byte("\x1b[31mred\x1b[0m"),
			[]byte("{"),
			[]byte("}"),
			[]byte("[1,2"),
			[]byte("null"),
			[]byte("\"just a string\""),
		})
		if r.IntN(3) == 0 {
			g = make([]byte, 1+r.IntN(64))
			for i := range g {
				g[i] = byte(r.IntN(256))
			}
			g = noNewlines(g)
		}
		return Single(g)
	}},
	{Name: "bytes/bom", Doc: "starts a valid message with a UTF-8 byte order mark", Mutate: func(r *rand.Rand, b Base) Input {
		return Single(append([]byte("\xef\xbb\xbf"), b.Msg.Raw()...))
	}},
}

// noNewlines replaces LF bytes so that a mutation stays on one line.
func noNewlines(b []byte) []byte { return bytes.ReplaceAll(b, []byte{'\n'}, []byte{' '}) }

// splice replaces m[i:j] with ins.
func splice(m []byte, i, j int, ins []byte) []byte {
	out := make([]byte, 0, len(m)-(j-i)+len(ins))
	out = append(out, m[:i]...)
	out = append(out, ins...)
	return append(out, m[j:]...)
}

// insertInString inserts ins just after the opening quote of a random
// string (member names included) of the encoded JSON m, or at a random
// position when m has no string.
func insertInString(r *rand.Rand, m []byte, ins []byte) []byte {
	var quotes []int
	inStr, esc := false, false
	for i, c := range m {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			if !inStr {
				quotes = append(quotes, i+1)
			}
			inStr = !inStr
		}
	}
	if len(quotes) == 0 {
		at := r.IntN(len(m) + 1)
		return splice(m, at, at, ins)
	}
	at := pick(r, quotes)
	return splice(m, at, at, ins)
}
