package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpcheck/mcpcheck/internal/scenarios"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/asuite"
	clientsuite "github.com/mcpcheck/mcpcheck/internal/scenarios/client"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

func specCmd(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("spec needs a subcommand: list, show ID, coverage")
	}
	cat, err := catalog.Default()
	if err != nil {
		return fmt.Errorf("the built-in requirement catalog is damaged (this is a bug in mcpcheck; please report it): %w", err)
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		_, err := fmt.Fprint(stdout, specUsage)
		return err
	case "list":
		return specList(cat, args[1:], stdout)
	case "show":
		return specShow(cat, args[1:], stdout)
	case "coverage":
		return specCoverage(cat, args[1:], stdout)
	}
	return usagef("unknown spec subcommand %q (want list, show or coverage)", args[0])
}

// specUsage is the help of "mcpcheck spec".
const specUsage = `Usage:
  mcpcheck spec list [--version V] [--level L] [--role R] [--area A] [--testability T] [--json]
  mcpcheck spec show ID [--json]
  mcpcheck spec coverage [--role server|client|resource-server|authorization-server|all] [--json]

list      the requirements of the catalog, filtered
show      one requirement: level, role, version window, page and section,
          summary, and the checks that enforce it
coverage  per area, how many testable MUST/SHOULD requirements of a role
          have a check or a written exclusion (wire-testable ones for server
          and client; wire- and fixture-testable ones for the OAuth roles)
`

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return usagef("%s: %v", fs.Name(), err)
	}
	return nil
}

func specList(cat *catalog.Catalog, args []string, stdout io.Writer) error {
	fs := newFlags("spec list")
	version := fs.String("version", "", "only requirements in force in this protocol version")
	level := fs.String("level", "", "MUST, MUST NOT, SHOULD, SHOULD NOT or MAY")
	role := fs.String("role", "", "server, client, both, authorization-server or resource-server")
	area := fs.String("area", "", "a protocol area, e.g. tools")
	testability := fs.String("testability", "", "wire, fixture or unobservable")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("spec list takes no arguments, got %q", fs.Args())
	}
	f := catalog.Filter{Role: catalog.Role(*role), Area: *area, Testability: catalog.Testability(*testability)}
	if *version != "" {
		v, err := spec.ParseVersion(*version)
		if err != nil {
			return usagef("--version: %v", err)
		}
		f.Version = v
	}
	if *level != "" {
		l := catalog.Level(strings.ToUpper(strings.TrimSpace(*level)))
		if !oneOf(catalog.Levels, l) {
			return usagef("--level %q: use one of %v", *level, catalog.Levels)
		}
		f.Level = l
	}
	if f.Role != "" && !oneOf(catalog.Roles, f.Role) {
		return usagef("--role %q: use one of %v", *role, catalog.Roles)
	}
	if f.Area != "" && !oneOf(catalog.Areas, f.Area) {
		return usagef("--area %q: use one of %s", *area, strings.Join(catalog.Areas, ", "))
	}
	if f.Testability != "" && !oneOf(catalog.Testabilities, f.Testability) {
		return usagef("--testability %q: use one of %v", *testability, catalog.Testabilities)
	}
	recs := cat.Select(f)
	if *asJSON {
		if recs == nil {
			recs = []catalog.Record{}
		}
		return writeJSON(stdout, recs)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tROLE\tVERSIONS\tTEST\tSUMMARY")
	for _, r := range recs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Level, r.Role, r.VersionRange(), r.Testability, r.Summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d requirements\n", len(recs))
	return nil
}

func specShow(cat *catalog.Catalog, args []string, stdout io.Writer) error {
	fs := newFlags("spec show")
	asJSON := fs.Bool("json", false, "print JSON")
	// accept the ID before or after flags
	var ids []string
	for len(args) > 0 {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		ids = append(ids, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(ids) != 1 {
		return usagef("spec show takes exactly one requirement ID (see 'mcpcheck spec list')")
	}
	r, ok := cat.Get(ids[0])
	if !ok {
		return usagef("no requirement %q in the catalog%s", ids[0], suggest(cat, ids[0]))
	}
	if *asJSON {
		return writeJSON(stdout, r)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("id", r.ID)
	row("level", string(r.Level))
	row("role", string(r.Role))
	row("area", r.Area)
	row("versions", r.VersionRange())
	row("source", fmt.Sprintf("%s %s § %s", r.Since, r.Page, r.Section))
	row("summary", r.Summary)
	row("testability", fmt.Sprintf("%s (%s)", r.Testability, r.Why))
	row("refs", strings.Join(r.Refs, " "))
	return tw.Flush()
}

func suggest(cat *catalog.Catalog, id string) string {
	var near []string
	prefix := id
	if i := strings.LastIndex(id, "."); i > 0 {
		prefix = id[:i]
	}
	for _, r := range cat.Records {
		if strings.HasPrefix(r.ID, prefix) {
			near = append(near, r.ID)
		}
	}
	if len(near) == 0 {
		return ""
	}
	if len(near) > 5 {
		near = near[:5]
	}
	return "; did you mean " + strings.Join(near, ", ") + "?"
}

// checkRegistry maps requirement IDs to the checks that cite them, from the
// static registry of the scenario suites.
var checkRegistry = scenarios.CheckedRequirements()

// exclusionRegistry maps requirement IDs to the written reason they have no
// check.
var exclusionRegistry = scenarios.Exclusions

func specCoverage(cat *catalog.Catalog, args []string, stdout io.Writer) error {
	fs := newFlags("spec coverage")
	role := fs.String("role", "server", "server, client, resource-server, authorization-server or all")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	roles := []catalog.Role{catalog.Role(*role)}
	if *role == "all" {
		roles = catalog.CoverageRoles
	} else if !oneOf(catalog.CoverageRoles, roles[0]) {
		return usagef("--role %q: coverage is measured for server, client, resource-server, authorization-server (or all)", *role)
	}
	all := map[catalog.Role][]catalog.AreaCoverage{}
	for _, r := range roles {
		checked, excluded := checkRegistry, exclusionRegistry
		if r == catalog.RoleClient {
			// The client side is measured by the client suite alone: a server
			// check citing a requirement both sides share judges the server.
			checked, excluded = clientsuite.CheckedRequirements(), clientsuite.Exclusions
		}
		if r == catalog.RoleAuthorizationServer {
			// authserver-check judges the authorization server.
			checked, excluded = asuite.CheckedRequirements(), asuite.Exclusions
		}
		cov := cat.Coverage(r, checked, excluded)
		if cov == nil {
			cov = []catalog.AreaCoverage{}
		}
		all[r] = cov
	}
	if *asJSON {
		if *role == "all" {
			return writeJSON(stdout, all)
		}
		return writeJSON(stdout, all[roles[0]])
	}
	for i, r := range roles {
		if len(roles) > 1 {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "== %s\n", r)
		}
		if err := printCoverage(stdout, r, all[r]); err != nil {
			return err
		}
	}
	return nil
}

// printCoverage writes one role's coverage table and its summary line.
func printCoverage(stdout io.Writer, r catalog.Role, cov []catalog.AreaCoverage) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "AREA\tREQUIREMENTS\tCHECKED\tEXCLUDED\tMISSING\t")
	var tot, chk, exc int
	var missing []string
	for _, a := range cov {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", a.Area, a.Total, a.Checked, a.Excluded, len(a.Missing))
		tot, chk, exc = tot+a.Total, chk+a.Checked, exc+a.Excluded
		missing = append(missing, a.Missing...)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t\n", tot, chk, exc, tot-chk-exc)
	if err := tw.Flush(); err != nil {
		return err
	}
	what := "wire-testable"
	switch r {
	case catalog.RoleResourceServer, catalog.RoleAuthorizationServer:
		what = "wire- or fixture-testable"
	case catalog.RoleClient:
		what = "wire-testable (and authorization fixture-testable)"
	}
	fmt.Fprintf(stdout, "%s %s-side MUST/SHOULD requirements with a check or a written exclusion: %d of %d\n", what, r, chk+exc, tot)
	if len(missing) > 0 && (r == catalog.RoleResourceServer || r == catalog.RoleAuthorizationServer) {
		fmt.Fprintf(stdout, "missing: %s\n", strings.Join(missing, ", "))
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func oneOf[T comparable](list []T, x T) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}
