package mutate

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// exoticNumbers are number tokens that parsers disagree about: floats that
// are integers, negative zero, exponents, values past int64 and float64,
// and tokens JSON does not allow at all.
var exoticNumbers = []string{
	"1.0", "-0", "0.0", "-0.0", "0e0", "1e3", "1E3", "1e+3", "1e-3", "1E400", "-1E400", "1e-400",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551616", "9007199254740993", "123456789012345678901234567890",
	"0.1", "1.5", "3.141592653589793238462643383279",
	// Not JSON:
	"NaN", "Infinity", "-Infinity", "0x10", "01", "+1", ".5", "1.", "1e",
}

// exoticIDs are id values MCP forbids or that are hard to echo exactly.
var exoticIDs = append(append([]string(nil), exoticNumbers...),
	`null`, `true`, `false`, `{}`, `{"a":1}`, `[]`, `[1]`, `""`, `"\u0000"`, `"\ud800"`, `"id\nwith newline"`, `" "`)

// members lists the members of a message in wire order (jsonrpc, id,
// method, params, result, error, then the rest sorted).
func members(val map[string]any) []jsonrpc.RawMember {
	var out []jsonrpc.RawMember
	seen := map[string]bool{}
	for _, k := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
		if v, ok := val[k]; ok {
			out = append(out, jsonrpc.RawMember{Name: k, Value: gen.Marshal(v)})
			seen[k] = true
		}
	}
	for _, k := range sortedKeys(val) {
		if !seen[k] {
			out = append(out, jsonrpc.RawMember{Name: k, Value: gen.Marshal(val[k])})
		}
	}
	return out
}

func setMember(ms []jsonrpc.RawMember, name string, value []byte) []jsonrpc.RawMember {
	for i := range ms {
		if ms[i].Name == name {
			ms[i].Value = value
			return ms
		}
	}
	return append(ms, jsonrpc.RawMember{Name: name, Value: value})
}

func dropMember(ms []jsonrpc.RawMember, name string) []jsonrpc.RawMember {
	var out []jsonrpc.RawMember
	for _, m := range ms {
		if m.Name != name {
			out = append(out, m)
		}
	}
	return out
}

// objectPaths lists the paths (member names) of every object in v, the
// root first, in a deterministic order.
func objectPaths(v any, path []string, out *[][]string) {
	switch x := v.(type) {
	case map[string]any:
		*out = append(*out, append([]string(nil), path...))
		for _, k := range sortedKeys(x) {
			objectPaths(x[k], append(path, k), out)
		}
	case []any:
		for i, e := range x {
			objectPaths(e, append(path, "["+strconv.Itoa(i)+"]"), out)
		}
	}
}

// at returns the object at path inside v.
func at(v any, path []string) map[string]any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := 0
			for _, c := range strings.Trim(p, "[]") {
				i = i*10 + int(c-'0')
			}
			v = x[i]
		}
	}
	m, _ := v.(map[string]any)
	return m
}

// randomObject picks an object of the message (the root or a nested one)
// that has at least one member when nonEmpty is set.
func randomObject(r *rand.Rand, val map[string]any, nonEmpty bool) map[string]any {
	var paths [][]string
	objectPaths(val, nil, &paths)
	var cands []map[string]any
	for _, p := range paths {
		if o := at(val, p); o != nil && (!nonEmpty || len(o) > 0) {
			cands = append(cands, o)
		}
	}
	if len(cands) == 0 {
		return val
	}
	return pick(r, cands)
}

// otherTypeValue returns a value whose JSON type differs from v's.
func otherTypeValue(r *rand.Rand, v any) any {
	cands := []any{nil, true, int64(7), 2.5, "text", []any{}, map[string]any{}}
	for {
		c := pick(r, cands)
		if jsonType(c) != jsonType(v) {
			return c
		}
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int64, float64, int:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// payloadKey names the member that carries a message's content: result
// for a success response (the bases of client campaigns include the
// server's answers), params for everything else. The mutators that aim at
// the content aim there, so the same mutator bends a request's params or
// a response's result.
func payloadKey(val map[string]any) string {
	if _, ok := val["result"]; ok {
		return "result"
	}
	return "params"
}

func nested(depth int, open, close string) []byte {
	var b bytes.Buffer
	b.Grow(depth * (len(open) + len(close)))
	for i := 0; i < depth; i++ {
		b.WriteString(open)
	}
	b.WriteString("0")
	for i := 0; i < depth; i++ {
		b.WriteString(close)
	}
	return b.Bytes()
}

// jsonMutators break JSON syntax and the JSON-RPC envelope.
var jsonMutators = []Mutator{
	{Name: "json/deep-nesting", Doc: "puts arrays or objects nested 64 to 100,000 deep into params (a response's result)", Cost: Costly, Mutate: func(r *rand.Rand, b Base) Input {
		depth := pick(r, []int{64, 512, 1000, 10001, 100000})
		val := nested(depth, "[", "]")
		if r.IntN(2) == 0 {
			val = nested(depth, `{"a":`, "}")
		}
		ms := members(b.Msg.Value)
		return Single(jsonrpc.RawObject(setMember(ms, payloadKey(b.Msg.Value), jsonrpc.RawObject(jsonrpc.RawMember{Name: "deep", Value: val}))...))
	}},
	{Name: "json/exotic-id", Doc: "gives a request an id that is a float, -0, an exponent, out of range, or of a forbidden type", Mutate: func(r *rand.Rand, b Base) Input {
		ms := members(b.Msg.Value)
		return Single(jsonrpc.RawObject(setMember(ms, "id", []byte(pick(r, exoticIDs)))...))
	}},
	{Name: "json/exotic-number", Doc: "puts exotic number tokens into params or a result (progress tokens, cursors, arguments)", Mutate: func(r *rand.Rand, b Base) Input {
		num := []byte(pick(r, exoticNumbers))
		val := cloneValue(b.Msg.Value).(map[string]any)
		key := payloadKey(val)
		params, _ := val[key].(map[string]any)
		if params == nil {
			params = map[string]any{}
		}
		switch r.IntN(3) {
		case 0:
			meta, _ := params["_meta"].(map[string]any)
			if meta == nil {
				meta = map[string]any{}
				params["_meta"] = meta
			}
			meta["progressToken"] = "\u0000mcpcheck-number\u0000"
		case 1:
			params[pick(r, []string{"cursor", "level", "name", "uri", "arguments", "requestId", "progress", "total"})] = "\u0000mcpcheck-number\u0000"
		default:
			o := randomObject(r, params, false)
			o["n"] = "\u0000mcpcheck-number\u0000"
		}
		val[key] = params
		raw := bytes.Replace(gen.Marshal(val), []byte(`"\u0000mcpcheck-number\u0000"`), num, 1)
		return Single(raw)
	}},
	{Name: "json/duplicate-key", Doc: "repeats a top-level member (id, method, params, jsonrpc) with a different value", Mutate: func(r *rand.Rand, b Base) Input {
		ms := members(b.Msg.Value)
		name := pick(r, []string{"id", "method", "params", "jsonrpc"})
		dup := map[string][]byte{
			"id":      []byte(`"mcpcheck-dup"`),
			"method":  []byte(`"ping"`),
			"params":  []byte(`{}`),
			"jsonrpc": []byte(`"1.0"`),
		}[name]
		if r.IntN(2) == 0 {
			ms = append([]jsonrpc.RawMember{{Name: name, Value: dup}}, ms...)
		} else {
			ms = append(ms, jsonrpc.RawMember{Name: name, Value: dup})
		}
		return Single(jsonrpc.RawObject(ms...))
	}},
	{Name: "json/wrong-type", Doc: "replaces one member anywhere in the message with a value of another JSON type", Mutate: func(r *rand.Rand, b Base) Input {
		val := cloneValue(b.Msg.Value).(map[string]any)
		o := randomObject(r, val, true)
		k := pick(r, sortedKeys(o))
		o[k] = otherTypeValue(r, o[k])
		return Single(gen.Marshal(val))
	}},
	{Name: "json/missing-member", Doc: "removes one member anywhere in the message (often a required one)", Mutate: func(r *rand.Rand, b Base) Input {
		val := cloneValue(b.Msg.Value).(map[string]any)
		o := randomObject(r, val, true)
		delete(o, pick(r, sortedKeys(o)))
		return Single(gen.Marshal(val))
	}},
	{Name: "json/extra-member", Doc: "adds an unknown member to one object of the message", Mutate: func(r *rand.Rand, b Base) Input {
		val := cloneValue(b.Msg.Value).(map[string]any)
		o := randomObject(r, val, false)
		o[pick(r, []string{"extra", "__proto__", "constructor", "x-unknown", "", "id2"})] = pick(r, []any{1, "x", nil, map[string]any{"nested": true}})
		return Single(gen.Marshal(val))
	}},
	{Name: "json/null-id", Doc: "sends a request whose id is null", Mutate: func(r *rand.Rand, b Base) Input {
		return Single(jsonrpc.RawObject(setMember(members(b.Msg.Value), "id", []byte("null"))...))
	}},
	{Name: "json/batch", Doc: "wraps messages in a JSON array (a batch), including empty and nested batches", Mutate: func(r *rand.Rand, b Base) Input {
		m := b.Msg.Raw()
		p := gen.PingFor(b.Version, "mcpcheck-batch")
		return Single(pick(r, [][]byte{
			append(append([]byte("["), m...), ']'),
			append(append(append(append([]byte("["), m...), ','), p...), ']'),
			[]byte("[]"),
			[]byte("[1,2]"),
			append(append([]byte("[["), m...), "]]"...),
		}))
	}},
	{Name: "json/wrong-jsonrpc", Doc: "sends jsonrpc other than \"2.0\": 1.0, 2.0 as a number, null, look-alikes, or none", Mutate: func(r *rand.Rand, b Base) Input {
		ms := members(b.Msg.Value)
		v := pick(r, []string{`"1.0"`, `"2"`, `2.0`, `2`, `null`, `"2.0 "`, `"２.０"`, `""`, "-"})
		if v == "-" {
			return Single(jsonrpc.RawObject(dropMember(ms, "jsonrpc")...))
		}
		return Single(jsonrpc.RawObject(setMember(ms, "jsonrpc", []byte(v))...))
	}},
	{Name: "json/not-object", Doc: "sends a JSON value that is not an object", Mutate: func(r *rand.Rand, b Base) Input {
		return Single([]byte(pick(r, []string{`"ping"`, `42`, `null`, `true`, `-0`, `1e400`})))
	}},
	{Name: "json/params-not-object", Doc: "sends params (a response's result) as an array, string, number or null", Mutate: func(r *rand.Rand, b Base) Input {
		ms := members(b.Msg.Value)
		return Single(jsonrpc.RawObject(setMember(ms, payloadKey(b.Msg.Value), []byte(pick(r, []string{`[]`, `[1,"a"]`, `"params"`, `0`, `null`, `true`})))...))
	}},
	{Name: "json/escaped-names", Doc: "spells member names with \\u escapes (\"\\u0069d\" is \"id\")", Mutate: func(r *rand.Rand, b Base) Input {
		m := b.Msg.Raw()
		for _, n := range []string{"id", "method", "jsonrpc", "params"} {
			if r.IntN(2) == 0 {
				esc := `"\u00` + hex2(n[0]) + n[1:] + `"`
				m = bytes.Replace(m, []byte(`"`+n+`":`), []byte(esc+":"), 1)
			}
		}
		return Single(m)
	}},
	{Name: "json/huge-string", Doc: "puts a string of 64 KiB to 2 MiB into params (a response's result)", Cost: Costly, Mutate: func(r *rand.Rand, b Base) Input {
		val := cloneValue(b.Msg.Value).(map[string]any)
		key := payloadKey(val)
		params, _ := val[key].(map[string]any)
		if params == nil {
			params = map[string]any{}
			val[key] = params
		}
		unit := pick(r, []string{"a", "é", "😀", "\\"})
		n := pick(r, []int{64 << 10, 512 << 10, 2 << 20}) / 4
		name := pick(r, []string{"name", "uri", "cursor", "huge"})
		return Single(marshalRepeated(val, params, name, unit, n))
	}},
	{Name: "json/lone-surrogate", Doc: "puts an unpaired UTF-16 surrogate escape into a string", Mutate: func(r *rand.Rand, b Base) Input {
		esc := []byte(pick(r, []string{`\ud800`, `\udfff`, `\ud800\u0041`, `\udc00\ud800`}))
		return Single(insertInString(r, b.Msg.Raw(), esc))
	}},
}

// marshalRepeated marshals val with params[name] set to unit repeated n
// times: the same bytes as marshal, without escaping megabytes. It
// marshals a placeholder and puts the repeated, escaped unit in its
// place; when the placeholder cannot be found it marshals the string.
func marshalRepeated(val, params map[string]any, name, unit string, n int) []byte {
	const placeholder = "mcpcheck-repeat-placeholder"
	params[name] = placeholder
	m := gen.Marshal(val)
	tok := gen.Marshal(placeholder)
	at := bytes.Index(m, tok)
	if bytes.Count(m, tok) != 1 {
		params[name] = strings.Repeat(unit, n)
		return gen.Marshal(val)
	}
	esc := gen.Marshal(unit)
	esc = esc[1 : len(esc)-1] // without its quotes
	out := make([]byte, 0, len(m)-len(tok)+2+n*len(esc))
	out = append(out, m[:at+1]...)
	for i := 0; i < n; i++ {
		out = append(out, esc...)
	}
	out = append(out, '"')
	return append(out, m[at+len(tok):]...)
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
