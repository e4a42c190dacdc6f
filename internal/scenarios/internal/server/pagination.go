package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Pagination, on every list the server offers: walks end (bounded, with
// loop detection), cursors stay usable, an invalid cursor is refused.

type listKind struct {
	method, capability, member string
}

var lists = []listKind{
	{spec.MethodToolsList, "tools", "tools"},
	{spec.MethodPromptsList, "prompts", "prompts"},
	{spec.MethodResourcesList, "resources", "resources"},
	{spec.MethodResourcesTemplatesList, "resources", "resourceTemplates"},
}

// offeredLists lists the list methods the server declared.
func offeredLists(t *T) []listKind {
	var out []listKind
	for _, l := range lists {
		if t.HasCapability(l.capability) {
			out = append(out, l)
		}
	}
	return out
}

// pagedLists returns the lists the server offers (see offeredLists) and a
// pooled session to page them on; ok is false (the check n/a) when it
// offers none.
func pagedLists(t *T) (ls []listKind, c *Conn, ok bool) {
	ls = offeredLists(t)
	if !t.Require(len(ls) > 0, "the server declared no tools, prompts or resources capability, so it has no list to page") {
		return nil, nil, false
	}
	return ls, t.Session(), true
}

type page struct {
	items  []json.RawMessage
	next   string
	hasNxt bool
	raw    json.RawMessage
}

func fetchPage(t *T, s Sess, l listKind, cursor *string) (page, error) {
	params := map[string]any{}
	if cursor != nil {
		params["cursor"] = *cursor
	}
	r := s.Call(t.Ctx, l.method, params)
	if !r.OK() {
		return page{}, fmt.Errorf("%s: %s", l.method, r.Describe())
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Result, &m); err != nil {
		return page{}, err
	}
	p := page{raw: r.Result}
	_ = json.Unmarshal(m[l.member], &p.items)
	if nc, ok := m["nextCursor"]; ok {
		p.hasNxt = json.Unmarshal(nc, &p.next) == nil
	}
	return p, nil
}

var _ = Register(
	// Exclusive: it compares pages fetched at different moments, which a tool another check calls could change.
	Def{
		ID: "pagination/walk", Exclusive: true, Area: "pagination",
		Title:        "every list walks to its end: cursors are accepted again, no cursor repeats, the walk ends within a bound",
		Requirements: []string{"pagination.server.stable-cursors"},
		Proofs:       []Proof{{Fault: "cursor-loops", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			ls, c, ok := pagedLists(t)
			if !ok {
				return
			}
			s := c.S()
			paged := 0
			for _, l := range ls {
				seen := map[string]bool{}
				var cursor *string
				pages := 0
				for {
					p, err := fetchPage(t, s, l, cursor)
					if err != nil {
						if pages == 0 {
							t.Saw("%v", err)
							break // not this check's business: the list itself failed
						}
						t.Fail("a cursor the server issued is accepted", err.Error())
						return
					}
					pages++
					stateless := t.Version().Era() == spec.Stateless
					if !p.hasNxt || (p.next == "" && !stateless) {
						break
					}
					if seen[p.next] {
						t.Fail(l.method+" ends: no cursor is issued twice", fmt.Sprintf("cursor %q came back after %d pages: the walk loops", p.next, pages))
						return
					}
					if pages >= maxPages {
						t.Fail(fmt.Sprintf("%s ends within %d pages", l.method, maxPages), "it still had a nextCursor")
						return
					}
					seen[p.next] = true
					next := p.next
					cursor = &next
					if pages == 1 {
						// Reusing a cursor gives a page again (stable cursors).
						again, err := fetchPage(t, s, l, cursor)
						q, err2 := fetchPage(t, s, l, cursor)
						if err != nil || err2 != nil {
							t.Fail("a cursor stays usable when it is sent again", fmt.Sprintf("%v %v", err, err2))
							return
						}
						if len(again.items) != len(q.items) {
							t.Fail("a cursor sent twice gives the same page", fmt.Sprintf("%d items, then %d", len(again.items), len(q.items)))
							return
						}
					}
				}
				if pages > 1 {
					paged++
				}
				t.Saw("%s: %d page(s)", l.method, pages)
			}
			if paged == 0 {
				t.Untestable("every list fits one page, so no cursor was issued to judge (a server with more items than its page size shows it)")
				return
			}
			t.Pass()
		},
	},
	Def{
		ID: "pagination/invalid-cursor", Area: "pagination",
		Title:        "a list request with a made-up cursor is refused with -32602",
		Requirements: []string{"pagination.errors.invalid-cursor"},
		Proofs:       []Proof{{Fault: "invalid-cursor-accepted", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			ls, c, ok := pagedLists(t)
			if !ok {
				return
			}
			for _, l := range ls {
				if !t.Judge(t.AskError(c, l.method, map[string]any{"cursor": "mcpcheck-not-a-cursor-7f3a"}, jsonrpc.InvalidParams)) {
					return
				}
			}
		},
	},
)
