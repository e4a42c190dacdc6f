package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// UnknownParamsMembers decodes raw as the params of method and reports, as
// JSON Pointers (RFC 6901) such as "/task/extra", the members the types do
// not model and so drop on re-encoding, plus any member whose value would
// change. _meta, arguments, schemas and other free-form values are kept
// whole and never reported. Unknown members are allowed on the wire; a
// harness uses this to report fields the protocol does not define.
func UnknownParamsMembers(method string, raw json.RawMessage) ([]string, error) {
	v, err := DecodeParams(method, raw)
	if err != nil {
		return nil, err
	}
	return unknownMembers(raw, v)
}

// UnknownResultMembers is UnknownParamsMembers for a result, decoded with
// DecodeResult.
func UnknownResultMembers(method string, raw json.RawMessage) ([]string, error) {
	v, err := DecodeResult(method, raw)
	if err != nil {
		return nil, err
	}
	return unknownMembers(raw, v)
}

func unknownMembers(raw json.RawMessage, v any) ([]string, error) {
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("mcp: re-encode %T: %v", v, err)
	}
	var a, b any
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(out, &b); err != nil {
		return nil, err
	}
	var paths []string
	diffPaths(a, b, "", &paths)
	sort.Strings(paths)
	return paths, nil
}

// diffPaths appends the pointer of every member of a that is missing from b
// or differs from it.
func diffPaths(a, b any, at string, out *[]string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, pointerOrRoot(at))
			return
		}
		for k, x := range av {
			p := at + "/" + escapePointer(k)
			y, ok := bv[k]
			if !ok {
				*out = append(*out, p)
				continue
			}
			diffPaths(x, y, p, out)
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(bv) != len(av) {
			*out = append(*out, pointerOrRoot(at))
			return
		}
		for i := range av {
			diffPaths(av[i], bv[i], at+"/"+strconv.Itoa(i), out)
		}
	default:
		if !reflect.DeepEqual(a, b) {
			*out = append(*out, pointerOrRoot(at))
		}
	}
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
