package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary play a small stateful stdio MCP server
// when MCPCHECK_CLI_FAKE is set.
func TestMain(m *testing.M) {
	if os.Getenv("MCPCHECK_CLI_FAKE") != "" {
		stdioServer()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func stdioServer() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	reply := func(id json.RawMessage, result string) {
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
	}
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(in.Bytes(), &m)
		switch m.Method {
		case "server/discover":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", m.ID)
		case "initialize":
			reply(m.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"stdio-fake","version":"1"}}`)
		case "logging/setLevel":
			reply(m.ID, `{}`)
			fmt.Println(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"fake","data":"level set"}}`)
		case "tools/list":
			reply(m.ID, `{"tools":[{"name":"where","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			wd, _ := os.Getwd()
			b, _ := json.Marshal(os.Getenv("FAKE_GREETING") + " from " + wd)
			reply(m.ID, `{"content":[{"type":"text","text":`+string(b)+`}]}`)
		case "ping":
			reply(m.ID, `{}`)
		}
	}
}

func TestStdioCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, errOut, err := runCLI(t, nil, "--stdio", fmt.Sprintf("'%s' -test.run=none", exe),
		"--env", "MCPCHECK_CLI_FAKE=1", "--env", "FAKE_GREETING=hello", "--env", "GORACE=atexit_sleep_ms=0",
		"--cwd", dir, "--log-level", "info", "call", "where")
	if err != nil {
		t.Fatalf("%v (stderr %s)", err, errOut)
	}
	if !strings.Contains(out, "hello from "+dir) {
		t.Errorf("output %q; want the server's env and working directory", out)
	}
	if !strings.Contains(errOut, "log [info] fake: level set") {
		t.Errorf("stderr %q; want the server's log message", errOut)
	}
	out, _, err = runCLI(t, nil, "--stdio", exe, "--env", "MCPCHECK_CLI_FAKE=1", "--env", "GORACE=atexit_sleep_ms=0", "ping")
	if err != nil || !strings.Contains(out, "pong from stdio-fake") || !strings.Contains(out, "2025-06-18") {
		t.Errorf("ping: %q, %v", out, err)
	}
}
