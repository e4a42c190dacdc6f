package toolpolicy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ReadArgs reads a --tool-args file (see ParseArgs).
func ReadArgs(path string) (map[string][]json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tool-args: %v; give a readable JSON file", err)
	}
	args, err := ParseArgs(b)
	if err != nil {
		return nil, fmt.Errorf("--tool-args %s: %v", path, err)
	}
	return args, nil
}

// ParseArgs reads the arguments a user gives: a JSON object from tool
// name to one arguments object, or to an array of arguments objects (the
// tool is called once with each). They are used as written: what they
// consent to is the user's choice.
func ParseArgs(b []byte) (map[string][]json.RawMessage, error) {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&top); err != nil || top == nil {
		why := "it is not a JSON object"
		if err != nil {
			why = "it is not a JSON object: " + err.Error()
		}
		return nil, fmt.Errorf(`%s; write {"tool-name": {"arg": "value"}, "other-tool": [{...}, {...}]}`, why)
	}
	if dec.More() {
		return nil, errors.New("it holds more than one JSON value; write one object mapping tool names to arguments")
	}
	out := map[string][]json.RawMessage{}
	for name, raw := range top {
		raw = bytes.TrimSpace(raw)
		switch {
		case name == "":
			return nil, errors.New("an entry has an empty tool name; use the names tools/list gives")
		case len(raw) > 0 && raw[0] == '{':
			out[name] = []json.RawMessage{raw}
		case len(raw) > 0 && raw[0] == '[':
			var list []json.RawMessage
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, fmt.Errorf("the arguments of %q: %v", name, err)
			}
			if len(list) == 0 {
				return nil, fmt.Errorf("the arguments of %q are an empty list; give at least one arguments object, or drop the entry", name)
			}
			for i, a := range list {
				a = bytes.TrimSpace(a)
				if len(a) == 0 || a[0] != '{' {
					return nil, fmt.Errorf("argument set %d of %q is %s, not a JSON object; each call's arguments are an object", i+1, name, clip(a))
				}
				out[name] = append(out[name], a)
			}
		default:
			return nil, fmt.Errorf("the arguments of %q are %s; give an object, or an array of objects (one call each)", name, clip(raw))
		}
	}
	return out, nil
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// CallName returns the tool name of tools/call params, whatever their Go
// shape (a map, a struct with a "name" field, raw JSON).
func CallName(params any) (string, bool) {
	switch p := params.(type) {
	case nil:
		return "", false
	case map[string]any:
		n, ok := p["name"].(string)
		return n, ok
	case json.RawMessage:
		return rawName(p)
	case []byte:
		return rawName(p)
	}
	b, err := json.Marshal(params)
	if err != nil {
		return "", false
	}
	return rawName(b)
}

func rawName(b []byte) (string, bool) {
	var p struct {
		Name *string `json:"name"`
	}
	if json.Unmarshal(b, &p) != nil || p.Name == nil {
		return "", false
	}
	return *p.Name, true
}
