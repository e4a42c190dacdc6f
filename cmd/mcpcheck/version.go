package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

const versionUsage = `Usage: mcpcheck version [--json]

Prints which mcpcheck this is: its version, the module version and the VCS
revision it was built from (with "(modified)" when the checkout had
uncommitted changes), the Go toolchain, and the protocol versions its
requirement catalog covers. The same version names the tool in every report.

Exit codes: 0 printed; 2 usage error.
`

// buildInfo is what the binary knows about its own build.
type buildInfo struct {
	// Name is always programName.
	Name string `json:"name"`
	// Version is the version reports carry (see toolVersion).
	Version string `json:"version"`
	// Module and ModuleVersion are the main module's path and version as
	// the Go toolchain stamped them ("(devel)" for a plain go build before
	// Go 1.24, a pseudo-version after).
	Module        string `json:"module,omitempty"`
	ModuleVersion string `json:"moduleVersion,omitempty"`
	// VCS, Revision, Time and Modified come from the vcs.* build settings:
	// present when the binary was built with go build in a checkout.
	VCS      string `json:"vcs,omitempty"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary; Platform is
	// GOOS/GOARCH.
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	// SpecVersions are the protocol versions the catalog covers, oldest
	// first, with the number of requirements in force in each.
	SpecVersions []specVersion `json:"specVersions"`
}

type specVersion struct {
	Version      spec.Version `json:"version"`
	Requirements int          `json:"requirements"`
}

// programVersion is the version every report names the tool with (see
// toolVersion), read from the binary's build information at start.
var programVersion = currentBuild().Version

// currentBuild reads the binary's own build information.
func currentBuild() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return readBuild(bi)
}

// readBuild turns the toolchain's build information (nil when the binary
// has none) into buildInfo, without the catalog's versions (see
// withSpecVersions).
func readBuild(bi *debug.BuildInfo) buildInfo {
	b := buildInfo{Name: programName, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		b.Module, b.ModuleVersion = bi.Main.Path, bi.Main.Version
		if bi.GoVersion != "" {
			b.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs":
				b.VCS = s.Value
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	b.Version = toolVersion(b)
	return b
}

// withSpecVersions adds the protocol versions of the catalog to b.
func withSpecVersions(b buildInfo) (buildInfo, error) {
	cat, err := catalog.Default()
	if err != nil {
		return b, fmt.Errorf("the built-in requirement catalog is damaged (this is a bug in mcpcheck; please report it): %w", err)
	}
	b.SpecVersions = nil
	for _, v := range spec.Versions {
		n := 0
		for _, c := range cat.Counts(v) {
			n += c
		}
		b.SpecVersions = append(b.SpecVersions, specVersion{Version: v, Requirements: n})
	}
	return b, nil
}

// pseudoVersion matches the Go toolchain's pseudo-versions
// (v0.0.0-20261121172622-a1980d7c1f2e) and the "+dirty" it adds for a
// modified checkout: versions that name a commit, not a release.
var pseudoVersion = regexp.MustCompile(`-(0\.)?\d{14}-[0-9a-f]{12}|\+dirty$`)

// toolVersion is the version reports carry: a released module version as
// the toolchain stamped it (go install ...@v1.2.0); otherwise
// baseVersion with the short revision as build metadata
// (0.1.0-dev+a1980d7c1f2e, and ".modified" for a modified checkout); or
// baseVersion alone when the build has no VCS information (go run, go
// test).
func toolVersion(b buildInfo) string {
	if v := b.ModuleVersion; v != "" && v != "(devel)" && !pseudoVersion.MatchString(v) {
		return v
	}
	if b.Revision == "" {
		return baseVersion
	}
	rev := b.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if b.Modified {
		rev += ".modified"
	}
	return baseVersion + "+" + rev
}

// versionMain runs "mcpcheck version [--json]".
func versionMain(e *env, args []string) error {
	fs := newFlags("version")
	asJSON := fs.Bool("json", false, "")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, err := fmt.Fprint(e.stdout, versionUsage)
			return err
		}
		return err
	}
	if fs.NArg() > 0 {
		return usagef("version takes no arguments, got %q (try --json)", fs.Args())
	}
	b, err := withSpecVersions(currentBuild())
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	return writeVersion(e.stdout, b)
}

// writeVersion prints b for people, one fact a line.
func writeVersion(w io.Writer, b buildInfo) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s\n", b.Name, b.Version)
	if b.Module != "" {
		mv := b.ModuleVersion
		if mv == "" {
			mv = "(unknown version)"
		}
		fmt.Fprintf(&sb, "module    %s %s\n", b.Module, mv)
	}
	if b.Revision != "" {
		rev := b.Revision
		if b.Time != "" {
			rev += " " + b.Time
		}
		if b.Modified {
			rev += " (modified)"
		}
		fmt.Fprintf(&sb, "revision  %s\n", rev)
	} else {
		sb.WriteString("revision  unknown (the binary has no VCS information: build it with go build in a git checkout)\n")
	}
	fmt.Fprintf(&sb, "go        %s %s\n", b.GoVersion, b.Platform)
	var vs []string
	for _, v := range b.SpecVersions {
		vs = append(vs, fmt.Sprintf("%s (%d requirements)", v.Version, v.Requirements))
	}
	fmt.Fprintf(&sb, "protocol  %s\n", strings.Join(vs, ", "))
	_, err := io.WriteString(w, sb.String())
	return err
}
