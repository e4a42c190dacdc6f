package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
	"github.com/mcpcheck/mcpcheck/spec"
)

// minCorpus is the least number of cases the differential test runs per version.
const minCorpus = 2000

// diffCase is one instance judged by both our schema and the official one.
type diffCase struct {
	source string // "example <page:line>", "generated", "mutant <name>"
	kind   string // request, notification, carrier, result, error
	def    string // our definition
	inst   any
}

// exclusion explains one known, deliberate disagreement with the official
// schema; see testdata/differential-exclusions.json.
type exclusion struct {
	ID       string   `json:"id"`
	Versions []string `json:"versions"`
	// Verdict is "ours-invalid" (we reject, the official schema accepts) or
	// "ours-valid" (we accept, it rejects).
	Verdict string `json:"verdict"`
	// Defs, when set, must match our definition name.
	Defs string `json:"defs"`
	// Ours must match every one of our violations ("pointer message [schema]")
	// for an ours-invalid case.
	Ours string `json:"ours"`
	// Official must match every official failure ("location @ pointer") for
	// an ours-valid case.
	Official string `json:"official"`
	// InstanceNot, when set, must not match the instance (compact JSON).
	InstanceNot string `json:"instanceNot"`
	Case        string `json:"case"`
	Reason      string `json:"reason"`

	defs, ours, official, instanceNot *regexp.Regexp
}

func loadExclusions(t *testing.T) []*exclusion {
	t.Helper()
	b, err := os.ReadFile("testdata/differential-exclusions.json")
	if err != nil {
		t.Fatalf("reading the exclusion list: %v", err)
	}
	var doc struct {
		Exclusions []*exclusion `json:"exclusions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("testdata/differential-exclusions.json: %v", err)
	}
	for _, e := range doc.Exclusions {
		if e.ID == "" || e.Reason == "" || e.Case == "" {
			t.Fatalf("exclusion %+v: id, case and reason are required", e)
		}
		comp := func(s string) *regexp.Regexp {
			if s == "" {
				return nil
			}
			re, err := regexp.Compile(s)
			if err != nil {
				t.Fatalf("exclusion %s: bad pattern %q: %v", e.ID, s, err)
			}
			return re
		}
		e.defs, e.ours, e.official, e.instanceNot = comp(e.Defs), comp(e.Ours), comp(e.Official), comp(e.InstanceNot)
		switch {
		case e.Verdict == "ours-invalid" && e.ours != nil:
		case e.Verdict == "ours-valid" && e.official != nil:
		default:
			t.Fatalf("exclusion %s: verdict must be ours-invalid (with ours) or ours-valid (with official)", e.ID)
		}
	}
	return doc.Exclusions
}

func (e *exclusion) explains(v spec.Version, c diffCase, ours []Violation, officialFails []string) bool {
	found := false
	for _, x := range e.Versions {
		found = found || x == string(v)
	}
	if !found || (e.defs != nil && !e.defs.MatchString(c.def)) {
		return false
	}
	if e.instanceNot != nil {
		b, _ := json.Marshal(c.inst)
		if e.instanceNot.Match(b) {
			return false
		}
	}
	if len(ours) > 0 {
		if e.Verdict != "ours-invalid" {
			return false
		}
		for _, o := range ours {
			if !e.ours.MatchString(o.String()) {
				return false
			}
		}
		return true
	}
	if e.Verdict != "ours-valid" || len(officialFails) == 0 {
		return false
	}
	for _, f := range officialFails {
		if !e.official.MatchString(f) {
			return false
		}
	}
	return true
}

// TestDifferential compares our verdict (valid / invalid) with the official
// schema's on, per version, every JSON example of the spec pages that is a
// message or a recognisable result, generated valid messages for every
// method, and mutations of them. Every disagreement must be explained by an
// exclusion.
func TestDifferential(t *testing.T) {
	exclusions := loadExclusions(t)
	used := map[string]int{}
	for _, v := range spec.Versions {
		t.Run(string(v), func(t *testing.T) {
			path := sharedtest.SchemaFile(string(v))
			if path == "" {
				t.Skipf("the official %s schema is not present (see sharedtest); nothing to compare", v)
			}
			if err := Load(v); errors.Is(err, ErrNoSchema) {
				t.Skipf("version %s: spec/schema/data/%s is not there yet; skipping its differential test", v, FileName(v))
			} else if err != nil {
				t.Fatal(err)
			}
			off, err := loadOfficial(v, path)
			if err != nil {
				t.Fatal(err)
			}
			cases, counts := buildCorpus(t, v)
			ours := mustDefs(t, v)
			agree, bothValid, excluded := 0, 0, map[string]int{}
			var unexplained []string
			for _, c := range cases {
				violations := ValidateDefInstance(v, c.def, c.inst)
				var envelope []string
				switch c.kind {
				case "request":
					envelope = []string{"JSONRPCRequest"}
				case "notification":
					envelope = []string{"JSONRPCNotification"}
				}
				names, err := off.counterpart(ours, c.def)
				if err != nil {
					t.Fatal(err)
				}
				offOK, offFails, err := off.verdict(c.inst, envelope, names)
				if err != nil {
					t.Fatalf("compiling the official schema of %s: %v", v, err)
				}
				if offOK == (len(violations) == 0) {
					agree++
					if offOK {
						bothValid++
					}
					continue
				}
				explained := false
				for _, e := range exclusions {
					if e.explains(v, c, violations, offFails) {
						excluded[e.ID]++
						used[e.ID]++
						explained = true
						break
					}
				}
				if explained {
					continue
				}
				b, _ := json.Marshal(c.inst)
				msg := fmt.Sprintf("%s %s (%s): ours valid=%v, official valid=%v\n  instance: %s", c.source, c.def, c.kind, len(violations) == 0, offOK, truncate(string(b), 600))
				for _, o := range violations {
					msg += "\n  ours: " + o.String()
				}
				for _, f := range offFails {
					msg += "\n  official: " + f
				}
				unexplained = append(unexplained, msg)
			}
			nEx := 0
			var ids []string
			for id, n := range excluded {
				nEx += n
				ids = append(ids, fmt.Sprintf("%s=%d", id, n))
			}
			sort.Strings(ids)
			t.Logf("%s: total %d (spec examples %d, generated %d, mutants %d), agree %d (both valid %d, both invalid %d), excluded %d %v, unexplained %d",
				v, len(cases), counts["example"], counts["generated"], counts["mutant"], agree, bothValid, agree-bothValid, nEx, ids, len(unexplained))
			if len(cases) < minCorpus {
				t.Errorf("version %s: the corpus has %d cases, want at least %d", v, len(cases), minCorpus)
			}
			for i, u := range unexplained {
				if i == 25 {
					t.Errorf("... and %d more unexplained disagreements", len(unexplained)-i)
					break
				}
				t.Errorf("unexplained disagreement: %s", u)
			}
		})
	}
	for _, e := range exclusions {
		if used[e.ID] == 0 {
			t.Logf("exclusion %s explained nothing in this run (versions %v)", e.ID, e.Versions)
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// buildCorpus assembles the cases of one version: spec examples, generated
// valid instances of every method's definitions, and their mutants.
func buildCorpus(t *testing.T, v spec.Version) ([]diffCase, map[string]int) {
	t.Helper()
	counts := map[string]int{}
	var cases []diffCase
	table, err := Methods(v)
	if err != nil {
		t.Fatal(err)
	}
	ourDefs := mustDefs(t, v)
	byName := map[string]MethodInfo{}
	for _, m := range table {
		byName[m.Name] = m
	}
	// 1. spec examples
	if dir := sharedtest.SpecDir(string(v)); dir != "" {
		examples, _, err := specExamples(dir)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{} // id -> method, per page
		page := ""
		for _, ex := range examples {
			if p := ex.where[:strings.LastIndex(ex.where, ":")]; p != page {
				page, ids = p, map[string]string{}
			}
			c, ok := classifyExample(ex, byName, ids)
			if _, has := ourDefs[c.def]; ok && !has {
				ok = false // e.g. a content block in a version without ContentBlock
			}
			if ok {
				cases = append(cases, c)
				counts["example"]++
			}
		}
	}
	// 2. generated instances and 3. their mutants
	type target struct{ kind, def string }
	var targets []target
	for _, m := range table {
		switch {
		case m.Notification != "":
			targets = append(targets, target{"notification", m.Notification})
		case m.Carrier:
			targets = append(targets, target{"carrier", m.Request}, target{"result", m.Result})
		default:
			targets = append(targets, target{"request", m.Request}, target{"result", m.Result})
		}
	}
	for range 3 { // error replies carry the code-specific rules; weigh them up
		targets = append(targets, target{"error", "JSONRPCErrorResponse"})
	}
	g := newGenerator(mustDefs(t, v), uint64(v.Index()+1)*7919)
	r := rand.New(rand.NewPCG(uint64(v.Index()+1), 42))
	for round := 0; round < 10 || len(cases) < minCorpus+200; round++ {
		for _, tg := range targets {
			gen, err := generateValid(v, g, tg.def)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := decode(gen.raw)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, diffCase{source: "generated", kind: tg.kind, def: tg.def, inst: inst})
			counts["generated"]++
			for _, mu := range mutations(r, gen, tg.kind == "request" || tg.kind == "error") {
				inst, err := decode(mu.raw)
				if err != nil {
					t.Fatal(err)
				}
				cases = append(cases, diffCase{source: "mutant " + mu.name, kind: tg.kind, def: tg.def, inst: inst})
				counts["mutant"]++
			}
		}
	}
	return cases, counts
}

// classifyExample turns a spec example into a case when it is a complete
// message of a known method or a result whose method can be told.
func classifyExample(ex specExample, methods map[string]MethodInfo, ids map[string]string) (diffCase, bool) {
	m, ok := ex.value.(map[string]any)
	if !ok {
		return diffCase{}, false
	}
	src := "example " + ex.where
	if name, ok := m["method"].(string); ok {
		info, known := methods[name]
		if !known {
			return diffCase{}, false
		}
		id, hasID := m["id"]
		switch {
		case info.Carrier:
			return diffCase{source: src, kind: "carrier", def: info.Request, inst: m}, true
		case info.Notification != "":
			return diffCase{source: src, kind: "notification", def: info.Notification, inst: m}, true
		case hasID:
			ids[idKey(id)] = name
			return diffCase{source: src, kind: "request", def: info.Request, inst: m}, true
		}
		return diffCase{}, false
	}
	if _, ok := m["error"]; ok {
		if _, ok := m["jsonrpc"]; ok {
			return diffCase{source: src, kind: "error", def: "JSONRPCErrorResponse", inst: m}, true
		}
		return diffCase{}, false
	}
	res, ok := m["result"].(map[string]any)
	if !ok {
		if _, isMsg := m["jsonrpc"]; isMsg {
			return diffCase{}, false
		}
		return classifyBare(src, m, methods)
	}
	method := ids[idKey(m["id"])]
	if method == "" {
		for _, h := range resultHints {
			if _, ok := res[h.member]; ok {
				method = h.method
				break
			}
		}
	}
	info, known := methods[method]
	if !known || info.Result == "" {
		return diffCase{}, false
	}
	return diffCase{source: src + " (" + method + " result)", kind: "result", def: info.Result, inst: res}, true
}

// bareResultHints recognise a result shown without its JSON-RPC envelope by a
// member no other shape has.
var bareResultHints = []struct{ member, method string }{
	{"tools", "tools/list"},
	{"prompts", "prompts/list"},
	{"resourceTemplates", "resources/templates/list"},
	{"resources", "resources/list"},
	{"contents", "resources/read"},
	{"completion", "completion/complete"},
	{"roots", "roots/list"},
	{"supportedVersions", "server/discover"},
	{"action", "elicitation/create"},
	{"model", "sampling/createMessage"},
}

var contentTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}

// classifyBare recognises an example that is not a message: a result without
// its envelope, a tool definition or a content block.
func classifyBare(src string, m map[string]any, methods map[string]MethodInfo) (diffCase, bool) {
	for _, h := range bareResultHints {
		if _, ok := m[h.member]; ok {
			info, known := methods[h.method]
			if !known {
				return diffCase{}, false
			}
			return diffCase{source: src + " (bare " + h.method + " result)", kind: "result", def: info.Result, inst: m}, true
		}
	}
	if _, ok := m["inputSchema"]; ok {
		if _, ok := m["name"]; ok {
			return diffCase{source: src + " (tool)", kind: "def", def: "Tool", inst: m}, true
		}
	}
	if t, ok := m["type"].(string); ok && contentTypes[t] {
		if _, ok := m["properties"]; !ok {
			return diffCase{source: src + " (content block)", kind: "def", def: "ContentBlock", inst: m}, true
		}
	}
	return diffCase{}, false
}
