package authorization

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/internal/client"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Authorization checks about discovery: the protected resource metadata,
// the authorization server metadata (RFC 8414 and OpenID discovery, in the
// specified order), the 2025-03-26 layout (base URL, default endpoints),
// and whether a client answers a 401 with MCP's OAuth flow at all.

// Requirement IDs the discovery checks cite.
const (
	idChallengeParses  = "authorization.www-authenticate.client-parses"
	idprmFromHeader    = "authorization.prm.client-prefers-header-url"
	idprmFallback      = "authorization.prm.client-well-known-fallback"
	idprmForDiscovery  = "authorization.prm.client-uses-for-discovery"
	idFollowDiscovery  = "authorization.discovery.follow-requirements"
	idRootIssuerOrder  = "authorization.as-metadata.root-issuer-order"
	idPathIssuerOrder  = "authorization.as-metadata.path-issuer-order"
	idBothMechanisms   = "authorization.as-metadata.client-supports-both-mechanisms"
	idTriesMultiple    = "authorization.as-metadata.client-tries-multiple"
	idIssuerValidation = "authorization.as-metadata.issuer-validation"
	idUsesRFC8414      = "authorization.as-metadata.client-uses-rfc8414"
	idDiscardPath      = "authorization.base-url.discard-path"
	idUsesDefaults     = "authorization.default-endpoints.client-uses-defaults"
	idMetadataFirst    = "authorization.default-endpoints.metadata-first"
	iddcrShould        = "authorization.dcr.client-should-support"
	iddcrShould0326    = "authorization.dcr.server-and-client-should-support"
	idhttpUsesMCPAuth  = "authorization.index.http-uses-mcp-auth"
	idhttpConforms     = "authorization.support.http-conforms"
)

// judge tallies an authorization check over its cases: judged ones
// (n, bad of them broken) and, for the others, why they were not.
type judge struct {
	t      *client.T
	n, bad int
	untest []string
	na     []string
}

func (j *judge) ok() { j.n++ }

// breach records a violation of req (of every cited requirement when req
// is "" or not in force) in case c.
func (j *judge) breach(c *client.Case, req, expected, actual string) {
	j.n++
	j.bad++
	actual += " (" + c.Scenario.Name + ")"
	if req != "" && j.t.InForce(req) && j.t.Cites(req) {
		j.t.Violation(req, expected, actual)
		return
	}
	j.t.Fail(expected, actual)
}

// untestable notes a case in which the client did not do what the check
// needs; na one the check does not apply to.
func (j *judge) untestable(c *client.Case, needs string) {
	j.untest = append(j.untest, c.UntestableWhy(needs))
}

// unjudged notes a case that shows nothing to judge for a reason of its
// own (caseView.notTrying).
func (j *judge) unjudged(c *client.Case, why string) {
	j.untest = append(j.untest, why+" ("+c.Scenario.Name+")")
}
func (j *judge) notApplicable(c *client.Case, why string) {
	j.na = append(j.na, why+" ("+c.Scenario.Name+")")
}

// end settles the check: saw is the pass text (a format for the number of
// cases judged).
func (j *judge) end(saw string) {
	if j.n > 0 {
		j.t.Settle(j.n, j.bad, "", saw)
		return
	}
	switch {
	case len(j.untest) > 0:
		j.t.Untestable(strings.Join(append(j.untest, j.na...), "; "))
	case len(j.na) > 0:
		j.t.NotApplicable(strings.Join(j.na, "; "))
	default:
		j.t.NeedAction(false, needsOAuth)
	}
}

func proof(fault string, v spec.Version, want reports.Outcome) client.Proof {
	return client.Proof{Fault: fault, Version: v, Transport: client.Streamable, Want: want}
}

// asCandidates lists the well-known metadata locations of the play's issuer
// in the order 2025-11-25 prescribes.
func (p play) asCandidates() []string {
	if ip := p.issuerPath(); ip != "" {
		return []string{asWellKnown + ip, authOIDC + ip, ip + authOIDC}
	}
	return []string{asWellKnown, authOIDC}
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func describe(rs []request) string {
	var parts []string
	for i, r := range rs {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("and %d more", len(rs)-i))
			break
		}
		parts = append(parts, r.describe())
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

var _ = client.Register(
	client.Def{
		ID: "client/authorization/prm-from-challenge", Area: "authorization", Since: spec.V20250618, Transports: streamable,
		Scenarios:    []string{scAuthTenant, scAuthVar3},
		Title:        "on a 401 whose challenge names resource_metadata, the client fetches the protected resource metadata from exactly that URL first",
		Requirements: []string{idChallengeParses, idprmFromHeader, idFollowDiscovery},
		Proofs: []client.Proof{
			proof("auth-ignore-resource-metadata", spec.V20251125, reports.Fail),
			proof("auth-ignore-resource-metadata", spec.V20250618, reports.Fail),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				hdr := v.pathOf(v.challengeURL())
				if hdr == "" {
					j.untestable(c, "send a request the stage could answer 401")
					continue
				}
				prms := v.where(isPRM)
				if len(prms) == 0 {
					if side := v.where(isASSide); len(side) > 0 {
						j.breach(c, idChallengeParses, "the protected resource metadata is fetched from the challenge's resource_metadata URL "+hdr,
							"the client went to the authorization server side ("+describe(side)+") without fetching it")
					} else {
						j.untestable(c, needsOAuth)
					}
					continue
				}
				if prms[0].Path == hdr {
					j.ok()
					continue
				}
				if t.InForce(idprmFromHeader) {
					j.breach(c, idprmFromHeader, "the first protected resource metadata request is to the challenge's resource_metadata URL "+hdr,
						"the client's metadata requests were "+describe(prms))
					continue
				}
				if _, ok := v.first(func(r request) bool { return isPRM(r) && r.Path == hdr }); ok {
					j.ok()
					continue
				}
				j.breach(c, idChallengeParses, "the client reads resource_metadata from the challenge and fetches "+hdr,
					"the client never requested it; its metadata requests were "+describe(prms))
			}
			j.end("%d cases: the metadata came from the challenge's URL first")
		},
	},
	client.Def{
		ID: "client/authorization/prm-well-known-order", Area: "authorization", Since: spec.V20251125, Transports: streamable,
		Scenarios:    []string{scAuthVar1, scAuthVar2},
		Title:        "without resource_metadata in the challenge, the client requests the path-based well-known protected resource metadata first and the root one only after it",
		Requirements: []string{idprmFallback, idFollowDiscovery},
		Proofs:       []client.Proof{proof("auth-root-prm-first", spec.V20251125, reports.Fail)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			pathBased, root := prmRoot+mcpPath, prmRoot
			for _, c := range t.Cases() {
				v := view(c)
				prms := v.where(func(r request) bool { return isPRM(r) && (r.Path == pathBased || r.Path == root) })
				if len(prms) == 0 {
					if side := v.where(isASSide); len(side) > 0 {
						j.breach(c, idprmFallback, "without resource_metadata the client requests "+pathBased+", then "+root,
							"it requested neither and went to the authorization server side: "+describe(side))
					} else {
						j.untestable(c, needsOAuth)
					}
					continue
				}
				if prms[0].Path == root {
					j.breach(c, idprmFallback, "the path-based URL "+pathBased+" is requested before the root one "+root,
						"the client's requests were "+describe(prms))
					continue
				}
				if prms[0].Status == http.StatusNotFound {
					if _, ok := v.first(func(r request) bool { return isPRM(r) && r.Path == root }); !ok {
						j.breach(c, idprmFallback, "when the path-based URL has no metadata, the client requests the root one "+root,
							"the client's requests were "+describe(prms)+"; the root URL was never asked for")
						continue
					}
				}
				j.ok()
			}
			j.end("%d cases: path-based first, root only after it")
		},
	},
	client.Def{
		ID: "client/authorization/prm-discovery", Area: "authorization", Since: spec.V20250618, Transports: streamable,
		Scenarios:    []string{scAuthTenant, scAuthVar2, scAuthVar3},
		Title:        "the client finds the authorization server through the protected resource metadata (authorization_servers names the issuer /tenant1), not by guessing from the MCP server's URL",
		Requirements: []string{idprmForDiscovery, idFollowDiscovery},
		Proofs: []client.Proof{
			proof("auth-skip-prm", spec.V20251125, reports.Fail),
			proof("auth-skip-prm", spec.V20250618, reports.Fail),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				side := v.where(isASSide)
				if len(side) == 0 {
					j.untestable(c, needsOAuth)
					continue
				}
				prm, got := v.first(func(r request) bool { return isPRM(r) && r.Status == http.StatusOK })
				if !got || side[0].Seq < prm.Seq {
					j.breach(c, idprmForDiscovery, "the authorization server is looked up only after the protected resource metadata named it",
						"the client asked "+side[0].describe()+" before it had the protected resource metadata")
					continue
				}
				cands := v.play.asCandidates()
				named := v.where(func(r request) bool { return isASMeta(r) && index(cands, r.Path) >= 0 })
				if len(named) == 0 {
					j.breach(c, idprmForDiscovery, "the metadata of the issuer the protected resource metadata names ("+v.base+v.play.issuerPath()+") is looked up at one of "+strings.Join(cands, ", "),
						"the client's authorization server requests were "+describe(side))
					continue
				}
				j.ok()
			}
			j.end("%d cases: the issuer came from the protected resource metadata")
		},
	},
	client.Def{
		ID: "client/authorization/as-metadata-order", Area: "authorization", Since: spec.V20251125, Transports: streamable,
		Scenarios:    []string{scAuthDefault, scAuthVar1, scAuthVar2, scAuthVar3},
		Title:        "the client tries the authorization server metadata locations in the specified order (issuer without a path: oauth-authorization-server, openid-configuration; with a path: oauth-authorization-server/path, openid-configuration/path, path/.well-known/openid-configuration)",
		Requirements: []string{idRootIssuerOrder, idPathIssuerOrder, idFollowDiscovery},
		Proofs: []client.Proof{
			proof("auth-oidc-first", spec.V20251125, reports.Fail),
			proof("auth-path-issuer-order", spec.V20251125, reports.Fail),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				cands := v.play.asCandidates()
				req := idRootIssuerOrder
				if v.play.issuerPath() != "" {
					req = idPathIssuerOrder
				}
				asked := v.where(func(r request) bool { return isASMeta(r) && index(cands, r.Path) >= 0 })
				if len(asked) == 0 {
					j.untestable(c, "request the authorization server metadata")
					continue
				}
				// A location is out of order when the client had the answer
				// for it before it even asked for an earlier one: requests
				// made all at once (a client that probes in parallel and
				// picks by priority) are not.
				broke := ""
				for _, r := range asked {
					k := index(cands, r.Path)
					for i := 0; i < k && broke == ""; i++ {
						earlier, ok := v.first(func(x request) bool { return isASMeta(x) && x.Path == cands[i] })
						if !ok || r.Answer != nil && earlier.Seq > r.Answer.Seq {
							broke = fmt.Sprintf("it requested %s before %s", cands[k], cands[i])
						}
					}
				}
				if broke != "" {
					j.breach(c, req, "the metadata locations are tried in the order "+strings.Join(cands, ", "),
						broke+"; its metadata requests were "+describe(asked))
					continue
				}
				j.ok()
			}
			j.end("%d cases: metadata locations tried in order")
		},
	},
	client.Def{
		ID: "client/authorization/as-metadata-locations", Area: "authorization", Since: spec.V20251125, Transports: streamable,
		Scenarios:    []string{scAuthDefault, scAuthVar1, scAuthVar2, scAuthVar3},
		Title:        "the client finds authorization server metadata served by RFC 8414 or OpenID discovery at any of the specified locations, trying one after another",
		Requirements: []string{idBothMechanisms, idTriesMultiple, idFollowDiscovery},
		Proofs: []client.Proof{
			proof("auth-rfc8414-only", spec.V20251125, reports.Fail),
			proof("auth-single-metadata-location", spec.V20251125, reports.Fail),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				served := v.play.docPath()
				asked := v.where(isASMeta)
				if len(asked) == 0 {
					j.untestable(c, "request the authorization server metadata")
					continue
				}
				if _, ok := v.first(func(r request) bool { return isASMeta(r) && r.Path == served }); ok {
					j.ok()
					continue
				}
				distinct := map[string]bool{}
				oidc, rfc := false, false
				for _, r := range asked {
					distinct[r.Path] = true
					oidc = oidc || strings.Contains(r.Path, authOIDC)
					rfc = rfc || strings.Contains(r.Path, asWellKnown)
				}
				expected := "the client finds the metadata at " + served + " (the only location that has it), trying the locations in turn"
				noMechanism := strings.Contains(served, authOIDC) && !oidc || strings.Contains(served, asWellKnown) && !rfc
				switch {
				case len(distinct) == 1 && noMechanism:
					// Both at once: one location only, and not of the
					// mechanism the server uses.
					j.breach(c, "", expected, "it tried "+asked[0].Path+" only: no other location, and no document of the other mechanism")
				case len(distinct) == 1:
					j.breach(c, idTriesMultiple, expected, "it tried "+asked[0].Path+" only, and no other location")
				case strings.Contains(served, authOIDC) && !oidc:
					j.breach(c, idBothMechanisms, expected, "it never asked for an OpenID discovery document; its requests were "+describe(asked))
				case strings.Contains(served, asWellKnown) && !rfc:
					j.breach(c, idBothMechanisms, expected, "it never asked for an RFC 8414 document; its requests were "+describe(asked))
				default:
					j.breach(c, idTriesMultiple, expected, "it stopped before "+served+"; its requests were "+describe(asked))
				}
			}
			j.end("%d cases: the metadata was found where it was served")
		},
	},
	client.Def{
		ID: "client/authorization/as-metadata-issuer", Area: "authorization", Since: spec.V20260728, Transports: streamable,
		Scenarios:    []string{scAuthIssuerMismatch},
		Title:        "the client discards authorization server metadata whose issuer is not the issuer it built the well-known URL from",
		Requirements: []string{idIssuerValidation, idFollowDiscovery},
		Proofs:       []client.Proof{proof("auth-no-issuer-check", spec.V20260728, reports.Fail)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				if _, ok := v.first(func(r request) bool { return isASMeta(r) && r.Status == http.StatusOK }); !ok {
					j.untestable(c, "fetch the authorization server metadata")
					continue
				}
				used := describe(v.where(func(r request) bool { return strings.HasPrefix(r.Path, mismatch+"/") }))
				for _, g := range v.regs {
					if g.Suffix == mismatch {
						used += "; a registration at the endpoint it names"
						break
					}
				}
				if used != "nothing" {
					j.breach(c, idIssuerValidation, "a metadata document naming issuer "+v.base+"/another-issuer, fetched for issuer "+v.base+", is not used",
						"the client used what it names: "+strings.TrimPrefix(used, "nothing; "))
					continue
				}
				j.ok()
			}
			j.end("%d cases: the document with the wrong issuer went unused")
		},
	},
	client.Def{
		ID: "client/authorization/rfc8414-metadata", Area: "authorization", Since: spec.V20250326, Until: spec.V20250618, Transports: streamable,
		Scenarios:    []string{scAuthBackcompat, scAuthDefault, scAuthTenant},
		Title:        "the client learns the authorization server's endpoints from its RFC 8414 metadata (the stage's names endpoints under /oauth) before it uses any",
		Requirements: []string{idUsesRFC8414},
		Proofs: []client.Proof{
			proof("auth-skip-as-metadata", spec.V20250618, reports.Fail),
			proof("auth-skip-as-metadata", spec.V20250326, reports.Fail),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				use := v.where(func(r request) bool {
					return isAuthorize(r) || strings.HasSuffix(r.Path, "/token") || isDefaultEndpoint(r)
				})
				if len(use) == 0 {
					asked := v.where(isASMeta)
					_, rfc := v.first(isRFC8414)
					switch {
					case len(v.regs) > 0:
						j.ok() // it registered at the endpoint only the metadata names
					case len(asked) > 0 && !rfc:
						j.breach(c, idUsesRFC8414, "the client looks for RFC 8414 metadata ("+asWellKnown+")",
							"it asked only for "+describe(asked)+" and went no further")
					default:
						j.untestable(c, "go as far as the authorization request")
					}
					continue
				}
				meta, ok := v.first(func(r request) bool { return isRFC8414(r) && r.Status == http.StatusOK })
				if !ok || use[0].Seq < meta.Seq {
					j.breach(c, idUsesRFC8414, "the RFC 8414 metadata is fetched before the authorization server's endpoints are used",
						"the client used "+use[0].describe()+" without having fetched it")
					continue
				}
				if off := v.where(func(r request) bool {
					return (isAuthorize(r) || strings.HasSuffix(r.Path, "/token")) && !strings.HasPrefix(r.Path, endpoints+"/")
				}); len(off) > 0 {
					j.breach(c, idUsesRFC8414, "the client uses the endpoints the metadata names ("+endpoints+"/authorize, "+endpoints+"/token)",
						"it used "+describe(off))
					continue
				}
				j.ok()
			}
			j.end("%d cases: endpoints taken from the RFC 8414 metadata")
		},
	},
	client.Def{
		ID: "client/authorization/legacy-base-url", Area: "authorization", Since: spec.V20250326, Until: spec.V20250326, Transports: streamable,
		Scenarios:    []string{scAuthBackcompat, scAuthFallback},
		Title:        "in 2025-03-26 the client takes the MCP server's origin, without the endpoint's path, as the authorization base URL",
		Requirements: []string{idDiscardPath},
		Proofs:       []client.Proof{proof("auth-keep-path", spec.V20250326, reports.Fail)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			rootish := func(r request) bool {
				return (r.Path == asWellKnown || r.Path == authOIDC) && r.HTTP.Method == http.MethodGet || isDefaultEndpoint(r) || strings.HasPrefix(r.Path, endpoints+"/")
			}
			underPath := func(r request) bool {
				return strings.HasPrefix(r.Path, mcpPath+"/") || isASMeta(r) && strings.HasSuffix(r.Path, mcpPath)
			}
			for _, c := range t.Cases() {
				v := view(c)
				if _, ok := v.first(rootish); ok {
					if probes := v.where(underPath); len(probes) > 0 {
						t.Saw("besides the origin the client also tried %s (%s)", describe(probes), c.Scenario.Name)
					}
					j.ok()
					continue
				}
				if probes := v.where(underPath); len(probes) > 0 {
					j.breach(c, idDiscardPath, "the metadata and default endpoints are looked for at "+v.base+" (the MCP URL "+v.mcpURL()+" without its path)",
						"the client looked under the endpoint's path: "+describe(probes))
					continue
				}
				j.untestable(c, "look for the authorization server metadata or the default endpoints")
			}
			j.end("%d cases: the authorization base URL was the origin")
		},
	},
	client.Def{
		ID: "client/authorization/legacy-default-endpoints", Area: "authorization", Since: spec.V20250326, Until: spec.V20250326, Transports: streamable,
		Scenarios:    []string{scAuthBackcompat, scAuthFallback},
		Title:        "in 2025-03-26 the client tries metadata discovery first and, when there is none, uses /authorize, /token and /register at the authorization base URL",
		Requirements: []string{idMetadataFirst, idUsesDefaults},
		Proofs: []client.Proof{
			proof("auth-defaults-first", spec.V20250326, reports.Fail),
			proof("auth-no-default-endpoints", spec.V20250326, reports.Fail),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				meta, hasMeta := v.first(isASMeta)
				def, hasDef := v.first(isDefaultEndpoint)
				if !hasMeta && !hasDef {
					j.untestable(c, "look for the authorization server metadata")
					continue
				}
				if hasDef && (!hasMeta || def.Seq < meta.Seq) {
					j.breach(c, idMetadataFirst, "metadata discovery ("+asWellKnown+") is tried before any default endpoint",
						"the client requested "+def.describe()+" first")
					continue
				}
				if v.play.Doc == docNone && !hasDef {
					other := v.where(func(r request) bool { return isAuthorize(r) || strings.HasSuffix(r.Path, "/token") })
					actual := "after " + describe(v.where(isASMeta)) + " the client used no default endpoint"
					if len(other) > 0 {
						actual += "; it used " + describe(other)
					}
					j.breach(c, idUsesDefaults, "with no metadata to be found, the client uses /authorize and /token at "+v.base, actual)
					continue
				}
				j.ok()
			}
			j.end("%d cases: metadata first, default endpoints only without it")
		},
	},
	client.Def{
		ID: "client/authorization/dcr-supported", Area: "authorization", Since: spec.V20250326, Until: spec.V20250618, Transports: streamable,
		Scenarios:    []string{scAuthBackcompat, scAuthDefault, scAuthTenant},
		Title:        "a client with no client id for the authorization server registers itself at the registration endpoint its metadata names (RFC 7591)",
		Requirements: []string{iddcrShould, iddcrShould0326},
		Proofs: []client.Proof{
			proof("auth-no-dcr", spec.V20250618, reports.Warn),
			proof("auth-no-dcr", spec.V20250326, reports.Warn),
		},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				if _, ok := v.first(func(r request) bool { return isASMeta(r) && r.Status == http.StatusOK }); !ok {
					j.untestable(c, "fetch the authorization server metadata")
					continue
				}
				if len(v.regs) > 0 {
					j.ok()
					continue
				}
				if az, ok := v.first(isAuthorize); ok {
					j.notApplicable(c, "the client went on with a client id of its own ("+az.Query.Get("client_id")+"), so whether it can register is not shown")
					continue
				}
				if why := v.notTrying(); why != "" {
					j.unjudged(c, why)
					continue
				}
				j.breach(c, "", "having no client id, the client registers at the registration endpoint the metadata names",
					"it fetched the metadata and neither registered nor went on")
			}
			j.end("%d cases: the client registered dynamically")
		},
	},
	client.Def{
		ID: "client/authorization/uses-mcp-auth", Area: "authorization", Since: spec.V20250326, Transports: streamable,
		Scenarios:    []string{scAuthBackcompat, scAuthDefault},
		Title:        "a client that answers the MCP server's 401 does so with MCP's authorization (OAuth discovery and flow), not with credentials of another scheme",
		Requirements: []string{idhttpUsesMCPAuth, idhttpConforms},
		Proofs:       []client.Proof{proof("auth-basic-credentials", spec.V20251125, reports.Warn)},
		Body: func(t *client.T) {
			j := &judge{t: t}
			for _, c := range t.Cases() {
				v := view(c)
				first, ok := v.challenged()
				if !ok {
					j.untestable(c, "send a request the stage could answer 401")
					continue
				}
				if v.acted() {
					j.ok()
					continue
				}
				issued := v.issued()
				foreign := v.where(func(r request) bool {
					if !isMCP(r) || r.Seq <= first.Seq || r.HTTP.Header.Get("Authorization") == "" {
						return false
					}
					_, mine := issued[bearerToken(r.HTTP.Header)]
					return !mine
				})
				if len(foreign) > 0 {
					scheme, _, _ := strings.Cut(foreign[0].HTTP.Header.Get("Authorization"), " ")
					j.breach(c, "", "the 401 is answered with MCP's OAuth flow (protected resource or authorization server metadata, then a token from that server)",
						fmt.Sprintf("the client retried with Authorization: %s ... of its own, without any OAuth discovery", scheme))
					continue
				}
				j.untestable(c, needsOAuth)
			}
			j.end("%d cases: the 401 was answered with MCP's OAuth flow")
		},
	},
)
