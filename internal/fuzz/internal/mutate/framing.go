package mutate

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
)

// giantLineMax bounds the giant-line mutator (bytes in one line).
const giantLineMax = 8 << 20

// fill appends n copies of c to b, within b's capacity when it has room.
func fill(b []byte, c byte, n int) []byte {
	b = slices.Grow(b, n)
	at := len(b)
	b = b[:at+n]
	for i := at; i < len(b); i++ {
		b[i] = c
	}
	return b
}

// framingMutators break the stdio framing: one message per LF-terminated
// line.
var framingMutators = []Mutator{
	{Name: "framing/embedded-newline", Doc: "puts a raw LF between two tokens of a valid message, splitting it over two lines", Over: OverStdio, Mutate: func(r *rand.Rand, b Base) Input {
		m := b.Msg.Raw()
		cuts := TokenBoundaries(m)
		at := pick(r, cuts)
		return Single(splice(m, at, at, []byte{'\n'}))
	}},
	{Name: "framing/pretty-printed", Doc: "sends a valid message indented over many lines", Over: OverStdio, Mutate: func(r *rand.Rand, b Base) Input {
		var out bytes.Buffer
		_ = json.Indent(&out, b.Msg.Raw(), "", strings.Repeat(" ", 1+r.IntN(4)))
		return Single(out.Bytes())
	}},
	{Name: "framing/split-writes", Doc: "sends valid messages in 2 to 8 writes cut at random bytes", Over: OverStdio, Mutate: func(r *rand.Rand, b Base) Input {
		all := Line(b.Msg.Raw())
		if r.IntN(2) == 0 {
			all = append(all, Line(gen.PingFor(b.Version, "mcpcheck-split"))...)
		}
		return Input{Chunks: splitRandom(r, all, 2+r.IntN(7))}
	}},
	{Name: "framing/giant-line", Doc: "sends a valid message padded to between 64 KiB and 8 MiB on one line", Over: OverStdio, Cost: Slow, Mutate: func(r *rand.Rand, b Base) Input {
		size := pick(r, []int{64 << 10, 1 << 20, 4 << 20, giantLineMax})
		m := b.Msg.Raw()
		pad := size - len(m) - 48 // room for the padding member's name
		if pad < 0 {
			pad = 0
		}
		if r.IntN(2) == 0 {
			// Whitespace before the closing brace: still valid JSON.
			out := make([]byte, 0, len(m)+pad+1)
			out = append(out, m[:len(m)-1]...)
			out = fill(out, ' ', pad)
			return Input{Chunks: [][]byte{append(append(out, m[len(m)-1]), '\n')}}
		}
		val := cloneValue(b.Msg.Value).(map[string]any)
		key := payloadKey(val)
		params, _ := val[key].(map[string]any)
		if params == nil {
			params = map[string]any{}
			val[key] = params
		}
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			params["_meta"] = meta
		}
		// Marshal with a placeholder and put the padding in its place:
		// the same bytes as marshalling the padding, without escaping
		// megabytes of x.
		const placeholder = "mcpcheck-padding-placeholder"
		meta["dev.mcpcheck/padding"] = placeholder
		m = gen.Marshal(val)
		at := bytes.Index(m, []byte(`"dev.mcpcheck/padding":"`+placeholder+`"`)) + len(`"dev.mcpcheck/padding":"`)
		if at < len(`"dev.mcpcheck/padding":"`) {
			meta["dev.mcpcheck/padding"] = strings.Repeat("x", pad)
			return Single(gen.Marshal(val))
		}
		out := make([]byte, 0, len(m)-len(placeholder)+pad+1)
		out = append(out, m[:at]...)
		out = fill(out, 'x', pad)
		out = append(out, m[at+len(placeholder):]...)
		return Input{Chunks: [][]byte{append(out, '\n')}}
	}},
	{Name: "framing/crlf", Doc: "ends valid messages with CR LF instead of LF", Over: OverStdio, Mutate: func(r *rand.Rand, b Base) Input {
		return Input{Chunks: [][]byte{append(b.Msg.Raw(), '\r', '\n')}}
	}},
	{Name: "framing/missing-final-newline", Doc: "sends a valid message without its LF, then closes stdin", Over: OverStdio, Cost: Costly, Mutate: func(r *rand.Rand, b Base) Input {
		return Input{Chunks: [][]byte{b.Msg.Raw()}, CloseAfter: true}
	}},
	{Name: "framing/empty-lines", Doc: "surrounds a valid message with empty and whitespace-only lines", Over: OverStdio, Mutate: func(r *rand.Rand, b Base) Input {
		blank := pick(r, []string{"\n", "\n\n\n", " \n", "\t\n", "\r\n"})
		return Input{Chunks: [][]byte{[]byte(blank), Line(b.Msg.Raw()), []byte(blank)}}
	}},
	{Name: "framing/two-per-line", Doc: "puts two messages on one line with nothing or a space between them", Over: OverStdio, Mutate: func(r *rand.Rand, b Base) Input {
		sep := pick(r, []string{"", " ", "\t"})
		m := append(append(b.Msg.Raw(), sep...), gen.PingFor(b.Version, "mcpcheck-second")...)
		return Single(m)
	}},
	{Name: "framing/burst", Doc: "writes 20 to 200 pings (or discover requests) in a single write", Over: OverStdio, Cost: Costly, Mutate: func(r *rand.Rand, b Base) Input {
		var all []byte
		n := 20 + r.IntN(181)
		for i := 0; i < n; i++ {
			all = append(all, Line(gen.PingFor(b.Version, "mcpcheck-burst-"+strconv.Itoa(i)))...)
		}
		return Input{Chunks: [][]byte{all}, Methods: []string{gen.ProbeMethod(b.Version)}}
	}},
}

// TokenBoundaries lists the offsets between JSON tokens of m (outside
// strings) where whitespace may legally go.
func TokenBoundaries(m []byte) []int {
	var out []int
	inStr, esc := false, false
	for i, c := range m {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ',' || c == ':' || c == '{' || c == '[' || c == '}' || c == ']'):
			out = append(out, i, i+1)
		}
	}
	if len(out) == 0 {
		out = append(out, 0)
	}
	return out
}

// splitRandom cuts b into n non-empty chunks (fewer when b is short).
func splitRandom(r *rand.Rand, b []byte, n int) [][]byte {
	if n > len(b) {
		n = len(b)
	}
	cuts := map[int]bool{}
	for len(cuts) < n-1 {
		cuts[1+r.IntN(len(b)-1)] = true
	}
	var out [][]byte
	prev := 0
	for i := 1; i < len(b); i++ {
		if cuts[i] {
			out = append(out, append([]byte(nil), b[prev:i]...))
			prev = i
		}
	}
	return append(out, append([]byte(nil), b[prev:]...))
}
