package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestOwnExamplesRoundTrip round-trips the conversations under testdata/
// (written for mcpcheck, one JSON array of JSON-RPC messages per file) and
// checks that together they cover every method of the registry: its params,
// and its result when it has one.
func TestOwnExamplesRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.json files: %v", err)
	}
	sawParams := map[string]bool{}
	sawResult := map[string]bool{}
	total := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []json.RawMessage
		if err := json.Unmarshal(b, &msgs); err != nil {
			t.Fatalf("%s: want a JSON array of messages: %v", f, err)
		}
		exs := make([]example, len(msgs))
		for i, m := range msgs {
			exs[i] = example{where: fmt.Sprintf("%s#%d", filepath.Base(f), i), text: string(m)}
		}
		res := checkMessages(exs)
		if len(res) != len(msgs) {
			t.Errorf("%s: %d of %d entries are JSON-RPC messages; every entry must be one", f, len(res), len(msgs))
		}
		for where, o := range res {
			total++
			if o.err != nil {
				t.Errorf("%s: %s %s: %v", where, o.kind, o.method, o.err)
				continue
			}
			switch o.kind {
			case kindRequest, kindNotification:
				sawParams[o.method] = true
			case kindResult:
				if strings.HasPrefix(o.method, "one of ") {
					t.Errorf("%s: result has no matching request in its file; add one so the test knows its method", where)
				}
				sawResult[o.method] = true
			}
		}
	}
	var missing []string
	for _, m := range RegisteredMethods() {
		if !sawParams[m] {
			missing = append(missing, m+" (params)")
		}
		if NewResult(m) != nil && !sawResult[m] {
			missing = append(missing, m+" (result)")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("testdata does not cover: %s", strings.Join(missing, ", "))
	}
	t.Logf("%d own example messages round-trip", total)
}
