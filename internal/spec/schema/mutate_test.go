package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
)

// mutant is one mutated instance and the name of the mutation that made it.
type mutant struct {
	name string
	raw  []byte
}

// mutations derives invalid-looking variants of a valid instance: a required
// member dropped, a value of the wrong type, a const or enum value changed,
// an extra member, a null id, any member dropped.
func mutations(r *rand.Rand, gen generated, isMessage bool) []mutant {
	var out []mutant
	add := func(name string, f func(root any) bool) {
		root, err := decodeGeneric(gen.raw)
		if err != nil {
			return
		}
		if !f(root) {
			return
		}
		raw, err := json.Marshal(root)
		if err == nil {
			out = append(out, mutant{name: name, raw: raw})
		}
	}
	pick := func(paths [][]string) []string {
		if len(paths) == 0 {
			return nil
		}
		return paths[r.IntN(len(paths))]
	}
	add("drop-required", func(root any) bool {
		p := pick(gen.required)
		return p != nil && deleteAt(root, p)
	})
	add("wrong-type", func(root any) bool {
		paths := allPaths(root, nil)
		if len(paths) == 0 {
			return false
		}
		p := paths[r.IntN(len(paths))]
		cur, _ := getAt(root, p)
		return setAt(root, p, otherType(r, cur))
	})
	add("wrong-const", func(root any) bool {
		p := pick(gen.consts)
		if p == nil {
			return false
		}
		cur, _ := getAt(root, p)
		switch c := cur.(type) {
		case string:
			return setAt(root, p, c+"-x")
		case json.Number:
			return setAt(root, p, json.Number(c.String()+"1"))
		}
		return setAt(root, p, "changed")
	})
	add("wrong-enum", func(root any) bool {
		p := pick(gen.enums)
		return p != nil && setAt(root, p, "not-an-allowed-value")
	})
	add("extra-member", func(root any) bool {
		objs := objectPaths(root, nil)
		if len(objs) == 0 {
			return false
		}
		p := objs[r.IntN(len(objs))]
		o, _ := getAt(root, p)
		o.(map[string]any)["x-mcpcheck-extra"] = json.Number("1")
		return true
	})
	if isMessage {
		add("null-id", func(root any) bool {
			m, ok := root.(map[string]any)
			if !ok {
				return false
			}
			if _, has := m["id"]; !has {
				return false
			}
			m["id"] = nil
			return true
		})
	}
	add("error-code", func(root any) bool {
		codes := []string{"-32002", "-32042", "-32020", "-32021", "-32022", "-32700", "-32601"}
		e, ok := getAt(root, []string{"error"})
		if m, isObj := e.(map[string]any); ok && isObj {
			m["code"] = json.Number(codes[r.IntN(len(codes))])
			return true
		}
		return false
	})
	add("drop-any", func(root any) bool {
		paths := allPaths(root, nil)
		var members [][]string
		for _, p := range paths {
			if parent, ok := getAt(root, p[:len(p)-1]); ok {
				if _, isObj := parent.(map[string]any); isObj {
					members = append(members, p)
				}
			}
		}
		if len(members) == 0 {
			return false
		}
		return deleteAt(root, members[r.IntN(len(members))])
	})
	return out
}

func otherType(r *rand.Rand, cur any) any {
	choices := []any{nil, true, json.Number("7"), json.Number("2.5"), "text", []any{}, map[string]any{}}
	for {
		c := choices[r.IntN(len(choices))]
		if jsonType(c) != jsonType(cur) {
			return c
		}
		if n, ok := cur.(json.Number); ok {
			if _, err := n.Int64(); err == nil && c == json.Number("2.5") {
				return c // integer -> fractional number is a type change for "integer"
			}
		}
	}
}

func getAt(root any, p []string) (any, bool) {
	cur := root
	for _, tok := range p {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func setAt(root any, p []string, v any) bool {
	if len(p) == 0 {
		return false
	}
	parent, ok := getAt(root, p[:len(p)-1])
	if !ok {
		return false
	}
	last := p[len(p)-1]
	switch c := parent.(type) {
	case map[string]any:
		if _, ok := c[last]; !ok {
			return false
		}
		c[last] = v
		return true
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(c) {
			return false
		}
		c[i] = v
		return true
	}
	return false
}

func deleteAt(root any, p []string) bool {
	if len(p) == 0 {
		return false
	}
	parent, ok := getAt(root, p[:len(p)-1])
	if !ok {
		return false
	}
	m, ok := parent.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m[p[len(p)-1]]; !ok {
		return false
	}
	delete(m, p[len(p)-1])
	return true
}

// allPaths lists the paths of every value below root (root excluded), in a
// stable order.
func allPaths(root any, p []string) [][]string {
	var out [][]string
	switch c := root.(type) {
	case map[string]any:
		keys := make([]string, 0, len(c))
		for k := range c {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			q := clonePath(p, k)
			out = append(out, q)
			out = append(out, allPaths(c[k], q)...)
		}
	case []any:
		for i, v := range c {
			q := clonePath(p, fmt.Sprint(i))
			out = append(out, q)
			out = append(out, allPaths(v, q)...)
		}
	}
	return out
}

func objectPaths(root any, p []string) [][]string {
	var out [][]string
	if _, ok := root.(map[string]any); ok {
		out = append(out, clonePath(p))
	}
	for _, q := range allPaths(root, p) {
		if v, _ := getAt(root, q[len(p):]); v != nil {
			if _, ok := v.(map[string]any); ok {
				out = append(out, q)
			}
		}
	}
	return out
}
