package asuite

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Client ID metadata documents (2025-11-25 on): the checks host documents
// on a loopback port (docHost) and use their URLs as client_ids. Every
// check first has a valid document's request granted (else untestable:
// the authorization server cannot reach mcpcheck's host, or refuses its
// http URL), then presents the one defect it is about.

// cimdRequest sends the valid authorization request of a client whose
// document d is hosted; it returns the client and the answer.
func (t *T) cimdRequest(d docSpec) (*client, authorization, bool) {
	id := t.env.host.add(d)
	c := &client{id: id, redirect: DefaultRedirectURI, how: "the client whose metadata document mcpcheck hosts at " + id}
	a, ok := t.authorize(t.validRequest(c).params)
	return c, a, ok
}

// cimdBaseline has a valid document's request granted, or ends the check
// untestable.
func (t *T) cimdBaseline() bool {
	md, ok := t.metadata()
	if !ok {
		return false
	}
	if md["client_id_metadata_document_supported"] != true {
		t.NotApplicable("the metadata does not set client_id_metadata_document_supported: the authorization server does not accept client ID metadata documents (authserver/cimd-supported judges that)")
		return false
	}
	c, a, ok := t.cimdRequest(docSpec{redirect: DefaultRedirectURI})
	if !ok {
		return false
	}
	if !a.to(c.redirect) || a.params.Get("code") == "" {
		t.Untestable(fmt.Sprintf("a valid request of %s was answered %s, not granted (fetched %d times): the authorization server cannot use mcpcheck's document (an authorization server not on this machine cannot reach it; one accepting https URLs only refuses it)", c.how, a, t.env.host.fetches(c.id)))
		return false
	}
	t.Saw("a valid request of %s was granted", c.how)
	return true
}

// cimdRefused presents a client whose document is d (or a request with
// redirect) and judges that it gets no code.
func (t *T) cimdRefused(req, what string, d docSpec, redirect string) {
	id := t.env.host.add(d)
	c := &client{id: id, redirect: DefaultRedirectURI}
	p := t.validRequest(c).params
	if redirect != "" {
		p.Set("redirect_uri", redirect)
	}
	a, ok := t.authorize(p)
	if !ok {
		return
	}
	t.Saw("%s (fetched %d times): %s", what, t.env.host.fetches(id), a)
	if a.params.Get("code") != "" {
		t.Violation(req, what+" refused", "a code was issued: "+a.String())
	}
}

var _ = Register(
	Def{
		ID:           "authserver/cimd-supported",
		Title:        "the authorization server advertises client ID metadata documents and, given a URL client_id, fetches the document and grants its valid request",
		Requirements: []string{reqCIMDSupport, reqCIMDFetches},
		Proofs:       []Proof{{Fault: "no-cimd", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			md, ok := t.metadata()
			if !ok {
				return
			}
			adv := md["client_id_metadata_document_supported"]
			t.Saw("client_id_metadata_document_supported: %v", adv)
			if adv != true {
				t.Violation(reqCIMDSupport, "client_id_metadata_document_supported true in the metadata", fmt.Sprintf("%v", adv))
			}
			c, a, ok := t.cimdRequest(docSpec{redirect: DefaultRedirectURI})
			if !ok {
				return
			}
			n := t.env.host.fetches(c.id)
			t.Saw("a valid request of %s: %s; the document was fetched %d times", c.how, a, n)
			granted := a.to(c.redirect) && a.params.Get("code") != ""
			switch {
			case granted && n == 0:
				t.Violation(reqCIMDFetches, "the metadata document fetched from the client_id URL", "a code was issued without fetching it")
			case granted:
			case adv != true:
				t.Violation(reqCIMDSupport, "a URL client_id resolved through its metadata document", "refused: "+a.String())
			case n > 0:
				t.Untestable("the authorization server fetched mcpcheck's document but refused the request (" + a.String() + "): it may accept https documents only")
				return
			default:
				t.Untestable("the authorization server did not fetch mcpcheck's document at " + c.id + " (" + a.String() + "): one not on this machine cannot reach it")
				return
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/cimd-client-id",
		Title:        "a client ID metadata document whose client_id differs from its URL is refused",
		Requirements: []string{reqCIMDClientID},
		Proofs:       []Proof{{Fault: "cimd-client-id-mismatch", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.cimdBaseline() {
				return
			}
			t.cimdRefused(reqCIMDClientID, "a document naming client_id https://other.mcpcheck.invalid/client.json", docSpec{redirect: DefaultRedirectURI, clientID: "https://other.mcpcheck.invalid/client.json"}, "")
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/cimd-redirect",
		Title:        "a metadata-document client's request with a redirect_uri its document does not list is refused",
		Requirements: []string{reqCIMDRedirect},
		Proofs:       []Proof{{Fault: "cimd-redirect-unchecked", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.cimdBaseline() {
				return
			}
			for _, nm := range append(nearMisses(DefaultRedirectURI), untrustedRedirect) {
				t.cimdRefused(reqCIMDRedirect, "a request with redirect_uri "+nm+", which the document does not list (it lists "+DefaultRedirectURI+")", docSpec{redirect: DefaultRedirectURI}, nm)
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/cimd-document",
		Title:        "a client ID metadata document that is not JSON, or lacks redirect_uris, is refused",
		Requirements: []string{reqCIMDDocument},
		Proofs:       []Proof{{Fault: "cimd-document-unchecked", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.cimdBaseline() {
				return
			}
			t.cimdRefused(reqCIMDDocument, "a document that is not JSON", docSpec{raw: "<html>mcpcheck: not a client metadata document</html>"}, "")
			t.cimdRefused(reqCIMDDocument, "a document without redirect_uris", docSpec{}, "")
			if t.Open() {
				t.Pass()
			}
		},
	},
	Def{
		ID:           "authserver/cimd-caching",
		Title:        "client ID metadata documents are cached as their Cache-Control allows: fetched again under no-store, reused under max-age",
		Requirements: []string{reqCIMDCaches},
		Proofs:       []Proof{{Fault: "cimd-cache-ignores-headers", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			if !t.cimdBaseline() {
				return
			}
			for _, x := range []struct {
				cache string
				want  int
				what  string
			}{{"no-store", 2, "fetched again for the second request (it may not be stored)"}, {"max-age=3600", 1, "reused for the second request within its max-age"}} {
				id := t.env.host.add(docSpec{redirect: DefaultRedirectURI, cache: x.cache})
				c := &client{id: id, redirect: DefaultRedirectURI}
				granted := 0
				for i := 0; i < 2; i++ {
					a, ok := t.authorize(t.validRequest(c).params)
					if !ok {
						return
					}
					if a.params.Get("code") != "" {
						granted++
					}
				}
				n := t.env.host.fetches(id)
				t.Saw("a document served with Cache-Control %s, two requests (%d granted): fetched %d times", x.cache, granted, n)
				if granted != 2 {
					t.Untestable(fmt.Sprintf("of two valid requests of the client with Cache-Control %s, %d were granted", x.cache, granted))
					return
				}
				if n != x.want {
					t.Violation(reqCIMDCaches, fmt.Sprintf("a document with Cache-Control %s %s", x.cache, x.what), fmt.Sprintf("fetched %d times for two requests", n))
				}
			}
			if t.Open() {
				t.Pass()
			}
		},
	},
)
