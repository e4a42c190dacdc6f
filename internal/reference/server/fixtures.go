package server

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"sort"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The fixture set: the official conformance suite's fixtures (test_*, with
// its names and behaviours) and mcpcheck's own (ref_*).

// pngBase64 is a 1×1 PNG image.
const pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

const pngDataURI = "data:image/png;base64," + pngBase64

// wavBase64 is a minimal mono 8 kHz 8-bit WAV file with a few samples.
var wavBase64 = func() string {
	samples := []byte{128, 130, 126, 128, 132, 124, 128, 128}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+len(samples)))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, binary.LittleEndian, uint32(16))
	binary.Write(&b, binary.LittleEndian, uint16(1))    // PCM
	binary.Write(&b, binary.LittleEndian, uint16(1))    // mono
	binary.Write(&b, binary.LittleEndian, uint32(8000)) // sample rate
	binary.Write(&b, binary.LittleEndian, uint32(8000)) // byte rate
	binary.Write(&b, binary.LittleEndian, uint16(1))    // block align
	binary.Write(&b, binary.LittleEndian, uint16(8))    // bits per sample
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(len(samples)))
	b.Write(samples)
	return base64.StdEncoding.EncodeToString(b.Bytes())
}()

// wire says on which era a fixture is listed.
type wire int

const (
	bothWires     wire = iota
	statelessOnly      // listed and callable only on 2026-07-28
	statefulOnly       // listed and callable only up to 2025-11-25
	hiddenHook         // callable on 2026-07-28, never listed
)

func (w wire) listed(v spec.Version) bool {
	switch w {
	case statelessOnly:
		return v.Era() == spec.Stateless
	case statefulOnly:
		return v.Era() == spec.Stateful
	case hiddenHook:
		return false
	}
	return true
}

func (w wire) callable(v spec.Version) bool {
	if w == hiddenHook {
		return v.Era() == spec.Stateless
	}
	return w.listed(v)
}

// toolFixture is one tool: its full definition (shaped per version on the
// way out) and its behaviour.
type toolFixture struct {
	def  mcp.Tool
	wire wire
	// minVersion is the oldest version that lists the tool ("" = all).
	minVersion spec.Version
	run        func(c *call) (any, error)
	// extSupport is "required" for tools that only run as tasks of the
	// 2026-07-28 tasks extension.
	extSupport mcp.TaskSupport
	// custom marks a tool of Options.Tools: its arguments are not checked
	// and its inputResponses and requestState reach it as sent.
	custom bool
	// enc holds def encoded as each version lists it (spec.Version to
	// json.RawMessage; see encoded). def must not change once the tool is
	// served.
	enc sync.Map
}

func (t *toolFixture) availableIn(v spec.Version, listing bool) bool {
	if t.minVersion != "" && v.Compare(t.minVersion) < 0 {
		return false
	}
	if listing {
		return t.wire.listed(v)
	}
	return t.wire.callable(v)
}

type resourceFixture struct {
	res  mcp.Resource
	wire wire
	read func(uri string) []mcp.ResourceContents
	// custom reads a resource of Options.Resources.
	custom func(c *Call) ([]mcp.ResourceContents, error)
}

type templateFixture struct {
	tmpl   mcp.ResourceTemplate
	prefix string // URI prefix the template matches
	suffix string
	read   func(uri, id string) []mcp.ResourceContents
}

type promptFixture struct {
	def  mcp.Prompt
	wire wire
	get  func(r *request, args map[string]string, p *mcp.GetPromptParams) (any, error)
}

// fixtures holds the server's tools, resources and prompts. The lists can
// change at run time (ref_change_lists), so access goes through the lock.
type fixtures struct {
	srv       *Server
	mu        sync.RWMutex
	tools     map[string]*toolFixture
	resources map[string]*resourceFixture
	templates []*templateFixture
	prompts   map[string]*promptFixture
	counter   int
}

func newFixtures(s *Server) *fixtures {
	f := &fixtures{srv: s, tools: map[string]*toolFixture{}, resources: map[string]*resourceFixture{}, prompts: map[string]*promptFixture{}}
	if !s.opts.NoFixtures {
		f.addBuiltIn()
	}
	f.addCustom(s.opts)
	return f
}

// addBuiltIn adds the official suite's fixtures and mcpcheck's own.
func (f *fixtures) addBuiltIn() {
	for _, t := range conformanceTools() {
		f.tools[t.def.Name] = t
	}
	for _, t := range statelessTools() {
		f.tools[t.def.Name] = t
	}
	for _, t := range taskTools() {
		f.tools[t.def.Name] = t
	}
	for _, t := range refTools() {
		f.tools[t.def.Name] = t
	}
	for _, r := range resourceFixtures() {
		f.resources[r.res.URI] = r
	}
	f.templates = templateFixtures()
	for _, p := range promptFixtures() {
		f.prompts[p.def.Name] = p
	}
	for _, t := range f.tools {
		annotateBuiltIn(t)
	}
}

// changesLists are the built-in tools that change what the server lists
// or serves to every session: they modify the server's environment
// (readOnlyHint false) but destroy nothing (destructiveHint false).
var changesLists = map[string]bool{
	"ref_change_lists": true, "ref_touch_resource": true,
	"test_trigger_tool_change": true, "test_trigger_prompt_change": true,
}

// annotateBuiltIn gives a built-in tool that has no annotations the ones
// that say what it does: every fixture but those of changesLists only
// answers its caller (logs, progress, questions to the client, tasks of
// its own), so it is read-only, and a client following the spec's
// defaults (mcpcheck --call-tools readonly among them) may call it.
func annotateBuiltIn(t *toolFixture) {
	if t.def.Annotations != nil {
		return
	}
	if changesLists[t.def.Name] {
		t.def.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false)}
		return
	}
	t.def.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}
}

func (f *fixtures) tool(name string) *toolFixture {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.tools[name]
}

func (f *fixtures) sortedTools(v spec.Version) []*toolFixture {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var out []*toolFixture
	for _, t := range f.tools {
		if t.availableIn(v, true) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].def.Name < out[j].def.Name })
	return out
}

func (f *fixtures) sortedResources(v spec.Version) []*resourceFixture {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var out []*resourceFixture
	for _, r := range f.resources {
		if r.wire.listed(v) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].res.URI < out[j].res.URI })
	return out
}

func (f *fixtures) sortedPrompts(v spec.Version) []*promptFixture {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var out []*promptFixture
	for _, p := range f.prompts {
		if p.wire.listed(v) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].def.Name < out[j].def.Name })
	return out
}

func objectSchema(props string, required ...string) json.RawMessage {
	m := map[string]any{"type": "object", "properties": json.RawMessage(props)}
	if len(required) > 0 {
		m["required"] = required
	}
	b, _ := json.Marshal(m)
	return b
}

var noArgs = objectSchema(`{}`)

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(s)}}
}

func errorResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(s)}, IsError: mcp.Bool(true)}
}

func resourceFixtures() []*resourceFixture {
	text := func(uri, mime, s string) func(string) []mcp.ResourceContents {
		return func(string) []mcp.ResourceContents { return []mcp.ResourceContents{mcp.TextContents(uri, mime, s)} }
	}
	return []*resourceFixture{
		{res: mcp.Resource{URI: "test://static-text", Name: "static-text", Title: "Static text", Description: "A fixed text resource", MimeType: "text/plain"},
			read: text("test://static-text", "text/plain", "This is the content of the static text resource.")},
		{res: mcp.Resource{URI: "test://static-binary", Name: "static-binary", Title: "Static binary", Description: "A fixed PNG image", MimeType: "image/png"},
			read: func(string) []mcp.ResourceContents {
				return []mcp.ResourceContents{mcp.BlobContents("test://static-binary", "image/png", pngBase64)}
			}},
		{res: mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Title: "Watched resource", Description: "Subscribe to it; ref_touch_resource changes it", MimeType: "text/plain"},
			read: text("test://watched-resource", "text/plain", "Watched resource content")},
		{res: mcp.Resource{URI: "test://stateless-static-text", Name: "Stateless Static Text", Description: "A fixed text resource of the stateless wire", MimeType: "text/plain"}, wire: statelessOnly,
			read: text("test://stateless-static-text", "text/plain", "Static text content from the stateless draft path.")},
		{res: mcp.Resource{URI: "ref://annotated", Name: "annotated", Title: "Annotated resource", Description: "A resource with annotations, size and icons", MimeType: "text/markdown",
			Size: mcp.Int(17), Annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser}, Priority: mcp.Float(0.5), LastModified: "2025-01-01T00:00:00Z"},
			Icons: []mcp.Icon{{Src: pngDataURI, MimeType: "image/png", Sizes: []string{"1x1"}}}},
			read: text("ref://annotated", "text/markdown", "# Annotated\nHello")},
	}
}

func templateFixtures() []*templateFixture {
	return []*templateFixture{{
		tmpl:   mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Title: "Templated data", Description: "JSON data for any id", MimeType: "application/json"},
		prefix: "test://template/", suffix: "/data",
		read: func(uri, id string) []mcp.ResourceContents {
			b, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return []mcp.ResourceContents{mcp.TextContents(uri, "application/json", string(b))}
		},
	}}
}

// noArgsTool is a bare tool definition without arguments.
func noArgsTool(name string) mcp.Tool {
	return mcp.Tool{Name: name, Description: name, InputSchema: noArgs}
}
