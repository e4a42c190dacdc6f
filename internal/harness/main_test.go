package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

const helperEnv = "MCPCHECK_HARNESS_HELPER"

// TestMain turns the test binary into a tiny stdio MCP server when
// helperEnv is set (the TestHelperProcess pattern): it answers initialize,
// ping and tools/list, and in mode "sloppy" answers ping with an error
// code of the wrong kind and prints a banner on stdout.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		serve(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serve(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	if mode == "sloppy" {
		fmt.Fprintln(out, "sloppy server ready")
		out.Flush()
	}
	for in.Scan() {
		if mode == "silent" {
			continue // reads everything, answers nothing
		}
		var m struct {
			ID     json.RawMessage
			Method string
			Params struct{ ProtocolVersion string }
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"helper","version":"1"}}}`+"\n", m.ID, m.Params.ProtocolVersion)
		case "ping":
			if mode == "sloppy" {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"not now"}}`+"\n", m.ID)
				break
			}
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", m.ID)
		case "tools/list":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`+"\n", m.ID)
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"unknown method"}}`+"\n", m.ID)
		}
		out.Flush()
	}
}
