package client

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Pagination as the client meets it, on a scenario that two rules of tools
// and prompts ride too (tools_pagination.go, prompts_pagination.go): the stage serves tools/list in pages of
// 3, 1 and 3 tools and prompts/list in pages of 1 and 2, behind cursors
// that look like data (base64 with spaces and non-ASCII, JSON) to tempt a
// client into parsing them; from 2026-07-28 the tools come in pages of 3,
// 1, 2 and 1, the last behind nextCursor "", which is a cursor there, not
// the end. Two pairs of tools differ only in case, one pair across the
// first two pages, one on the first. Every list response of every
// scenario feeds the cursor check.

// pgScenario is the paginated server.
const pgScenario = "mcpcheck-pagination"

// The cursors the stage issues, in page order.
var (
	pgToolCursors   = []string{"eyJvZmZzZXQiOjN9 == ünï/code+?&# ", `{"page":2,"of":3}`}
	pgPromptCursors = []string{"  prompts page 2 \t"}
)

// pgToolPages and pgPromptPages are how many items each page holds.
var (
	pgToolPages   = []int{3, 1, 3}
	pgPromptPages = []int{1, 2}
)

// pgTools are the listed tools. Two pairs differ only in case: Pg_case
// on the first page and pg_case on the second (a client that merges pages
// by a case-folded key loses one), and Pg_page and pg_page both on the
// first (so a client that lists one page only is asked too).
func pgTools() []server.Tool {
	names := []string{"Pg_case", "Pg_page", "pg_page", "pg_case", "pg_gamma", "pg_delta", "pg_omega"}
	out := make([]server.Tool, len(names))
	for i, n := range names {
		n := n
		out[i] = server.Tool{
			Def: mcp.Tool{Name: n, Description: "Answers with its own name (paginated listing)", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			Run: func(c *server.Call) (any, error) {
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(n)}}, nil
			},
		}
	}
	return out
}

func pgPrompts() []server.Prompt {
	var out []server.Prompt
	for _, n := range []string{"pg_prompt_one", "pg_prompt_two", "pg_prompt_three"} {
		out = append(out, server.Prompt{Def: mcp.Prompt{Name: n, Description: "A prompt on a paginated list"}})
	}
	return out
}

// pgToolLayout is how tools/list is cut in v: page sizes and the cursors
// between them. From 2026-07-28 a fourth page follows behind nextCursor "".
func pgToolLayout(v spec.Version) ([]int, []string) {
	if v.Era() == spec.Stateless {
		return []int{3, 1, 2, 1}, append(append([]string(nil), pgToolCursors...), "")
	}
	return pgToolPages, pgToolCursors
}

// pgPage serves one page of a list: the items of page i, and nextCursor
// when a page follows. An unknown cursor is -32602.
func pgPage(c *server.Call, key string, items []json.RawMessage, sizes []int, cursors []string) (any, error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(c.Params(), &p)
	page := 0
	if p.Cursor != nil {
		page = -1
		for i, cur := range cursors {
			if cur == *p.Cursor {
				page = i + 1
			}
		}
		if page < 0 {
			return nil, &server.Error{Code: jsonrpc.InvalidParams, Message: "unknown cursor: cursors are opaque, send them back as given"}
		}
	}
	start := 0
	for _, n := range sizes[:page] {
		start += n
	}
	res := map[string]any{key: items[start : start+sizes[page]]}
	if page < len(cursors) {
		res["nextCursor"] = cursors[page]
	}
	return res, nil
}

var _ = RegisterScenarios(Scenario{
	Name:  pgScenario,
	Title: "a server whose tools/list comes in pages of 3, 1 and 3 (from 2026-07-28: 3, 1, 2 and 1, the last behind nextCursor \"\") and prompts/list in pages of 1 and 2, behind cursors that look like data; two tools differ only in case",
	Acts:  Flow + "; then list every prompt (all pages)",
	Stage: func(env Env) stage.Config {
		tools, prompts := pgTools(), pgPrompts()
		var once sync.Once
		var toolDefs, promptDefs []json.RawMessage
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: tools, Prompts: prompts, Director: func(c *server.Call) (any, error, bool) {
			once.Do(func() {
				for _, t := range tools {
					b, _ := json.Marshal(t.Def)
					toolDefs = append(toolDefs, b)
				}
				for _, p := range prompts {
					b, _ := json.Marshal(p.Def)
					promptDefs = append(promptDefs, b)
				}
			})
			switch c.Method() {
			case spec.MethodToolsList:
				sizes, cursors := pgToolLayout(c.Version())
				res, err := pgPage(c, "tools", toolDefs, sizes, cursors)
				return res, err, true
			case spec.MethodPromptsList:
				res, err := pgPage(c, "prompts", promptDefs, pgPromptPages, pgPromptCursors)
				return res, err, true
			}
			return nil, nil, false
		}}}
	},
})

// pgListing is one list request of the client and the stage's answer.
type pgListing struct {
	req, ans     Msg
	answered     bool
	cursor       *string // the request's cursor (nil: none)
	next         *string // the answer's nextCursor (nil: none)
	items, index int     // items on the page; the request's place among its method's
}

// pgListings returns the client's requests of a list method in the case,
// in order, with the stage's answers.
func pgListings(c *Case, method string) []pgListing {
	var out []pgListing
	for _, m := range c.Requests(method) {
		l := pgListing{req: m, index: len(out)}
		var p struct {
			Cursor *string `json:"cursor"`
		}
		_ = json.Unmarshal(m.Msg.Params, &p)
		l.cursor = p.Cursor
		if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
			l.ans, l.answered = ans, true
			var r map[string]json.RawMessage
			_ = json.Unmarshal(ans.Msg.Result, &r)
			if raw, ok := r["nextCursor"]; ok {
				var s string
				if json.Unmarshal(raw, &s) == nil {
					l.next = &s
				}
			}
			var arr []json.RawMessage
			for _, key := range []string{"tools", "prompts", "resources", "resourceTemplates", "tasks"} {
				if json.Unmarshal(r[key], &arr) == nil && len(arr) > 0 {
					l.items = len(arr)
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// pgFollowed reports whether the client asked for method's page behind
// cursor after the listing at index i.
func pgFollowed(ls []pgListing, i int, cursor string) bool {
	for _, l := range ls[i+1:] {
		if l.cursor != nil && *l.cursor == cursor {
			return true
		}
	}
	return false
}

// pgListMethods are the list methods whose cursors the opaque check reads.
var pgListMethods = []string{spec.MethodToolsList, spec.MethodPromptsList, spec.MethodResourcesList, spec.MethodResourcesTemplatesList, spec.MethodTasksList}

var _ = Register(
	OnlyIf(Def{
		ID: "client/pagination/cursor-opaque", Area: "pagination",
		Title:        "every cursor the client sends is one the stage issued, byte for byte",
		Requirements: []string{"pagination.client.cursor-opaque"},
		Proofs:       []Proof{{Fault: "cursor-trimmed", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, method := range pgListMethods {
					ls := pgListings(c, method)
					issued := map[string]bool{}
					for _, l := range ls {
						if l.cursor != nil {
							n++
							if !issued[*l.cursor] {
								bad++
								t.Fail("cursors sent back exactly as the stage issued them",
									fmt.Sprintf("%s with cursor %q, which the stage never issued (it had issued %s) (%s)", method, *l.cursor, pgQuoted(issued), c.Scenario.Name))
							}
						}
						if l.next != nil {
							issued[*l.next] = true
						}
					}
				}
			}
			t.SettleActed(n, bad, "follow a nextCursor (list every page of the tools)", "%d cursors sent back exactly as issued")
		},
	}, DoesPaginate),
	OnlyIf(Def{
		ID: "client/pagination/short-page", Area: "pagination", Scenarios: []string{pgScenario},
		Title:        "a short page is not the end: the client follows the nextCursor of the one-tool page",
		Requirements: []string{"pagination.client.no-fixed-page-size"},
		Proofs:       []Proof{{Fault: "stop-after-short-page", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ls := pgListings(c, spec.MethodToolsList)
				for i, l := range ls {
					if !l.answered || l.next == nil || *l.next == "" || l.cursor == nil || l.items >= pgToolPages[0] {
						continue // only the short page behind a cursor ("" is empty-cursor's to judge)
					}
					n++
					if !pgFollowed(ls, i, *l.next) {
						bad++
						t.Fail("the page after a short page requested with its nextCursor",
							fmt.Sprintf("after a page of %d tool(s) with nextCursor %q the client asked for no further page (%s)", l.items, *l.next, c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "list every page of the tools", "%d short pages, each followed")
		},
	}, DoesPaginate),
	OnlyIf(Def{
		ID: "client/pagination/empty-cursor", Area: "pagination", Since: spec.V20260728, Scenarios: []string{pgScenario},
		Title:        "nextCursor \"\" is a cursor: the client asks for the next page with it",
		Requirements: []string{"pagination.client.empty-cursor-not-end"},
		Proofs:       []Proof{{Fault: "empty-cursor-is-end", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				ls := pgListings(c, spec.MethodToolsList)
				for i, l := range ls {
					if !l.answered || l.next == nil || *l.next != "" {
						continue
					}
					n++
					if !pgFollowed(ls, i, "") {
						bad++
						t.Fail(`a request with cursor "" after nextCursor ""`,
							fmt.Sprintf(`after a page with nextCursor "" the client asked for no further page (%s)`, c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "list every page of the tools", `%d empty cursors followed`)
		},
	}, DoesPaginate),
	OnlyIf(Def{
		ID: "client/pagination/end", Area: "pagination", Scenarios: []string{pgScenario},
		Title:        "a page without nextCursor is the last: the client asks for no page past it",
		Requirements: []string{"pagination.client.end-and-both-flows"},
		Proofs:       []Proof{{Fault: "page-past-end", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, method := range []string{spec.MethodToolsList, spec.MethodPromptsList} {
					ls := pgListings(c, method)
					for i, l := range ls {
						if !l.answered || l.next != nil || l.cursor == nil {
							continue // only last pages reached by a cursor
						}
						n++
						for _, later := range ls[i+1:] {
							if later.cursor == nil {
								break // a fresh listing from the start: fine
							}
							bad++
							t.Fail("no request past the last page (one without nextCursor)",
								fmt.Sprintf("after the last page of %s the client asked again with cursor %q (%s)", method, *later.cursor, c.Scenario.Name))
							break
						}
					}
				}
			}
			t.SettleActed(n, bad, "list every page of the tools", "%d last pages, none followed further")
		},
	}, DoesPaginate),
)

// pgCasePairs are the tools of mcpcheck-pagination whose names differ
// only in case: the first pair across pages 1 and 2, the second on page 1.
var pgCasePairs = [][2]string{{"Pg_case", "pg_case"}, {"Pg_page", "pg_page"}}

// pgListed reports whether a tools/list answer of the stage in c gave the
// client the tool name.
func pgListed(c *Case, name string) bool {
	for _, req := range c.Requests(spec.MethodToolsList) {
		ans, ok := c.StageAnswer(req)
		if !ok {
			continue
		}
		var res struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(ans.Msg.Result, &res)
		for _, tl := range res.Tools {
			if tl.Name == name {
				return true
			}
		}
	}
	return false
}

// pgQuoted lists issued cursors for a report.
func pgQuoted(set map[string]bool) string {
	if len(set) == 0 {
		return "none"
	}
	var out []string
	for k := range set {
		out = append(out, fmt.Sprintf("%q", k))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
