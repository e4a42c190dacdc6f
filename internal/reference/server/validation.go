package server

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Tool arguments are validated against the tool's inputSchema (JSON
// Schema 2020-12 unless the schema names another dialect). References are
// resolved only inside the schema: nothing is ever fetched.

type schemaCache struct {
	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema // by tool name
	broken  map[string]error
}

// noLoader refuses every external reference.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema references are not fetched (%s)", url)
}

// compiled returns the compiled inputSchema of t.
func (c *schemaCache) compiled(t *toolFixture) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := t.def.Name
	if s := c.schemas[name]; s != nil {
		return s, nil
	}
	if err := c.broken[name]; err != nil {
		return nil, err
	}
	if c.schemas == nil {
		c.schemas, c.broken = map[string]*jsonschema.Schema{}, map[string]error{}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.def.InputSchema))
	if err == nil {
		comp := jsonschema.NewCompiler()
		comp.DefaultDraft(jsonschema.Draft2020)
		comp.UseLoader(noLoader{})
		loc := "urn:mcpcheck:tool:" + name
		if err = comp.AddResource(loc, doc); err == nil {
			var s *jsonschema.Schema
			if s, err = comp.Compile(loc); err == nil {
				c.schemas[name] = s
				return s, nil
			}
		}
	}
	c.broken[name] = err
	return nil, err
}

// validateArgs checks arguments against the tool's inputSchema and
// returns a one-line reason when they do not conform ("" when they do).
func (s *Server) validateArgs(t *toolFixture, args []byte) string {
	sch, err := s.schemas.compiled(t)
	if err != nil {
		s.logf("tool %s has an inputSchema that does not compile: %v", t.def.Name, err)
		return ""
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "arguments are not JSON: " + err.Error()
	}
	if err := sch.Validate(inst); err != nil {
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = strings.TrimSpace(msg[:i]) + " " + strings.TrimSpace(strings.ReplaceAll(msg[i+1:], "\n", " "))
		}
		return msg
	}
	return ""
}
