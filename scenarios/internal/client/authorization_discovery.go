package client

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Authorization checks about discovery: the protected resource metadata,
// the authorization server metadata (RFC 8414 and OpenID discovery, in the
// specified order), the 2025-03-26 layout (base URL, default endpoints),
// and whether a client answers a 401 with MCP's OAuth flow at all.

// Requirement IDs the discovery checks cite.
const (
	authIDChallengeParses  = "authorization.www-authenticate.client-parses"
	authIDPRMFromHeader    = "authorization.prm.client-prefers-header-url"
	authIDPRMFallback      = "authorization.prm.client-well-known-fallback"
	authIDPRMForDiscovery  = "authorization.prm.client-uses-for-discovery"
	authIDFollowDiscovery  = "authorization.discovery.follow-requirements"
	authIDRootIssuerOrder  = "authorization.as-metadata.root-issuer-order"
	authIDPathIssuerOrder  = "authorization.as-metadata.path-issuer-order"
	authIDBothMechanisms   = "authorization.as-metadata.client-supports-both-mechanisms"
	authIDTriesMultiple    = "authorization.as-metadata.client-tries-multiple"
	authIDIssuerValidation = "authorization.as-metadata.issuer-validation"
	authIDUsesRFC8414      = "authorization.as-metadata.client-uses-rfc8414"
	authIDDiscardPath      = "authorization.base-url.discard-path"
	authIDUsesDefaults     = "authorization.default-endpoints.client-uses-defaults"
	authIDMetadataFirst    = "authorization.default-endpoints.metadata-first"
	authIDDCRShould        = "authorization.dcr.client-should-support"
	authIDDCRShould0326    = "authorization.dcr.server-and-client-should-support"
	authIDHTTPUsesMCPAuth  = "authorization.index.http-uses-mcp-auth"
	authIDHTTPConforms     = "authorization.support.http-conforms"
)

// authJudge tallies an authorization check over its cases: judged ones
// (n, bad of them broken) and, for the others, why they were not.
type authJudge struct {
	t      *T
	n, bad int
	untest []string
	na     []string
}

func (j *authJudge) ok() { j.n++ }

// breach records a violation of req (of every cited requirement when req
// is "" or not in force) in case c.
func (j *authJudge) breach(c *Case, req, expected, actual string) {
	j.n++
	j.bad++
	actual += " (" + c.Scenario.Name + ")"
	if req != "" && j.t.InForce(req) && j.t.cites(req) {
		j.t.Violation(req, expected, actual)
		return
	}
	j.t.Fail(expected, actual)
}

// untestable notes a case in which the client did not do what the check
// needs; na one the check does not apply to.
func (j *authJudge) untestable(c *Case, needs string) {
	j.untest = append(j.untest, c.untestableWhy(needs))
}

// unjudged notes a case that shows nothing to judge for a reason of its
// own (authCaseView.notTrying).
func (j *authJudge) unjudged(c *Case, why string) {
	j.untest = append(j.untest, why+" ("+c.Scenario.Name+")")
}
func (j *authJudge) notApplicable(c *Case, why string) {
	j.na = append(j.na, why+" ("+c.Scenario.Name+")")
}

// end settles the check: saw is the pass text (a format for the number of
// cases judged).
func (j *authJudge) end(saw string) {
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
		j.t.NeedAction(false, authNeedsOAuth)
	}
}

func authProof(fault string, v spec.Version, want reports.Outcome) Proof {
	return Proof{Fault: fault, Version: v, Transport: Streamable, Want: want}
}

// asCandidates lists the well-known metadata locations of the play's issuer
// in the order 2025-11-25 prescribes.
func (p authPlay) asCandidates() []string {
	if ip := p.issuerPath(); ip != "" {
		return []string{authASWellKnown + ip, authOIDC + ip, ip + authOIDC}
	}
	return []string{authASWellKnown, authOIDC}
}

func authIndex(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func authDescribe(rs []authReq) string {
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

var _ = Register(
	Def{
		ID: "client/authorization/prm-from-challenge", Area: "authorization", Since: spec.V20250618, Transports: authStreamable,
		Scenarios:    []string{scAuthTenant, scAuthVar3},
		Title:        "on a 401 whose challenge names resource_metadata, the client fetches the protected resource metadata from exactly that URL first",
		Requirements: []string{authIDChallengeParses, authIDPRMFromHeader, authIDFollowDiscovery},
		Proofs: []Proof{
			authProof("auth-ignore-resource-metadata", spec.V20251125, reports.Fail),
			authProof("auth-ignore-resource-metadata", spec.V20250618, reports.Fail),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				hdr := v.pathOf(v.challengeURL())
				if hdr == "" {
					j.untestable(c, "send a request the stage could answer 401")
					continue
				}
				prms := v.where(authIsPRM)
				if len(prms) == 0 {
					if side := v.where(authIsASSide); len(side) > 0 {
						j.breach(c, authIDChallengeParses, "the protected resource metadata is fetched from the challenge's resource_metadata URL "+hdr,
							"the client went to the authorization server side ("+authDescribe(side)+") without fetching it")
					} else {
						j.untestable(c, authNeedsOAuth)
					}
					continue
				}
				if prms[0].Path == hdr {
					j.ok()
					continue
				}
				if t.InForce(authIDPRMFromHeader) {
					j.breach(c, authIDPRMFromHeader, "the first protected resource metadata request is to the challenge's resource_metadata URL "+hdr,
						"the client's metadata requests were "+authDescribe(prms))
					continue
				}
				if _, ok := v.first(func(r authReq) bool { return authIsPRM(r) && r.Path == hdr }); ok {
					j.ok()
					continue
				}
				j.breach(c, authIDChallengeParses, "the client reads resource_metadata from the challenge and fetches "+hdr,
					"the client never requested it; its metadata requests were "+authDescribe(prms))
			}
			j.end("%d cases: the metadata came from the challenge's URL first")
		},
	},
	Def{
		ID: "client/authorization/prm-well-known-order", Area: "authorization", Since: spec.V20251125, Transports: authStreamable,
		Scenarios:    []string{scAuthVar1, scAuthVar2},
		Title:        "without resource_metadata in the challenge, the client requests the path-based well-known protected resource metadata first and the root one only after it",
		Requirements: []string{authIDPRMFallback, authIDFollowDiscovery},
		Proofs:       []Proof{authProof("auth-root-prm-first", spec.V20251125, reports.Fail)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			pathBased, root := authPRMRoot+authMCPPath, authPRMRoot
			for _, c := range t.Cases() {
				v := authView(c)
				prms := v.where(func(r authReq) bool { return authIsPRM(r) && (r.Path == pathBased || r.Path == root) })
				if len(prms) == 0 {
					if side := v.where(authIsASSide); len(side) > 0 {
						j.breach(c, authIDPRMFallback, "without resource_metadata the client requests "+pathBased+", then "+root,
							"it requested neither and went to the authorization server side: "+authDescribe(side))
					} else {
						j.untestable(c, authNeedsOAuth)
					}
					continue
				}
				if prms[0].Path == root {
					j.breach(c, authIDPRMFallback, "the path-based URL "+pathBased+" is requested before the root one "+root,
						"the client's requests were "+authDescribe(prms))
					continue
				}
				if prms[0].Status == http.StatusNotFound {
					if _, ok := v.first(func(r authReq) bool { return authIsPRM(r) && r.Path == root }); !ok {
						j.breach(c, authIDPRMFallback, "when the path-based URL has no metadata, the client requests the root one "+root,
							"the client's requests were "+authDescribe(prms)+"; the root URL was never asked for")
						continue
					}
				}
				j.ok()
			}
			j.end("%d cases: path-based first, root only after it")
		},
	},
	Def{
		ID: "client/authorization/prm-discovery", Area: "authorization", Since: spec.V20250618, Transports: authStreamable,
		Scenarios:    []string{scAuthTenant, scAuthVar2, scAuthVar3},
		Title:        "the client finds the authorization server through the protected resource metadata (authorization_servers names the issuer /tenant1), not by guessing from the MCP server's URL",
		Requirements: []string{authIDPRMForDiscovery, authIDFollowDiscovery},
		Proofs: []Proof{
			authProof("auth-skip-prm", spec.V20251125, reports.Fail),
			authProof("auth-skip-prm", spec.V20250618, reports.Fail),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				side := v.where(authIsASSide)
				if len(side) == 0 {
					j.untestable(c, authNeedsOAuth)
					continue
				}
				prm, got := v.first(func(r authReq) bool { return authIsPRM(r) && r.Status == http.StatusOK })
				if !got || side[0].Seq < prm.Seq {
					j.breach(c, authIDPRMForDiscovery, "the authorization server is looked up only after the protected resource metadata named it",
						"the client asked "+side[0].describe()+" before it had the protected resource metadata")
					continue
				}
				cands := v.play.asCandidates()
				named := v.where(func(r authReq) bool { return authIsASMeta(r) && authIndex(cands, r.Path) >= 0 })
				if len(named) == 0 {
					j.breach(c, authIDPRMForDiscovery, "the metadata of the issuer the protected resource metadata names ("+v.base+v.play.issuerPath()+") is looked up at one of "+strings.Join(cands, ", "),
						"the client's authorization server requests were "+authDescribe(side))
					continue
				}
				j.ok()
			}
			j.end("%d cases: the issuer came from the protected resource metadata")
		},
	},
	Def{
		ID: "client/authorization/as-metadata-order", Area: "authorization", Since: spec.V20251125, Transports: authStreamable,
		Scenarios:    []string{scAuthDefault, scAuthVar1, scAuthVar2, scAuthVar3},
		Title:        "the client tries the authorization server metadata locations in the specified order (issuer without a path: oauth-authorization-server, openid-configuration; with a path: oauth-authorization-server/path, openid-configuration/path, path/.well-known/openid-configuration)",
		Requirements: []string{authIDRootIssuerOrder, authIDPathIssuerOrder, authIDFollowDiscovery},
		Proofs: []Proof{
			authProof("auth-oidc-first", spec.V20251125, reports.Fail),
			authProof("auth-path-issuer-order", spec.V20251125, reports.Fail),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				cands := v.play.asCandidates()
				req := authIDRootIssuerOrder
				if v.play.issuerPath() != "" {
					req = authIDPathIssuerOrder
				}
				asked := v.where(func(r authReq) bool { return authIsASMeta(r) && authIndex(cands, r.Path) >= 0 })
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
					k := authIndex(cands, r.Path)
					for i := 0; i < k && broke == ""; i++ {
						earlier, ok := v.first(func(x authReq) bool { return authIsASMeta(x) && x.Path == cands[i] })
						if !ok || r.Answer != nil && earlier.Seq > r.Answer.Seq {
							broke = fmt.Sprintf("it requested %s before %s", cands[k], cands[i])
						}
					}
				}
				if broke != "" {
					j.breach(c, req, "the metadata locations are tried in the order "+strings.Join(cands, ", "),
						broke+"; its metadata requests were "+authDescribe(asked))
					continue
				}
				j.ok()
			}
			j.end("%d cases: metadata locations tried in order")
		},
	},
	Def{
		ID: "client/authorization/as-metadata-locations", Area: "authorization", Since: spec.V20251125, Transports: authStreamable,
		Scenarios:    []string{scAuthDefault, scAuthVar1, scAuthVar2, scAuthVar3},
		Title:        "the client finds authorization server metadata served by RFC 8414 or OpenID discovery at any of the specified locations, trying one after another",
		Requirements: []string{authIDBothMechanisms, authIDTriesMultiple, authIDFollowDiscovery},
		Proofs: []Proof{
			authProof("auth-rfc8414-only", spec.V20251125, reports.Fail),
			authProof("auth-single-metadata-location", spec.V20251125, reports.Fail),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				served := v.play.docPath()
				asked := v.where(authIsASMeta)
				if len(asked) == 0 {
					j.untestable(c, "request the authorization server metadata")
					continue
				}
				if _, ok := v.first(func(r authReq) bool { return authIsASMeta(r) && r.Path == served }); ok {
					j.ok()
					continue
				}
				distinct := map[string]bool{}
				oidc, rfc := false, false
				for _, r := range asked {
					distinct[r.Path] = true
					oidc = oidc || strings.Contains(r.Path, authOIDC)
					rfc = rfc || strings.Contains(r.Path, authASWellKnown)
				}
				expected := "the client finds the metadata at " + served + " (the only location that has it), trying the locations in turn"
				noMechanism := strings.Contains(served, authOIDC) && !oidc || strings.Contains(served, authASWellKnown) && !rfc
				switch {
				case len(distinct) == 1 && noMechanism:
					// Both at once: one location only, and not of the
					// mechanism the server uses.
					j.breach(c, "", expected, "it tried "+asked[0].Path+" only: no other location, and no document of the other mechanism")
				case len(distinct) == 1:
					j.breach(c, authIDTriesMultiple, expected, "it tried "+asked[0].Path+" only, and no other location")
				case strings.Contains(served, authOIDC) && !oidc:
					j.breach(c, authIDBothMechanisms, expected, "it never asked for an OpenID discovery document; its requests were "+authDescribe(asked))
				case strings.Contains(served, authASWellKnown) && !rfc:
					j.breach(c, authIDBothMechanisms, expected, "it never asked for an RFC 8414 document; its requests were "+authDescribe(asked))
				default:
					j.breach(c, authIDTriesMultiple, expected, "it stopped before "+served+"; its requests were "+authDescribe(asked))
				}
			}
			j.end("%d cases: the metadata was found where it was served")
		},
	},
	Def{
		ID: "client/authorization/as-metadata-issuer", Area: "authorization", Since: spec.V20260728, Transports: authStreamable,
		Scenarios:    []string{scAuthIssuerMismatch},
		Title:        "the client discards authorization server metadata whose issuer is not the issuer it built the well-known URL from",
		Requirements: []string{authIDIssuerValidation, authIDFollowDiscovery},
		Proofs:       []Proof{authProof("auth-no-issuer-check", spec.V20260728, reports.Fail)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				if _, ok := v.first(func(r authReq) bool { return authIsASMeta(r) && r.Status == http.StatusOK }); !ok {
					j.untestable(c, "fetch the authorization server metadata")
					continue
				}
				used := authDescribe(v.where(func(r authReq) bool { return strings.HasPrefix(r.Path, authMismatch+"/") }))
				for _, g := range v.regs {
					if g.Suffix == authMismatch {
						used += "; a registration at the endpoint it names"
						break
					}
				}
				if used != "nothing" {
					j.breach(c, authIDIssuerValidation, "a metadata document naming issuer "+v.base+"/another-issuer, fetched for issuer "+v.base+", is not used",
						"the client used what it names: "+strings.TrimPrefix(used, "nothing; "))
					continue
				}
				j.ok()
			}
			j.end("%d cases: the document with the wrong issuer went unused")
		},
	},
	Def{
		ID: "client/authorization/rfc8414-metadata", Area: "authorization", Since: spec.V20250326, Until: spec.V20250618, Transports: authStreamable,
		Scenarios:    []string{scAuthBackcompat, scAuthDefault, scAuthTenant},
		Title:        "the client learns the authorization server's endpoints from its RFC 8414 metadata (the stage's names endpoints under /oauth) before it uses any",
		Requirements: []string{authIDUsesRFC8414},
		Proofs: []Proof{
			authProof("auth-skip-as-metadata", spec.V20250618, reports.Fail),
			authProof("auth-skip-as-metadata", spec.V20250326, reports.Fail),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				use := v.where(func(r authReq) bool {
					return authIsAuthorize(r) || strings.HasSuffix(r.Path, "/token") || authIsDefaultEndpoint(r)
				})
				if len(use) == 0 {
					asked := v.where(authIsASMeta)
					_, rfc := v.first(authIsRFC8414)
					switch {
					case len(v.regs) > 0:
						j.ok() // it registered at the endpoint only the metadata names
					case len(asked) > 0 && !rfc:
						j.breach(c, authIDUsesRFC8414, "the client looks for RFC 8414 metadata ("+authASWellKnown+")",
							"it asked only for "+authDescribe(asked)+" and went no further")
					default:
						j.untestable(c, "go as far as the authorization request")
					}
					continue
				}
				meta, ok := v.first(func(r authReq) bool { return authIsRFC8414(r) && r.Status == http.StatusOK })
				if !ok || use[0].Seq < meta.Seq {
					j.breach(c, authIDUsesRFC8414, "the RFC 8414 metadata is fetched before the authorization server's endpoints are used",
						"the client used "+use[0].describe()+" without having fetched it")
					continue
				}
				if off := v.where(func(r authReq) bool {
					return (authIsAuthorize(r) || strings.HasSuffix(r.Path, "/token")) && !strings.HasPrefix(r.Path, authEndpoints+"/")
				}); len(off) > 0 {
					j.breach(c, authIDUsesRFC8414, "the client uses the endpoints the metadata names ("+authEndpoints+"/authorize, "+authEndpoints+"/token)",
						"it used "+authDescribe(off))
					continue
				}
				j.ok()
			}
			j.end("%d cases: endpoints taken from the RFC 8414 metadata")
		},
	},
	Def{
		ID: "client/authorization/legacy-base-url", Area: "authorization", Since: spec.V20250326, Until: spec.V20250326, Transports: authStreamable,
		Scenarios:    []string{scAuthBackcompat, scAuthFallback},
		Title:        "in 2025-03-26 the client takes the MCP server's origin, without the endpoint's path, as the authorization base URL",
		Requirements: []string{authIDDiscardPath},
		Proofs:       []Proof{authProof("auth-keep-path", spec.V20250326, reports.Fail)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			rootish := func(r authReq) bool {
				return (r.Path == authASWellKnown || r.Path == authOIDC) && r.HTTP.Method == http.MethodGet || authIsDefaultEndpoint(r) || strings.HasPrefix(r.Path, authEndpoints+"/")
			}
			underPath := func(r authReq) bool {
				return strings.HasPrefix(r.Path, authMCPPath+"/") || authIsASMeta(r) && strings.HasSuffix(r.Path, authMCPPath)
			}
			for _, c := range t.Cases() {
				v := authView(c)
				if _, ok := v.first(rootish); ok {
					if probes := v.where(underPath); len(probes) > 0 {
						t.Saw("besides the origin the client also tried %s (%s)", authDescribe(probes), c.Scenario.Name)
					}
					j.ok()
					continue
				}
				if probes := v.where(underPath); len(probes) > 0 {
					j.breach(c, authIDDiscardPath, "the metadata and default endpoints are looked for at "+v.base+" (the MCP URL "+v.mcpURL()+" without its path)",
						"the client looked under the endpoint's path: "+authDescribe(probes))
					continue
				}
				j.untestable(c, "look for the authorization server metadata or the default endpoints")
			}
			j.end("%d cases: the authorization base URL was the origin")
		},
	},
	Def{
		ID: "client/authorization/legacy-default-endpoints", Area: "authorization", Since: spec.V20250326, Until: spec.V20250326, Transports: authStreamable,
		Scenarios:    []string{scAuthBackcompat, scAuthFallback},
		Title:        "in 2025-03-26 the client tries metadata discovery first and, when there is none, uses /authorize, /token and /register at the authorization base URL",
		Requirements: []string{authIDMetadataFirst, authIDUsesDefaults},
		Proofs: []Proof{
			authProof("auth-defaults-first", spec.V20250326, reports.Fail),
			authProof("auth-no-default-endpoints", spec.V20250326, reports.Fail),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				meta, hasMeta := v.first(authIsASMeta)
				def, hasDef := v.first(authIsDefaultEndpoint)
				if !hasMeta && !hasDef {
					j.untestable(c, "look for the authorization server metadata")
					continue
				}
				if hasDef && (!hasMeta || def.Seq < meta.Seq) {
					j.breach(c, authIDMetadataFirst, "metadata discovery ("+authASWellKnown+") is tried before any default endpoint",
						"the client requested "+def.describe()+" first")
					continue
				}
				if v.play.Doc == authDocNone && !hasDef {
					other := v.where(func(r authReq) bool { return authIsAuthorize(r) || strings.HasSuffix(r.Path, "/token") })
					actual := "after " + authDescribe(v.where(authIsASMeta)) + " the client used no default endpoint"
					if len(other) > 0 {
						actual += "; it used " + authDescribe(other)
					}
					j.breach(c, authIDUsesDefaults, "with no metadata to be found, the client uses /authorize and /token at "+v.base, actual)
					continue
				}
				j.ok()
			}
			j.end("%d cases: metadata first, default endpoints only without it")
		},
	},
	Def{
		ID: "client/authorization/dcr-supported", Area: "authorization", Since: spec.V20250326, Until: spec.V20250618, Transports: authStreamable,
		Scenarios:    []string{scAuthBackcompat, scAuthDefault, scAuthTenant},
		Title:        "a client with no client id for the authorization server registers itself at the registration endpoint its metadata names (RFC 7591)",
		Requirements: []string{authIDDCRShould, authIDDCRShould0326},
		Proofs: []Proof{
			authProof("auth-no-dcr", spec.V20250618, reports.Warn),
			authProof("auth-no-dcr", spec.V20250326, reports.Warn),
		},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
				if _, ok := v.first(func(r authReq) bool { return authIsASMeta(r) && r.Status == http.StatusOK }); !ok {
					j.untestable(c, "fetch the authorization server metadata")
					continue
				}
				if len(v.regs) > 0 {
					j.ok()
					continue
				}
				if az, ok := v.first(authIsAuthorize); ok {
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
	Def{
		ID: "client/authorization/uses-mcp-auth", Area: "authorization", Since: spec.V20250326, Transports: authStreamable,
		Scenarios:    []string{scAuthBackcompat, scAuthDefault},
		Title:        "a client that answers the MCP server's 401 does so with MCP's authorization (OAuth discovery and flow), not with credentials of another scheme",
		Requirements: []string{authIDHTTPUsesMCPAuth, authIDHTTPConforms},
		Proofs:       []Proof{authProof("auth-basic-credentials", spec.V20251125, reports.Warn)},
		Body: func(t *T) {
			j := &authJudge{t: t}
			for _, c := range t.Cases() {
				v := authView(c)
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
				foreign := v.where(func(r authReq) bool {
					if !authIsMCP(r) || r.Seq <= first.Seq || r.HTTP.Header.Get("Authorization") == "" {
						return false
					}
					_, mine := issued[authBearerToken(r.HTTP.Header)]
					return !mine
				})
				if len(foreign) > 0 {
					scheme, _, _ := strings.Cut(foreign[0].HTTP.Header.Get("Authorization"), " ")
					j.breach(c, "", "the 401 is answered with MCP's OAuth flow (protected resource or authorization server metadata, then a token from that server)",
						fmt.Sprintf("the client retried with Authorization: %s ... of its own, without any OAuth discovery", scheme))
					continue
				}
				j.untestable(c, authNeedsOAuth)
			}
			j.end("%d cases: the 401 was answered with MCP's OAuth flow")
		},
	},
)
