package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schemas a peer hands over (a tool's inputSchema and outputSchema, an
// elicitation's requestedSchema) are judged the same way by both suites:
// compiled under the dialect they declare (2020-12 when they declare
// none), with every external reference refused, so that judging a schema
// never fetches anything a target names.

// peerDialects are the $schema values the validator implements.
var peerDialects = map[string]bool{
	"https://json-schema.org/draft/2020-12/schema": true,
	"https://json-schema.org/draft/2019-09/schema": true,
	"http://json-schema.org/draft-07/schema":       true,
	"http://json-schema.org/draft-06/schema":       true,
	"http://json-schema.org/draft-04/schema":       true,
}

// PeerDialect returns the $schema a peer's schema declares ("" for none,
// and for a schema that is not a JSON object) and whether the validator
// implements that dialect (true when none is declared).
func PeerDialect(raw json.RawMessage) (string, bool) {
	var m struct {
		Schema *string `json:"$schema"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Schema == nil {
		return "", true
	}
	d := strings.TrimSuffix(*m.Schema, "#")
	return d, peerDialects[d]
}

// DialectName names the dialect PeerDialect returned, for a report.
func DialectName(d string) string {
	if d == "" {
		return "2020-12, none declared"
	}
	return d
}

// noFetch refuses every external schema reference.
type noFetch struct{}

func (noFetch) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema references are not fetched (%s)", url)
}

// CompilePeerSchema compiles a peer's schema under its declared dialect;
// the compiler checks it against that dialect's metaschema, so an error
// means the schema is not valid in its dialect (or refers outside
// itself). loc names the schema in errors ("tool-input:NAME").
func CompilePeerSchema(raw json.RawMessage, loc string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noFetch{})
	loc = "urn:mcpcheck:" + loc
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// ValidatePeerValue validates a JSON value against a compiled schema and
// returns a one-line reason ("" when it conforms).
func ValidatePeerValue(s *jsonschema.Schema, raw json.RawMessage) string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "not JSON: " + err.Error()
	}
	if err := s.Validate(inst); err != nil {
		return OneLine(err.Error())
	}
	return ""
}

// OneLine folds a multi-line message into one line of at most 400
// characters, for a check's evidence.
func OneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}
