package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// fakeServer is a small stateless (2026-07-28) MCP server over HTTP.
func fakeServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		m := jsonrpc.Decode(body)
		if m.Kind == jsonrpc.KindNotification {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var p struct {
			Name      string          `json:"name"`
			URI       string          `json:"uri"`
			Arguments json.RawMessage `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		meta := `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"9"}}`
		cache := `,"ttlMs":0,"cacheScope":"public"`
		var result string
		switch m.Method {
		case "server/discover":
			result = `{` + meta + cache + `,"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{},"prompts":{},"completions":{}},"instructions":"be kind"}`
		case "tools/list":
			result = `{` + meta + cache + `,"tools":[{"name":"add","description":"Adds two numbers\nmore text","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"mode":{"type":"string","enum":["x","y"]}},"required":["a","b"]}},{"name":"fail","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			if p.Name == "fail" {
				result = `{` + meta + `,"content":[{"type":"text","text":"it broke"}],"isError":true}`
			} else {
				result = `{` + meta + `,"content":[{"type":"text","text":"args ` + strings.ReplaceAll(string(p.Arguments), `"`, `'`) + `"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}`
			}
		case "resources/list":
			result = `{` + meta + cache + `,"resources":[{"uri":"file:///a.txt","name":"a","mimeType":"text/plain"}]}`
		case "resources/read":
			result = `{` + meta + cache + `,"contents":[{"uri":"` + p.URI + `","text":"hello file"}]}`
		case "resources/templates/list":
			result = `{` + meta + cache + `,"resourceTemplates":[{"uriTemplate":"file:///{name}","name":"files"}]}`
		case "prompts/list":
			result = `{` + meta + cache + `,"prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]}]}`
		case "prompts/get":
			result = `{` + meta + `,"messages":[{"role":"user","content":{"type":"text","text":"Hello!"}}]}`
		case "completion/complete":
			result = `{` + meta + `,"completion":{"values":["alpha","alps"],"hasMore":true}}`
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func runCLI(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := Main(Env{Ctx: ctx, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}, args)
	return out.String(), errb.String(), err
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"tools"},
		{"--url", "http://x", "--stdio", "y", "tools"},
		{"--url", "http://x", "frobnicate"},
		{"--url", "http://x", "call"},
		{"--url", "http://x", "read", "a", "b"},
		{"--url", "http://x", "--timeout", "-1s", "tools"},
		{"--url", "http://x", "--elicit", "maybe", "tools"},
		{"--url", "http://x", "complete"},
		{"--url", "ftp://x", "tools"},
		{"--url", "http://x", "--protocol", "2020-01-01", "tools"},
		{"--stdio", "'unterminated", "tools"},
		{"conformance", "http://x"},
	} {
		_, _, err := runCLI(t, nil, args...)
		var ue *UsageError
		if !errors.As(err, &ue) || len(ue.Msg) < 20 {
			t.Errorf("%q: err = %v; want a usage error that explains", args, err)
		}
	}
}

func TestCommands(t *testing.T) {
	srv := fakeServer(t)
	u := srv.URL
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"tools"}, []string{"2 tools on fake 9 (protocol 2026-07-28)", "add\n    Adds two numbers\n    args: a* (number), b* (number), mode (x|y)"}},
		{[]string{"call", "add", "--args", `{"a":1,"b":2}`}, []string{"args {'a':1,'b':2}", "[image image/png, 3 bytes]"}},
		{[]string{"resources"}, []string{"file:///a.txt", "text/plain"}},
		{[]string{"read", "file:///a.txt"}, []string{"hello file"}},
		{[]string{"templates"}, []string{"file:///{name}"}},
		{[]string{"prompts"}, []string{"greet", "args: who*"}},
		{[]string{"get", "greet", "--args", `{"who":"Bo"}`}, []string{"[user]\nHello!"}},
		{[]string{"complete", "--ref", "prompt:greet", "--arg", "who", "--value", "al"}, []string{"alpha\nalps\n(more available)"}},
		{[]string{"ping"}, []string{"pong from fake"}},
		{[]string{"discover"}, []string{"protocol:   2026-07-28, stateless", "supports:   2026-07-28", "be kind"}},
	}
	for _, tc := range cases {
		out, errOut, err := runCLI(t, nil, append([]string{"--url", u}, tc.args...)...)
		if err != nil {
			t.Errorf("%v: %v (stderr %s)", tc.args, err, errOut)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
}

func TestJSONOutput(t *testing.T) {
	srv := fakeServer(t)
	out, _, err := runCLI(t, nil, "tools", "--json", "--url", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Tools) != 2 {
		t.Fatalf("--json output %q: %v", out, err)
	}
}

func TestToolErrorIsAnError(t *testing.T) {
	srv := fakeServer(t)
	out, _, err := runCLI(t, nil, "--url", srv.URL, "call", "fail")
	var te *ToolError
	if !errors.As(err, &te) || !strings.Contains(out, "it broke") {
		t.Fatalf("err = %v, output %q", err, out)
	}
}

func TestUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	_, _, err := runCLI(t, nil, "--url", u, "--timeout", "2s", "tools")
	if err == nil || !strings.Contains(err.Error(), "check that the server is running") {
		t.Fatalf("err = %v", err)
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`node server.js --port 3`:       {"node", "server.js", "--port", "3"},
		`"my server" 'a b' c\ d`:        {"my server", "a b", "c d"},
		`  x  `:                         {"x"},
		`sh -c "echo \"hi\" && exit 0"`: {"sh", "-c", `echo "hi" && exit 0`},
		`a ''`:                          {"a", ""},
	} {
		got, err := SplitCommand(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestHelp(t *testing.T) {
	out, _, err := runCLI(t, nil, "help")
	if err != nil || !strings.Contains(out, "Commands:") {
		t.Fatalf("help: %v", err)
	}
}

// TestConformanceKeepsAnExplicitTimeout: conformance mode waits 10 s for
// an answer unless --timeout says otherwise, and an explicit --timeout
// equal to the client's default (30s) is still explicit. It used to be
// taken for "not given" and cut to 10 s, so the official auth suite's
// servers, slow under load, were given 10 s where the test asked for 30.
func TestConformanceKeepsAnExplicitTimeout(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"conformance", "http://127.0.0.1:1/mcp"}, 10 * time.Second},
		{[]string{"--timeout", "30s", "conformance", "http://127.0.0.1:1/mcp"}, 30 * time.Second},
		{[]string{"conformance", "--timeout=2m", "http://127.0.0.1:1/mcp"}, 2 * time.Minute},
		{[]string{"--timeout", "3s", "conformance", "http://127.0.0.1:1/mcp"}, 3 * time.Second},
	} {
		o, err := parse(tc.args)
		if err != nil {
			t.Fatalf("parse %q: %v", tc.args, err)
		}
		if got := o.timeoutOr(10 * time.Second); got != tc.want {
			t.Errorf("%q: conformance waits %v for an answer, want %v", tc.args, got, tc.want)
		}
	}
}
