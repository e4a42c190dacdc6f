package schema

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// official is the official schema of one version, compiled with
// jsonschema/v6 for the differential test. It is read from /work/shared at
// test time and never copied into the project.
type official struct {
	version spec.Version
	url     string
	defsKey string // "definitions" (draft-07) or "$defs" (2020-12)
	defs    map[string]any
	c       *jsonschema.Compiler
	cache   map[string]*jsonschema.Schema
}

func loadOfficial(v spec.Version, path string) (*official, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("official schema %s: %v", path, err)
	}
	m := doc.(map[string]any)
	o := &official{version: v, url: "https://official.invalid/" + string(v) + "/schema.json", cache: map[string]*jsonschema.Schema{}}
	for _, k := range []string{"$defs", "definitions"} {
		if d, ok := m[k].(map[string]any); ok {
			o.defsKey, o.defs = k, d
		}
	}
	if o.defs == nil {
		return nil, fmt.Errorf("official schema %s has neither $defs nor definitions", path)
	}
	o.c = jsonschema.NewCompiler()
	if err := o.c.AddResource(o.url, doc); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *official) has(name string) bool { _, ok := o.defs[name]; return ok }

func (o *official) schema(name string) (*jsonschema.Schema, error) {
	if s, ok := o.cache[name]; ok {
		return s, nil
	}
	s, err := o.c.Compile(o.url + "#/" + o.defsKey + "/" + name)
	if err != nil {
		return nil, err
	}
	o.cache[name] = s
	return s, nil
}

// officialAliases names official definitions whose name differs from ours.
var officialAliases = map[string][]string{
	"JSONRPCErrorResponse":  {"JSONRPCError"},
	"JSONRPCResultResponse": {"JSONRPCResponse"},
}

// counterpart maps one of our definitions to the official definitions an
// instance may match (any of them). Our unions (CallToolResultOrTask and the
// like) map to the official names of their alternatives.
func (o *official) counterpart(ours map[string]any, def string) ([]string, error) {
	if o.has(def) {
		return []string{def}, nil
	}
	for _, a := range officialAliases[def] {
		if o.has(a) {
			return []string{a}, nil
		}
	}
	if m, ok := ours[def].(map[string]any); ok {
		if alts, ok := m["anyOf"].([]any); ok {
			var out []string
			for _, a := range alts {
				r, _ := a.(map[string]any)["$ref"].(string)
				if r == "" {
					return nil, fmt.Errorf("union %s has a non-$ref alternative", def)
				}
				sub, err := o.counterpart(ours, strings.TrimPrefix(r, "#/$defs/"))
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("version %s: our definition %s has no official counterpart; add it to officialAliases", o.version, def)
}

// verdict validates inst against every named official definition (all must
// pass: envelope and body) and returns the failure locations when it fails.
func (o *official) verdict(inst any, all []string, anyOf []string) (bool, []string, error) {
	var locs []string
	for _, n := range all {
		s, err := o.schema(n)
		if err != nil {
			return false, nil, err
		}
		if err := s.Validate(inst); err != nil {
			return false, officialLeaves(err), nil
		}
	}
	if len(anyOf) == 0 {
		return true, nil, nil
	}
	for _, n := range anyOf {
		s, err := o.schema(n)
		if err != nil {
			return false, nil, err
		}
		err = s.Validate(inst)
		if err == nil {
			return true, nil, nil
		}
		locs = append(locs, officialLeaves(err)...)
	}
	return false, locs, nil
}

var officialPrefix = regexp.MustCompile(`^https://official\.invalid/[^/]+/`)

// officialLeaves lists "<schema location> @ <instance pointer>" for every
// leaf failure of an official validation error.
func officialLeaves(err error) []string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := officialPrefix.ReplaceAllString(e.SchemaURL, "") + pointer(e.ErrorKind.KeywordPath())
			out = append(out, loc+" @ "+pointer(e.InstanceLocation))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}
