//go:build tools

// Package mcpcheck pins the named dependencies until every one of them is
// imported by real code; remove an import here once a package uses it.
package mcpcheck

import (
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "pgregory.net/rapid"
)
