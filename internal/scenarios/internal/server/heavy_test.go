package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/spec"
)

// listServer is a pipe server that lists tools tools (each schema a bare
// object) and answers initialize and ping; every other request gets
// method not found.
func listServer(tools int) target.PipeServer {
	return func(ctx context.Context, in io.Reader, out io.Writer) error {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 || m.Method == "" {
				continue
			}
			var b strings.Builder
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%s,`, m.ID)
			switch m.Method {
			case "initialize":
				fmt.Fprintf(&b, `"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"lister","version":"1"}}}`, m.Params.ProtocolVersion)
			case "ping":
				b.WriteString(`"result":{}}`)
			case "tools/list":
				b.WriteString(`"result":{"tools":[`)
				for i := 0; i < tools; i++ {
					if i > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `{"name":"tool-%d","inputSchema":{"type":"object"}}`, i)
				}
				b.WriteString(`]}}`)
			default:
				b.WriteString(`"error":{"code":-32601,"message":"method not found"}}`)
			}
			b.WriteByte('\n')
			if _, err := io.WriteString(out, b.String()); err != nil {
				return err
			}
		}
		return sc.Err()
	}
}

// TestRunGoesSerialOnHugeMessages: a target whose tools list is over
// 1 MiB makes the run go on one check at a time (the sessions share the
// version's budget, which notes the large frame); one whose list is small
// does not.
func TestRunGoesSerialOnHugeMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tools  int
		serial bool
	}{{30000, true}, {10, false}} {
		// The bounds leave a loaded machine room to carry the large list
		// (a step that gave up before it arrived would note no large
		// frame): they bound the test, the outcome is Serial. Four checks
		// that list the tools, more than one slot's worth of Parallel 4:
		// the whole tools area had the race detector read the 1 MiB list
		// once per check, for nothing the flag shows more.
		cfg := Config{Target: target.Pipe(listServer(tc.tools)), Versions: []spec.Version{spec.V20251125}, Parallel: 4,
			Only:    []string{"tools/names", "tools/input-schema-valid", "tools/list-stable", "tools/unknown-tool"},
			Session: session.Config{Timeout: 30 * time.Second}}
		res := runSuitesErr(t, cfg, 5*time.Minute)
		if res.Serial != tc.serial {
			t.Errorf("%d tools: Serial %v, want %v", tc.tools, res.Serial, tc.serial)
		}
		if len(res.Report.Checks) == 0 {
			t.Errorf("%d tools: no check ran", tc.tools)
		}
	}
}
