package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// XMCPHeader is the schema annotation that mirrors a tool argument into an
// HTTP header on the Streamable HTTP transport (2026-07-28 on). Its value is
// the name part of the header Mcp-Param-{name}.
const XMCPHeader = "x-mcp-header"

// ParamHeaderPrefix starts the name of every mirrored argument header.
const ParamHeaderPrefix = "Mcp-Param-"

// base64 sentinel of encoded header values.
const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// HeaderParam is one tool argument annotated with x-mcp-header.
type HeaderParam struct {
	// Path is the chain of property names from the schema root to the
	// argument.
	Path []string
	// Name is the x-mcp-header value.
	Name string
	// Type is the argument's JSON Schema type: string, integer or boolean.
	Type string
}

// Header is the HTTP header name, Mcp-Param-{Name}.
func (p HeaderParam) Header() string { return ParamHeaderPrefix + p.Name }

// HeaderParams finds the x-mcp-header annotations of a tool's inputSchema
// and checks the rules a client must enforce before using the tool: each
// value is a non-empty HTTP token, unique ignoring case; it annotates a
// property of type string, integer or boolean; and the property is reached
// from the root through "properties" members only. A violation is an error
// naming the path; the client must then leave the tool out of tools/list.
// The result is sorted by header name.
func HeaderParams(inputSchema json.RawMessage) ([]HeaderParam, error) {
	if !bytes.Contains(inputSchema, []byte(XMCPHeader)) && !bytes.Contains(inputSchema, []byte(`\u`)) {
		// No annotation can be in it (a key spelled with escapes would
		// show \u): only whether it is JSON is left to say, and a list of
		// 200,000 tools is not decoded 200,000 times.
		var raw json.RawMessage
		if err := json.Unmarshal(inputSchema, &raw); err != nil {
			return nil, fmt.Errorf("mcp: inputSchema is not JSON: %v", err)
		}
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, fmt.Errorf("mcp: inputSchema is not JSON: %v", err)
	}
	var out []HeaderParam
	seen := map[string]string{}
	var walk func(node any, path []string, reachable bool, where string) error
	walk = func(node any, path []string, reachable bool, where string) error {
		switch n := node.(type) {
		case []any:
			for i, c := range n {
				if err := walk(c, path, false, fmt.Sprintf("%s/%d", where, i)); err != nil {
					return err
				}
			}
		case map[string]any:
			if v, ok := n[XMCPHeader]; ok {
				p, err := checkHeaderAnnotation(n, v, path, reachable, where)
				if err != nil {
					return err
				}
				key := strings.ToLower(p.Name)
				if prev, dup := seen[key]; dup {
					return fmt.Errorf("mcp: %s at %s repeats header name %q already used at %s (names must be unique ignoring case)", XMCPHeader, where, p.Name, prev)
				}
				seen[key] = where
				out = append(out, p)
			}
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				switch k {
				case XMCPHeader, "const", "enum", "default", "examples":
					continue // instance data, not subschemas
				case "properties":
					props, ok := n[k].(map[string]any)
					if !ok {
						continue
					}
					names := make([]string, 0, len(props))
					for name := range props {
						names = append(names, name)
					}
					sort.Strings(names)
					for _, name := range names {
						child := append(append([]string(nil), path...), name)
						if err := walk(props[name], child, reachable, where+"/properties/"+name); err != nil {
							return err
						}
					}
				default:
					if err := walk(n[k], path, false, where+"/"+k); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := walk(root, nil, true, "#"); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func checkHeaderAnnotation(schema map[string]any, v any, path []string, reachable bool, where string) (HeaderParam, error) {
	if !reachable || len(path) == 0 {
		return HeaderParam{}, fmt.Errorf("mcp: %s at %s is not on a property reached from the root through \"properties\" only; move it or drop it", XMCPHeader, where)
	}
	name, ok := v.(string)
	if !ok {
		return HeaderParam{}, fmt.Errorf("mcp: %s at %s is not a string", XMCPHeader, where)
	}
	if err := checkToken(name); err != nil {
		return HeaderParam{}, fmt.Errorf("mcp: %s at %s: %v", XMCPHeader, where, err)
	}
	typ, _ := schema["type"].(string)
	switch typ {
	case "string", "integer", "boolean":
	case "number":
		return HeaderParam{}, fmt.Errorf("mcp: %s at %s annotates a number property; only string, integer and boolean are allowed", XMCPHeader, where)
	default:
		return HeaderParam{}, fmt.Errorf("mcp: %s at %s annotates a property whose type is %v; only string, integer and boolean are allowed", XMCPHeader, where, schema["type"])
	}
	return HeaderParam{Path: path, Name: name, Type: typ}, nil
}

// checkToken reports whether s is an HTTP field-name token (RFC 9110).
func checkToken(s string) error {
	if s == "" {
		return fmt.Errorf("header name is empty")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return fmt.Errorf("header name %q has character %q, which is not allowed in an HTTP token", s, c)
	}
	return nil
}

// EncodeHeaderValue returns s as it must appear in an Mcp-Name or
// Mcp-Param-* header: unchanged when it is plain visible ASCII without
// leading or trailing whitespace, and otherwise (or when it looks like the
// sentinel itself) base64 of its UTF-8 inside the =?base64?...?= sentinel.
func EncodeHeaderValue(s string) string {
	if plainHeaderValue(s) && !isSentinel(s) {
		return s
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + b64Suffix
}

// DecodeHeaderValue reverses EncodeHeaderValue. A plain value with
// characters a header may not carry, or a sentinel with bad base64, is an
// error.
func DecodeHeaderValue(h string) (string, error) {
	if isSentinel(h) {
		b, err := base64.StdEncoding.DecodeString(h[len(b64Prefix) : len(h)-len(b64Suffix)])
		if err != nil {
			return "", fmt.Errorf("mcp: header value %q has a base64 sentinel but invalid base64: %v", h, err)
		}
		return string(b), nil
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", fmt.Errorf("mcp: header value %q has byte 0x%02x, which a plain header value may not carry; the sender must base64-encode it", h, c)
		}
	}
	return h, nil
}

func isSentinel(s string) bool {
	return len(s) >= len(b64Prefix)+len(b64Suffix) && strings.HasPrefix(s, b64Prefix) && strings.HasSuffix(s, b64Suffix)
}

func plainHeaderValue(s string) bool {
	if s != strings.TrimLeft(strings.TrimRight(s, " \t"), " \t") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return false
		}
	}
	return true
}

// maxSafeInt is the largest integer JavaScript represents exactly.
const maxSafeInt = 1<<53 - 1

// HeaderArgValue converts one argument value to its header text before
// encoding: a string as is, an integer in decimal, a boolean as true or
// false. It reports false for null (the header is then left out) and an
// error for other kinds, non-integral numbers and integers outside the
// JavaScript safe range.
func HeaderArgValue(v json.RawMessage) (string, bool, error) {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0 || string(v) == "null":
		return "", false, nil
	case string(v) == "true" || string(v) == "false":
		return string(v), true, nil
	case v[0] == '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", false, err
		}
		return s, true, nil
	case v[0] == '{' || v[0] == '[':
		return "", false, fmt.Errorf("mcp: argument is %s; only strings, integers and booleans are mirrored into headers", jsonKind(v))
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(v), 64)
		if ferr != nil || f != float64(int64(f)) {
			return "", false, fmt.Errorf("mcp: argument %s is not an integer", v)
		}
		n = int64(f)
	}
	if n > maxSafeInt || n < -maxSafeInt {
		return "", false, fmt.Errorf("mcp: argument %s is outside the JavaScript safe integer range", v)
	}
	return strconv.FormatInt(n, 10), true, nil
}

// HeaderValues computes the Mcp-Param-* headers a client must send for a
// tools/call with these arguments: header name to encoded value. Arguments
// that are absent or null get no header.
func HeaderValues(params []HeaderParam, arguments json.RawMessage) (map[string]string, error) {
	out := map[string]string{}
	if len(bytes.TrimSpace(arguments)) == 0 {
		return out, nil
	}
	for _, p := range params {
		cur := arguments
		found := true
		for _, step := range p.Path {
			var obj map[string]json.RawMessage
			if json.Unmarshal(cur, &obj) != nil {
				found = false
				break
			}
			next, ok := obj[step]
			if !ok {
				found = false
				break
			}
			cur = next
		}
		if !found {
			continue
		}
		s, ok, err := HeaderArgValue(cur)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s (%s): %v", p.Header(), strings.Join(p.Path, "."), err)
		}
		if ok {
			out[p.Header()] = EncodeHeaderValue(s)
		}
	}
	return out, nil
}
