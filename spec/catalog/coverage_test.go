package catalog

import (
	"slices"
	"testing"
)

// TestBothSidedAuthorizationFixturesCount: the authorization requirements
// of role "both" that need a fixture count in the resource-server and
// client coverage (and nowhere else), so they are checked or excluded
// there instead of falling between the roles.
func TestBothSidedAuthorizationFixturesCount(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"authorization.canonical-uri.accept-uppercase", "authorization.oauth.implementations-oauth21", "authorization.security.follow-security-page"}
	var got []string
	for _, r := range c.Records {
		if r.Role != RoleBoth || r.Area != "authorization" || r.Testability != Fixture || r.Level == May {
			continue
		}
		got = append(got, r.ID)
		for role, counts := range map[Role]bool{RoleResourceServer: true, RoleClient: true, RoleServer: false, RoleAuthorizationServer: false} {
			if CoverageCounts(r, role) != counts {
				t.Errorf("%s (role both, fixture): counts in %s coverage = %v, want %v", r.ID, role, !counts, counts)
			}
		}
	}
	for _, id := range want {
		if !slices.Contains(got, id) {
			t.Errorf("%s is not a role-both authorization fixture record any more (found %v): update this test", id, got)
		}
	}
	for _, role := range []Role{RoleResourceServer, RoleClient} {
		missing := map[string]bool{}
		for _, a := range c.Coverage(role, nil, nil) {
			for _, id := range a.Missing {
				missing[id] = true
			}
		}
		checked := map[string][]string{}
		for _, id := range want {
			if !missing[id] {
				t.Errorf("%s coverage without checks or exclusions does not list %s as missing", role, id)
			}
			checked[id] = []string{"some/check"}
		}
		n := 0
		for _, a := range c.Coverage(role, checked, nil) {
			n += a.Checked
		}
		if n != len(want) {
			t.Errorf("%s coverage with checks for %v counts %d checked, want %d", role, want, n, len(want))
		}
	}
}
