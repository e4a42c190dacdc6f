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
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %v", err)
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
	s, err := compileSchema(schema)
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
