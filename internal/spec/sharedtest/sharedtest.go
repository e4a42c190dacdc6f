// Package sharedtest finds the read-only reference material (the spec pages
// and the official schemas) that tests may use when it is present. The
// project never depends on it: tests that need it skip when it is absent.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
)

// EnvVar overrides where the reference material is looked for.
const EnvVar = "MCPCHECK_SHARED"

// Dir returns the directory that holds mcp-spec/ and mcp-schema/, or "" when
// none is found. It honours $MCPCHECK_SHARED, then looks for a "shared"
// directory beside the repository root.
func Dir() string {
	if d := os.Getenv(EnvVar); d != "" {
		if isDir(filepath.Join(d, "mcp-spec")) {
			return d
		}
		return ""
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <repo>/spec/sharedtest/sharedtest.go
	repo := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	d := filepath.Join(filepath.Dir(repo), "shared")
	if isDir(filepath.Join(d, "mcp-spec")) {
		return d
	}
	return ""
}

// SpecDir returns the pages of one version (mcp-spec/<version>) or "".
func SpecDir(version string) string {
	d := Dir()
	if d == "" {
		return ""
	}
	p := filepath.Join(d, "mcp-spec", version)
	if isDir(p) {
		return p
	}
	return ""
}

// SchemaFile returns the official schema of one version or "".
func SchemaFile(version string) string {
	d := Dir()
	if d == "" {
		return ""
	}
	p := filepath.Join(d, "mcp-schema", version, "schema.json")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
