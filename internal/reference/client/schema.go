package client

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// noLoader refuses every external reference: a client must never fetch
// what a server's schema points to.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s; the client does not fetch external schemas", url)
}

// compileSchema compiles a JSON Schema (2020-12 unless it says otherwise)
// without any network or file access.
func compileSchema(schema []byte) (*jsonschema.Schema, error) {
	return compileSchemaBounded(schema, true)
}

// compileSchemaBounded is compileSchema; bounded false skips the bound on
// how far the schema's references expand.
func compileSchemaBounded(schema []byte, bounded bool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %v", err)
	}
	if d, ok := schemaDialect(doc); !ok {
		return nil, fmt.Errorf("the schema declares the JSON Schema dialect %q, which this client does not support", d)
	}
	if bounded {
		if err := schemaBound(doc); err != nil {
			return nil, err
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	const loc = "urn:mcpcheck:schema"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("the schema is unusable: %v", err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("the schema does not compile: %v", err)
	}
	return s, nil
}

// validateJSON checks instance against schema and returns a one-line
// description of the first problems.
func validateJSON(schema []byte, instance []byte) error {
	return validateJSONBounded(schema, instance, true)
}

// validateJSONBounded is validateJSON; bounded false skips the bound on
// how far the schema's references expand.
func validateJSONBounded(schema []byte, instance []byte, bounded bool) error {
	s, err := compileSchemaBounded(schema, bounded)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return fmt.Errorf("the value is not JSON: %v", err)
	}
	if err := s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return errors.New(flatten(ve))
		}
		return err
	}
	return nil
}

// flatten turns a validation error's multi-line report into one line.
func flatten(ve *jsonschema.ValidationError) string {
	var parts []string
	for _, line := range strings.Split(ve.Error(), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
		if line != "" {
			parts = append(parts, line)
		}
	}
	if len(parts) > 6 {
		parts = append(parts[:6], fmt.Sprintf("and %d more", len(parts)-6))
	}
	return strings.Join(parts, "; ")
}

// knownDialects are the $schema values the validator implements.
var knownDialects = map[string]bool{
	"https://json-schema.org/draft/2020-12/schema": true,
	"https://json-schema.org/draft/2019-09/schema": true,
	"http://json-schema.org/draft-07/schema":       true,
	"http://json-schema.org/draft-06/schema":       true,
	"http://json-schema.org/draft-04/schema":       true,
}

// schemaDialect returns the dialect a schema declares ("" for none) and
// whether the client supports it.
func schemaDialect(doc any) (string, bool) {
	m, _ := doc.(map[string]any)
	d, ok := m["$schema"].(string)
	if !ok {
		return "", true
	}
	return d, knownDialects[strings.TrimSuffix(d, "#")]
}

// maxSchemaExpansion bounds the subschemas a schema stands for once its
// local references are expanded: past it the client refuses the schema
// instead of letting a hostile one keep its validator busy.
const maxSchemaExpansion = 10000

// schemaBound counts the subschemas of doc with every local reference
// ("#/...") expanded, stopping at maxSchemaExpansion.
func schemaBound(doc any) error {
	memo := map[string]int{}
	busy := map[string]bool{}
	var count func(v any) int
	count = func(v any) int {
		n := 0
		switch x := v.(type) {
		case map[string]any:
			n = 1
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
				n += refCount(doc, ref, memo, busy, count)
			}
			for k, c := range x {
				if k == "$defs" || k == "definitions" {
					continue // counted where they are used
				}
				n += count(c)
				if n > maxSchemaExpansion {
					return n
				}
			}
		case []any:
			for _, c := range x {
				n += count(c)
				if n > maxSchemaExpansion {
					return n
				}
			}
		}
		return n
	}
	if n := count(doc); n > maxSchemaExpansion {
		return fmt.Errorf("the schema expands to more than %d subschemas once its references are followed; the client does not validate against it", maxSchemaExpansion)
	}
	return nil
}

// refCount is the expanded size of the local reference ref (memoized; a
// reference cycle counts once).
func refCount(doc any, ref string, memo map[string]int, busy map[string]bool, count func(any) int) int {
	if n, ok := memo[ref]; ok {
		return n
	}
	if busy[ref] {
		return 1
	}
	busy[ref] = true
	defer delete(busy, ref)
	target := doc
	for _, tok := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(ref, "#"), "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := target.(map[string]any)
		if !ok {
			return 1
		}
		target = m[tok]
	}
	n := count(target)
	if n > maxSchemaExpansion {
		n = maxSchemaExpansion + 1
	}
	memo[ref] = n
	return n
}
