package main

import (
	"context"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/fuzz"
)

// TestFuzzEraProbe: before a campaign at --protocol latest, a stdio
// target is asked server/discover as a dual-era client asks it. The
// reference server (modern) answers with a result; a legacy server that
// refuses the method with -32601, or one that says nothing within the
// bound, is legacy, so the campaign fuzzes 2025-11-25 instead of judging
// it by 2026-07-28's schema (@modelcontextprotocol/server-memory drew
// false resultType and cacheScope violations that way).
func TestFuzzEraProbe(t *testing.T) {
	t.Parallel()
	legacy := `read l; echo '{"jsonrpc":"2.0","id":"mcpcheck-era-probe","error":{"code":-32601,"message":"Method not found"}}'; cat >/dev/null`
	for _, tc := range []struct {
		name   string
		argv   []string
		modern bool
	}{
		{"reference", []string{mcpcheckBin(t), "reference", "server", "--stdio"}, true},
		{"legacy -32601", []string{"sh", "-c", legacy}, false},
		{"silent", []string{"sh", "-c", "cat >/dev/null"}, false},
	} {
		modern, saw, err := probeStdioEra(context.Background(), &fuzz.ExecTarget{Argv: tc.argv}, 3*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if modern != tc.modern || saw == "" {
			t.Errorf("%s: modern %v (%s), want %v", tc.name, modern, saw, tc.modern)
		}
	}
}
