// Package schema holds mcpcheck's own JSON Schemas for every released MCP
// protocol version (embedded, draft 2020-12) and validates raw JSON-RPC
// messages against them.
//
// Conventions of the schema files (data/<version>.json):
//   - all definitions live under $defs and carry the protocol's type names;
//   - request and notification definitions describe the whole JSON-RPC
//     message, result definitions the value of the "result" member;
//   - the top-level member "x-mcpcheck-methods" maps each method name to its
//     direction and definitions (see MethodInfo).
//
// Schemas are compiled lazily, one definition at a time, and cached; every
// exported function is safe for concurrent use.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"sync"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MethodInfo is one entry of a schema file's x-mcpcheck-methods table.
type MethodInfo struct {
	Name      string
	Direction spec.Direction
	// Request and Result name the definitions of a request method; both are
	// empty for notifications.
	Request string
	Result  string
	// Notification names the definition of a notification method.
	Notification string
	// Carrier marks the 2026-07-28 shapes that only travel inside
	// inputRequests / inputResponses.
	Carrier bool
}

// Kind tells whether the method is a request or a notification.
func (m MethodInfo) Kind() spec.MessageKind {
	if m.Notification != "" {
		return spec.NotificationMethod
	}
	return spec.RequestMethod
}

// FileName is the name of a version's schema file inside the package's data
// directory, also used as the prefix of Violation.Schema.
func FileName(v spec.Version) string { return string(v) + ".json" }

// SchemaID is the $id a version's schema file must declare.
func SchemaID(v spec.Version) string { return "https://mcpcheck.dev/schema/" + FileName(v) }

// versionSchema is the loaded and lazily compiled schema of one version.
type versionSchema struct {
	version spec.Version
	raw     []byte
	doc     map[string]any
	defs    map[string]any
	methods map[string]MethodInfo

	// mu serialises compilation (the compiler is not safe for concurrent
	// use); compiled is read without locking.
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled sync.Map // definition name -> *jsonschema.Schema
}

var (
	registryMu sync.Mutex
	registry   = map[spec.Version]*loadResult{}
)

type loadResult struct {
	once sync.Once
	s    *versionSchema
	err  error
}

// load returns the parsed schema of v, reading and checking the embedded
// file once.
func load(v spec.Version) (*versionSchema, error) {
	registryMu.Lock()
	r, ok := registry[v]
	if !ok {
		r = &loadResult{}
		registry[v] = r
	}
	registryMu.Unlock()
	r.once.Do(func() { r.s, r.err = parse(v) })
	return r.s, r.err
}

// ErrNoSchema is wrapped by the errors Load returns for a version that has no
// embedded schema file.
var ErrNoSchema = errors.New("no embedded schema")

// Available lists the versions that have an embedded schema file, oldest first.
func Available() []spec.Version {
	var out []spec.Version
	for _, v := range spec.Versions {
		if _, err := fs.Stat(dataFS, "data/"+FileName(v)); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// Raw returns the bytes of a version's embedded schema file.
func Raw(v spec.Version) ([]byte, error) {
	s, err := load(v)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(s.raw), nil
}

// Load reads, parses and checks the schema of v without compiling any
// definition. It is called implicitly by every other function; tests call it
// to surface a broken file early.
func Load(v spec.Version) error {
	_, err := load(v)
	return err
}

func parse(v spec.Version) (*versionSchema, error) {
	if !v.Known() {
		return nil, fmt.Errorf("schema: %q is not a released protocol version (want one of %v): %w", v, spec.VersionStrings(), ErrNoSchema)
	}
	name := "data/" + FileName(v)
	raw, err := dataFS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("schema: version %s has no %s in spec/schema: %w", v, name, ErrNoSchema)
	}
	docAny, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema: %s is not valid JSON: %v; fix the file", name, err)
	}
	doc, ok := docAny.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema: %s must hold a JSON object", name)
	}
	if id, _ := doc["$id"].(string); id != SchemaID(v) {
		return nil, fmt.Errorf("schema: %s declares $id %q, want %q", name, id, SchemaID(v))
	}
	if d, _ := doc["$schema"].(string); d != "https://json-schema.org/draft/2020-12/schema" {
		return nil, fmt.Errorf("schema: %s declares $schema %q, want the draft 2020-12 URI", name, d)
	}
	defs, ok := doc["$defs"].(map[string]any)
	if !ok || len(defs) == 0 {
		return nil, fmt.Errorf("schema: %s has no $defs object", name)
	}
	s := &versionSchema{version: v, raw: raw, doc: doc, defs: defs}
	if s.methods, err = parseMethods(name, doc, defs); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(SchemaID(v), doc); err != nil {
		return nil, fmt.Errorf("schema: cannot register %s: %v", name, err)
	}
	s.compiler = c
	return s, nil
}

// methodEntry is the wire form of one x-mcpcheck-methods entry.
type methodEntry struct {
	Direction    string `json:"direction"`
	Request      string `json:"request"`
	Result       string `json:"result"`
	Notification string `json:"notification"`
	Carrier      bool   `json:"carrier"`
}

func parseMethods(name string, doc, defs map[string]any) (map[string]MethodInfo, error) {
	rawTable, ok := doc["x-mcpcheck-methods"]
	if !ok {
		return nil, fmt.Errorf("schema: %s has no x-mcpcheck-methods table", name)
	}
	b, err := json.Marshal(rawTable)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: x-mcpcheck-methods: %v", name, err)
	}
	var table map[string]methodEntry
	if err := json.Unmarshal(b, &table); err != nil {
		return nil, fmt.Errorf("schema: %s: x-mcpcheck-methods must map method names to {direction, request, result} or {direction, notification}: %v", name, err)
	}
	out := make(map[string]MethodInfo, len(table))
	for m, e := range table {
		info := MethodInfo{Name: m, Request: e.Request, Result: e.Result, Notification: e.Notification, Carrier: e.Carrier}
		switch e.Direction {
		case "client-to-server":
			info.Direction = spec.ClientToServer
		case "server-to-client":
			info.Direction = spec.ServerToClient
		case "both":
			info.Direction = spec.Both
		default:
			return nil, fmt.Errorf("schema: %s: method %q has direction %q; use client-to-server, server-to-client or both", name, m, e.Direction)
		}
		isReq := e.Request != "" || e.Result != ""
		if isReq == (e.Notification != "") || (isReq && (e.Request == "" || e.Result == "")) {
			return nil, fmt.Errorf("schema: %s: method %q must name either request and result, or notification", name, m)
		}
		for _, d := range []string{e.Request, e.Result, e.Notification} {
			if d == "" {
				continue
			}
			if _, ok := defs[d]; !ok {
				return nil, fmt.Errorf("schema: %s: method %q names definition %q, which is not in $defs", name, m, d)
			}
		}
		out[m] = info
	}
	return out, nil
}

// Methods returns the x-mcpcheck-methods table of v, sorted by method name.
func Methods(v spec.Version) ([]MethodInfo, error) {
	s, err := load(v)
	if err != nil {
		return nil, err
	}
	out := make([]MethodInfo, 0, len(s.methods))
	for _, m := range s.methods {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// LookupMethod returns the table entry of one method in v.
func LookupMethod(v spec.Version, method string) (MethodInfo, bool) {
	s, err := load(v)
	if err != nil {
		return MethodInfo{}, false
	}
	m, ok := s.methods[method]
	return m, ok
}

// Defs returns the names of every definition in v's schema, sorted.
func Defs(v spec.Version) ([]string, error) {
	s, err := load(v)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(s.defs))
	for d := range s.defs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

// def returns the compiled schema of one definition, compiling it on first
// use.
func (s *versionSchema) def(name string) (*jsonschema.Schema, error) {
	if sch, ok := s.compiled.Load(name); ok {
		return sch.(*jsonschema.Schema), nil
	}
	if _, ok := s.defs[name]; !ok {
		return nil, fmt.Errorf("schema: version %s has no definition %q; see Defs for the list: %w", s.version, name, ErrNoSchema)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled.Load(name); ok {
		return sch.(*jsonschema.Schema), nil
	}
	sch, err := s.compiler.Compile(SchemaID(s.version) + "#/$defs/" + escapeToken(name))
	if err != nil {
		return nil, fmt.Errorf("schema: compiling %s#/$defs/%s failed: %v; the schema file is broken", FileName(s.version), name, err)
	}
	s.compiled.Store(name, sch)
	return sch, nil
}
