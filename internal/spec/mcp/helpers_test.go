package mcp

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
	"github.com/mcpcheck/mcpcheck/spec"
)

func versionsForTest() []string { return spec.VersionStrings() }

func sharedSpecDir(v string) string { return sharedtest.SpecDir(v) }

func fmtType(v any) string { return fmt.Sprintf("%T", v) }
