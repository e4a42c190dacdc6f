package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Resources: reading what is listed (text or base64 blob), the not-found
// error of each version (-32002 up to 2025-11-25, -32602 in 2026-07-28,
// never empty contents), URI syntax, URI validation, list changes and the
// 2026-07-28 list rules.

// resourcesListed returns the URIs of the listed resources (every page).
func resourcesListed(t *T, s Sess) ([]string, error) {
	items, err := t.Walk(s, spec.MethodResourcesList, "resources")
	return featuresNames(items, "uri"), err
}

// resourcesMissingURI makes a URI that does not exist but sits next to a
// listed one (same scheme and place, so "outside the served area" is not
// the answer), or a neutral one when nothing is listed.
func resourcesMissingURI(listed []string) string {
	for _, u := range listed {
		if u != "" && !strings.ContainsAny(u, "?#") && !strings.Contains(u, "{") {
			return u + "-mcpcheck-missing-7f3a"
		}
	}
	return "mcpcheck://missing/7f3a"
}

// resourcesReadMissing asks resources/read, on a pooled session, of a
// resource that does not exist (see resourcesMissingURI), and returns the
// session, the id and the stream of the answer; ok is false (the check
// n/a) when the server declared no resources.
func resourcesReadMissing(t *T) (s Sess, id jsonrpc.ID, st string, ok bool) {
	if !t.RequireCapability("resources") {
		return nil, jsonrpc.ID{}, "", false
	}
	c := t.Session()
	s = c.S()
	listed, _ := resourcesListed(t, s)
	uri := resourcesMissingURI(listed)
	id, st = t.Ask(c, spec.MethodResourcesRead, map[string]any{"uri": uri})
	t.Expect("resources/read of %s, which does not exist", uri)
	return s, id, st, true
}

var _ = Register(
	Def{
		ID: "resources/read-listed", Area: "resources",
		Title:        "listed resources read back as contents with uri and either text or base64 blob",
		Requirements: []string{"resources.contents.binary-encoded"},
		Proofs: []Proof{
			{Fault: "blob-not-base64", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "blob-not-base64", Version: spec.V20260728, Want: reports.Fail},
		},
		Body: func(t *T) {
			if !t.RequireCapability("resources") {
				return
			}
			c := t.Session()
			s := c.S()
			uris, err := resourcesListed(t, s)
			if t.listFailed(err, spec.MethodResourcesList) {
				return
			}
			if !t.RequireFixture(len(uris) > 0, "the server lists no resource to read") {
				return
			}
			blobs := 0
			for i, u := range uris {
				if i >= 8 {
					break
				}
				r := s.Call(t.Ctx, spec.MethodResourcesRead, map[string]any{"uri": u})
				if !r.OK() {
					t.Saw("resources/read %s: %s", u, r.Describe())
					continue
				}
				var res struct {
					Contents []struct {
						URI  string  `json:"uri"`
						Text *string `json:"text"`
						Blob *string `json:"blob"`
					} `json:"contents"`
				}
				if err := json.Unmarshal(r.Result, &res); err != nil {
					t.Saw("resources/read %s: result does not decode: %v", u, err)
					continue
				}
				for _, ct := range res.Contents {
					if ct.Blob == nil {
						continue
					}
					blobs++
					if _, err := base64.StdEncoding.DecodeString(*ct.Blob); err != nil {
						t.Fail("binary resource contents are base64 in blob", fmt.Sprintf("%s: blob %q is not base64 (%v)", ct.URI, Clip([]byte(*ct.Blob)), err))
						return
					}
				}
			}
			if blobs == 0 {
				t.Untestable("no listed resource read back as binary (blob) contents")
				return
			}
			t.Saw("%d blob contents, all base64", blobs)
			t.Pass()
		},
	},
	Def{
		ID: "resources/not-found-legacy", Area: "resources", Eras: Stateful,
		Title:        "up to 2025-11-25 reading a resource that does not exist is answered with -32002",
		Requirements: []string{"resources.errors.standard-codes-legacy"},
		Proofs:       []Proof{{Fault: "not-found-invalid-params-legacy", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if s, id, st, ok := resourcesReadMissing(t); ok {
				t.Judge(t.AnswerOn(s, st, expect.Error(id, jsonrpc.ResourceNotFound)))
			}
		},
	},
	Def{
		ID: "resources/not-found", Area: "resources", Eras: Stateless,
		Title:        "in 2026-07-28 reading a resource that does not exist is answered with -32602, never with empty contents",
		Requirements: []string{"resources.errors.not-found-invalid-params", "resources.errors.no-empty-contents-for-missing"},
		Proofs:       []Proof{{Fault: "empty-contents-for-missing", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			s, id, st, ok := resourcesReadMissing(t)
			if !ok {
				return
			}
			obs := t.AnswerOn(s, st, expect.AnyResponse(id))
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			m := obs.Frame.Msg
			if m.Error == nil {
				var res struct {
					Contents []json.RawMessage `json:"contents"`
				}
				_ = json.Unmarshal(m.Result, &res)
				if len(res.Contents) == 0 {
					t.Violation("resources.errors.no-empty-contents-for-missing", "a read of a missing resource is not answered with empty contents", "a successful result with contents []")
				}
				t.Violation("resources.errors.not-found-invalid-params", "error -32602 for a resource that does not exist", "a successful result: "+Clip(m.Result))
				return
			}
			if m.Error.Code != jsonrpc.InvalidParams {
				t.Violation("resources.errors.not-found-invalid-params", "error -32602 for a resource that does not exist", fmt.Sprintf("error %s: %s", expect.Codes([]int64{m.Error.Code}), m.Error.Message))
				return
			}
			t.Saw("error -32602: %s", m.Error.Message)
			t.Pass()
		},
	},
	Def{
		ID: "resources/uri-syntax", Area: "resources",
		Title:        "listed resource URIs are syntactically valid RFC 3986 URIs with a scheme",
		Requirements: []string{"resources.uri.custom-scheme-rfc3986"},
		Proofs:       []Proof{{Fault: "resource-uri-no-scheme", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.RequireCapability("resources") {
				return
			}
			c := t.Session()
			uris, err := resourcesListed(t, c.S())
			if t.listFailed(err, spec.MethodResourcesList) {
				return
			}
			if !t.Require(len(uris) > 0, "the server lists no resource") {
				return
			}
			for _, u := range uris {
				p, err := url.Parse(u)
				if err != nil || p.Scheme == "" {
					why := "no scheme"
					if err != nil {
						why = err.Error()
					}
					t.Fail("resource URIs are valid RFC 3986 URIs with a scheme", fmt.Sprintf("%q: %s", u, why))
					return
				}
			}
			t.Saw("%d URIs parse", len(uris))
			t.Pass()
		},
	},
	Def{
		ID: "resources/malformed-uri", Area: "resources",
		Title:        "reading a malformed URI is refused with an error, not served",
		Requirements: []string{"security.resources.validate-uris"},
		Proofs:       []Proof{{Fault: "malformed-uri-served", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.RequireCapability("resources") {
				return
			}
			c := t.Session()
			const bad = "mcpcheck:%zz/../../etc/passwd"
			id, st := t.Ask(c, spec.MethodResourcesRead, map[string]any{"uri": bad})
			t.Expect("servers validate every URI they receive: %q (bad percent-encoding, traversal) is refused", bad)
			obs := t.AnswerOn(c.S(), st, expect.Error(id), expect.Result(id, "a result with no contents", noContents))
			if obs.OK() && obs.Alt == 1 {
				// Nothing was served, and an empty answer does not tell
				// a server that validated the URI from one that answers
				// every URI it does not have so (browsermcp 0.1.3 does:
				// resources/not-found-legacy judges that answer).
				t.Untestable(fmt.Sprintf("the server answered resources/read of %q with an empty contents list: nothing was served, and an empty answer does not tell whether it validated the URI", bad))
				return
			}
			t.Judge(obs)
		},
	},
	// Exclusive: ref_change_lists changes the resource list every session sees and announces it to all of them.
	Def{
		ID: "resources/list-changed", Exclusive: true, Area: "resources", Eras: Stateful, Labels: []string{FeatureFixture("ref_change_lists")},
		Title:        "a server with resources.listChanged announces a change of its resource list with notifications/resources/list_changed",
		Requirements: []string{"resources.list-changed.server-notifies"},
		Proofs:       []Proof{{Fault: "no-resources-list-changed", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			featuresListChanged(t, "resources", "resources.listChanged", spec.MethodResourcesListChanged)
		},
	},
	// Exclusive: it compares listings taken at different moments, which a tool another check calls could change.
	Def{
		ID: "resources/list-stable", Exclusive: true, Area: "resources", Eras: Stateless,
		Title:        "in 2026-07-28 resources/list gives the current set, the same on every connection",
		Requirements: []string{"resources.list.current-set-for-caller", "resources.list.no-connection-dependence"},
		Proofs:       []Proof{{Fault: "resources-list-refused-stateless", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			featuresListStable(t, "resources", spec.MethodResourcesList, "resources", "uri", "resources.list.current-set-for-caller", "resources.list.no-connection-dependence", "")
		},
	},
)

// noContents accepts a resources/read result whose contents list is empty.
func noContents(raw json.RawMessage) error {
	var r struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if len(r.Contents) > 0 {
		return fmt.Errorf("%d contents served", len(r.Contents))
	}
	return nil
}
