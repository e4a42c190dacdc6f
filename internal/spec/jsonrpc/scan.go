package jsonrpc

import (
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects Decode accepts,
// counting the message object itself as depth 1. It matches the limit of
// encoding/json, so anything Decode accepts can later be unmarshalled.
const MaxDepth = 10000

// scanner is a single-pass, allocation-free JSON validator over a byte slice.
// It records the first syntax error and, separately, the first invalid UTF-8
// byte and the first lone surrogate escape found inside strings (those do not
// stop the scan).
type scanner struct {
	data []byte
	pos  int

	failed  bool
	errOff  int
	errMsg  string
	tooDeep bool

	badUTF8 int // offset of the first invalid UTF-8 byte in a string, or -1
	loneSur int // offset of the first lone surrogate escape, or -1
}

func newScanner(data []byte) scanner {
	return scanner{data: data, badUTF8: -1, loneSur: -1}
}

// fail records a syntax error at off (keeping the first one) and returns
// false so callers can write "return s.fail(...)".
func (s *scanner) fail(off int, msg string) bool {
	if !s.failed {
		s.failed = true
		s.errOff = off
		s.errMsg = msg
	}
	return false
}

// failUnexpected reports the byte at s.pos (or the end of input) as
// unexpected, saying what was expected instead.
func (s *scanner) failUnexpected(expected string) bool {
	if s.pos >= len(s.data) {
		return s.fail(s.pos, "unexpected end of input, expected "+expected)
	}
	return s.fail(s.pos, fmt.Sprintf("unexpected %s, expected %s", describeByte(s.data[s.pos]), expected))
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("character %q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// str scans a string starting at s.pos, which must hold '"'. It reports
// whether the string contains any escape sequence.
func (s *scanner) str() (esc bool, ok bool) {
	d := s.data
	i := s.pos + 1
	for {
		for i < len(d) {
			c := d[i]
			if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				break
			}
			i++
		}
		if i >= len(d) {
			return esc, s.fail(i, "unexpected end of input inside a string")
		}
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(d) {
				return esc, s.fail(i+1, "unexpected end of input inside an escape sequence")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(d, i+2)
				if !ok {
					return esc, s.fail(i, "invalid \\u escape: it needs four hexadecimal digits")
				}
				start := i
				i += 6
				switch {
				case r >= 0xD800 && r < 0xDC00:
					if i+6 <= len(d) && d[i] == '\\' && d[i+1] == 'u' {
						if r2, ok := hex4(d, i+2); ok && r2 >= 0xDC00 && r2 < 0xE000 {
							i += 6
							continue
						}
					}
					if s.loneSur < 0 {
						s.loneSur = start
					}
				case r >= 0xDC00 && r < 0xE000:
					if s.loneSur < 0 {
						s.loneSur = start
					}
				}
			default:
				return esc, s.fail(i, fmt.Sprintf("invalid escape sequence \\%s in a string", printable(d[i+1])))
			}
		case c < 0x20:
			return esc, s.fail(i, fmt.Sprintf("unescaped control byte 0x%02x in a string", c))
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 && s.badUTF8 < 0 {
				s.badUTF8 = i
			}
			i += size
		}
	}
}

func printable(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return string(rune(c))
	}
	return fmt.Sprintf("<0x%02x>", c)
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// num scans a number starting at s.pos and reports whether it has a
// fraction part and an exponent.
func (s *scanner) num() (frac, exp bool, ok bool) {
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i >= len(d):
		return false, false, s.fail(i, "unexpected end of input inside a number")
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return false, false, s.fail(i, fmt.Sprintf("unexpected %s in a number, expected a digit", describeByte(d[i])))
	}
	if i < len(d) && d[i] == '.' {
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return false, false, s.fail(i, "a number's fraction part needs at least one digit")
		}
		frac = true
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return false, false, s.fail(i, "a number's exponent needs at least one digit")
		}
		exp = true
	}
	s.pos = i
	return frac, exp, true
}

func (s *scanner) literal(word string) bool {
	d := s.data
	for k := 0; k < len(word); k++ {
		if s.pos+k >= len(d) {
			return s.fail(s.pos+k, "unexpected end of input inside the literal "+word)
		}
		if d[s.pos+k] != word[k] {
			return s.fail(s.pos+k, fmt.Sprintf("unexpected %s inside the literal %s", describeByte(d[s.pos+k]), word))
		}
	}
	s.pos += len(word)
	return true
}

// value scans one JSON value (after optional whitespace) starting at s.pos.
// depth is the nesting depth of the containers enclosing it. Nesting is
// tracked with a bit stack, not recursion, so hostile input cannot exhaust
// the goroutine stack.
func (s *scanner) value(depth int) bool {
	d := s.data
	var st levels
	base := depth
	for {
		// Expect a value.
		s.ws()
		if s.pos >= len(d) {
			return s.failUnexpected("a value")
		}
		switch c := d[s.pos]; {
		case c == '{' || c == '[':
			if depth+1 > MaxDepth {
				s.tooDeep = true
				return s.fail(s.pos, fmt.Sprintf("arrays and objects are nested deeper than %d levels", MaxDepth))
			}
			st.set(depth-base, c == '{')
			depth++
			s.pos++
			s.ws()
			if s.pos < len(d) && d[s.pos] == c+2 { // '}' == '{'+2, ']' == '['+2
				s.pos++
				depth--
				break
			}
			if c == '{' && !s.key() {
				return false
			}
			continue
		case c == '"':
			if _, ok := s.str(); !ok {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if _, _, ok := s.num(); !ok {
				return false
			}
		case c == 't':
			if !s.literal("true") {
				return false
			}
		case c == 'f':
			if !s.literal("false") {
				return false
			}
		case c == 'n':
			if !s.literal("null") {
				return false
			}
		default:
			return s.failUnexpected("a value")
		}
		// A value is complete; close containers or move to the next element.
		for {
			if depth == base {
				return true
			}
			isObj := st.get(depth - base - 1)
			s.ws()
			if s.pos >= len(d) {
				if isObj {
					return s.failUnexpected("',' or '}' in an object")
				}
				return s.failUnexpected("',' or ']' in an array")
			}
			c := d[s.pos]
			if c == ',' {
				s.pos++
				if isObj && !s.key() {
					return false
				}
				break
			}
			if (isObj && c == '}') || (!isObj && c == ']') {
				s.pos++
				depth--
				continue
			}
			if isObj {
				return s.failUnexpected("',' or '}' after an object member")
			}
			return s.failUnexpected("',' or ']' after an array element")
		}
	}
}

// levels is a bit stack recording, per nesting level, whether the container
// is an object. The first 64 levels need no allocation.
type levels struct {
	low  uint64
	high []uint64
}

func (l *levels) set(lvl int, obj bool) {
	w := &l.low
	if lvl >= 64 {
		i := lvl/64 - 1
		for len(l.high) <= i {
			l.high = append(l.high, 0)
		}
		w = &l.high[i]
	}
	if obj {
		*w |= 1 << (lvl % 64)
	} else {
		*w &^= 1 << (lvl % 64)
	}
}

func (l *levels) get(lvl int) bool {
	w := l.low
	if lvl >= 64 {
		w = l.high[lvl/64-1]
	}
	return w&(1<<(lvl%64)) != 0
}

// key scans an object member name and the colon after it.
func (s *scanner) key() bool {
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return s.failUnexpected("a string naming an object member")
	}
	if _, ok := s.str(); !ok {
		return false
	}
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return s.failUnexpected("':' after an object member name")
	}
	s.pos++
	return true
}

// member is one member of an object: the name's span including quotes and
// the value's span.
type member struct {
	keyStart, keyEnd int
	esc              bool
	valStart, valEnd int
}

// nextMember reads the next member of an object whose '{' has been consumed.
// first is true for the first call after '{'. It returns more == false once
// it has consumed the closing '}'.
func (s *scanner) nextMember(depth int, first bool) (m member, more bool, ok bool) {
	s.ws()
	if s.pos >= len(s.data) {
		return m, false, s.failUnexpected("an object member or '}'")
	}
	c := s.data[s.pos]
	if c == '}' {
		s.pos++
		return m, false, true
	}
	if !first {
		if c != ',' {
			return m, false, s.failUnexpected("',' or '}' after an object member")
		}
		s.pos++
		s.ws()
	}
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return m, false, s.failUnexpected("a string naming an object member")
	}
	m.keyStart = s.pos
	esc, ok := s.str()
	if !ok {
		return m, false, false
	}
	m.keyEnd, m.esc = s.pos, esc
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return m, false, s.failUnexpected("':' after an object member name")
	}
	s.pos++
	s.ws()
	m.valStart = s.pos
	if !s.value(depth) {
		return m, false, false
	}
	m.valEnd = s.pos
	return m, true, true
}
