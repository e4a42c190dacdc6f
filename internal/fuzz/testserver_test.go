package fuzz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The test binary doubles as the targets of the campaign tests: with
// MCPCHECK_FUZZ_HELPER set it runs a small MCP server (or an echo process)
// on stdin/stdout instead of the tests.
const (
	helperEnv  = "MCPCHECK_FUZZ_HELPER"  // "server" or "echo"
	versionEnv = "MCPCHECK_FUZZ_VERSION" // protocol version of the server
	faultEnv   = "MCPCHECK_FUZZ_FAULT"   // a deliberate bug, see serve
	// delayEnv is how long the server waits before it reads anything: a
	// process that starts slowly.
	delayEnv = "MCPCHECK_FUZZ_START_DELAY"
)

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "server":
		if d, err := time.ParseDuration(os.Getenv(delayEnv)); err == nil {
			time.Sleep(d) // the target's own slow start
		}
		serve(spec.Version(os.Getenv(versionEnv)), os.Getenv(faultEnv), os.Stdin, os.Stdout, processEnds)
		return
	case "echo":
		echo()
		return
	case "noread":
		for {
			time.Sleep(time.Hour) // never reads stdin
		}
	}
	// The campaign tests mostly wait on processes starting and on waits
	// running out (a hang is four of them), the rest compute: with go
	// test's default -parallel (GOMAXPROCS, 2 on a 2-core runner) two
	// waiting campaigns held both slots. -parallel on the command line
	// wins.
	sharedtest.DefaultParallel(6)
	code := m.Run()
	if clientBins.dir != "" {
		os.RemoveAll(clientBins.dir) // the client campaign tests' binaries
	}
	os.Exit(code)
}

// helperTarget is the test binary started as a server of version v with
// an optional fault.
func helperTarget(t testing.TB, v spec.Version, fault string) *conn.ExecTarget {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &conn.ExecTarget{Argv: []string{exe, "-test.run=^$"}, Env: []string{helperEnv + "=server", versionEnv + "=" + string(v), faultEnv + "=" + fault}}
}

// echo writes every line it reads back: the stdio transport's speed limit.
func echo() {
	r := bufio.NewReaderSize(os.Stdin, 1<<16)
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	for {
		l, err := r.ReadBytes('\n')
		if len(l) > 0 {
			_, _ = w.Write(l)
			if r.Buffered() == 0 {
				_ = w.Flush()
			}
		}
		if err != nil {
			_ = w.Flush()
			return
		}
	}
}

// spinFor is how long the spin-unknown fault computes.
const spinFor = 2500 * time.Millisecond

// serve is a small, careful MCP server of version v. Faults:
//
//	panic-nul       panics on a line containing a NUL byte
//	exit-garbage    exits with status 3 on a line that is not JSON
//	hang-unknown    stops reading after a request for an unknown method
//	spin-unknown    computes (spins a CPU) for spinFor before it answers a
//	                request for an unknown method: busy, not hung
//	both-on-ping    answers ping with both result and error
//	banner          writes a non-JSON line to stdout after initialize
//	late-both       holds its answer to tools/call, which has both result and
//	                error, until it has answered the next line
//	later-both      writes that answer 150ms after the request came, from a
//	                goroutine of its own (as a server answering each request
//	                concurrently may), so that it comes after the probes'
//	dual-era        (a stateless version) serves both eras on one stream, as
//	                a dual-era server does: initialize opens a 2025-11-25
//	                session, whose rules then apply to every later message
//	                without a _meta protocol version
//
// serve reads in and writes out (a process's stdin and stdout, or the
// pipes of an in-process instance, see inprocTarget); ends says how it
// exits with a status and how it hangs.
func serve(v spec.Version, fault string, in io.Reader, stdout io.Writer, ends serverEnds) {
	r := bufio.NewReaderSize(in, 1<<16)
	out := bufio.NewWriter(stdout)
	legacy := false   // dual-era: initialize opened the legacy session
	var held [][]byte // late-both: the answer held back
	var mu sync.Mutex // later-both: out is written from two goroutines
	write := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = out.Write(b)
		_ = out.WriteByte('\n')
	}
	// Replies are flushed once no other complete line is at hand (as echo
	// does): the answers to lines that came in one read go out in one
	// write.
	flush := func() {
		if buf, _ := r.Peek(r.Buffered()); bytes.IndexByte(buf, '\n') < 0 {
			mu.Lock()
			_ = out.Flush()
			mu.Unlock()
		}
	}
	for {
		l, err := r.ReadBytes('\n')
		if len(l) == 0 && err != nil {
			mu.Lock()
			_ = out.Flush()
			mu.Unlock()
			return
		}
		l = bytes.TrimSuffix(bytes.TrimSuffix(l, []byte{'\n'}), []byte{'\r'})
		if fault == "panic-nul" && bytes.IndexByte(l, 0) >= 0 {
			_ = out.Flush()
			panic(fmt.Sprintf("test server: NUL byte at offset %d", bytes.IndexByte(l, 0)))
		}
		if len(bytes.TrimSpace(l)) == 0 {
			flush()
			continue
		}
		var replies [][]byte
		if fault == "dual-era" {
			replies = handleDual(v, l, &legacy)
		} else {
			replies = handle(v, fault, l)
		}
		if m := jsonrpc.Decode(l); fault == "later-both" && m.Method == spec.MethodToolsCall {
			replies = nil
			late := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{},"error":{"code":1,"message":"x"}}`, m.ID.String()))
			time.AfterFunc(150*time.Millisecond, func() { // the target's own slowness
				write(late)
				mu.Lock()
				_ = out.Flush()
				mu.Unlock()
			})
		}
		if fault == "late-both" {
			replies = append(replies, held...)
			held = nil
			if m := jsonrpc.Decode(l); m.Method == spec.MethodToolsCall {
				held, replies = [][]byte{[]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{},"error":{"code":1,"message":"x"}}`, m.ID.String()))}, nil
			}
		}
		for _, reply := range replies {
			if reply == nil {
				mu.Lock()
				_ = out.Flush()
				mu.Unlock()
				ends.exit(3)
			}
			if string(reply) == "hang" {
				mu.Lock()
				_ = out.Flush()
				mu.Unlock()
				ends.hang()
			}
			write(reply)
		}
		flush()
		if err != nil {
			mu.Lock()
			_ = out.Flush()
			mu.Unlock()
			return
		}
	}
}

// serverEnds are how serve leaves: exit ends the server with a status,
// hang stops it for good (neither returns).
type serverEnds struct {
	exit func(code int)
	hang func()
}

// processEnds are the ends of the helper process.
var processEnds = serverEnds{
	exit: os.Exit,
	hang: func() {
		for {
			time.Sleep(time.Hour) // hang (select{} would be a deadlock crash)
		}
	},
}

func errorReply(id *jsonrpc.ID, code int64, msg string) []byte {
	if id == nil || id.IsZero() {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`, code, msg))
	}
	b, _ := jsonrpc.NewErrorResponse(*id, code, msg, nil)
	return b
}

func handle(v spec.Version, fault string, l []byte) [][]byte {
	m := jsonrpc.Decode(l)
	if m.Has(jsonrpc.ReasonNotJSON) || m.Has(jsonrpc.ReasonTooDeep) {
		if fault == "exit-garbage" {
			return [][]byte{nil}
		}
		return [][]byte{errorReply(nil, jsonrpc.ParseError, "parse error")}
	}
	if m.Shape != jsonrpc.KindRequest {
		if m.Shape == jsonrpc.KindNotification || m.Shape.IsResponse() {
			return nil // notifications and responses get no answer
		}
		return [][]byte{errorReply(nil, jsonrpc.InvalidRequest, "invalid request")}
	}
	id := m.ID
	if !m.Valid() {
		return [][]byte{errorReply(&id, jsonrpc.InvalidRequest, "invalid request")}
	}
	if s, ok := id.Str(); ok && fault == "ids-truncated" && len(s) > 1 && m.Method != spec.MethodInitialize && m.Method != spec.MethodServerDiscover {
		// Every answer to a request with a string id goes out under that id
		// cut short: the answers come, none under an id awaited.
		id = jsonrpc.StringID(s[:len(s)-1])
	}
	stateless := v.Era() == spec.Stateless
	result := func(r map[string]any) [][]byte {
		if stateless {
			r["resultType"] = "complete"
		}
		b, err := jsonrpc.NewResponse(id, r)
		if err != nil {
			return [][]byte{errorReply(&id, jsonrpc.InternalError, err.Error())}
		}
		return [][]byte{b}
	}
	var params map[string]any
	if len(m.Params) > 0 {
		if json.Unmarshal(m.Params, &params) != nil {
			return [][]byte{errorReply(&id, jsonrpc.InvalidParams, "params must be an object")}
		}
	}
	if stateless {
		meta, _ := params["_meta"].(map[string]any)
		if pv, _ := meta["io.modelcontextprotocol/protocolVersion"].(string); pv != string(v) {
			return [][]byte{errorReply(&id, jsonrpc.InvalidParams, "missing or wrong _meta protocol version")}
		}
	}
	known := func(name string) bool { _, ok := spec.LookupMethod(v, name); return ok }
	switch {
	case m.Method == spec.MethodInitialize && known(m.Method):
		return result(map[string]any{"protocolVersion": string(v), "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "fuzz-test-server", "version": "1"}})
	case m.Method == spec.MethodPing && known(m.Method):
		if fault == "both-on-ping" {
			return [][]byte{[]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{},"error":{"code":1,"message":"x"}}`, id.String()))}
		}
		if s, ok := id.Str(); ok && fault == "ping-id-truncated" {
			// The liveness probe's answer under its id cut short.
			return [][]byte{[]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{}}`, s[:len(s)-1]))}
		}
		return result(map[string]any{})
	case m.Method == spec.MethodServerDiscover && known(m.Method):
		return result(map[string]any{"ttlMs": 0, "cacheScope": "public", "supportedVersions": []string{string(v)}, "capabilities": map[string]any{"tools": map[string]any{}}})
	case m.Method == spec.MethodToolsList:
		r := map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []any{"message"}}}}}
		if stateless {
			r["ttlMs"], r["cacheScope"] = 0, "public"
		}
		return result(r)
	case m.Method == spec.MethodToolsCall:
		args, _ := params["arguments"].(map[string]any)
		msg, _ := args["message"].(string)
		if name, _ := params["name"].(string); name != "echo" {
			return [][]byte{errorReply(&id, jsonrpc.InvalidParams, "unknown tool")}
		}
		return result(map[string]any{"content": []any{map[string]any{"type": "text", "text": msg}}})
	}
	if fault == "hang-unknown" && !knownAnywhere(m.Method) {
		return [][]byte{[]byte("hang")}
	}
	if fault == "spin-unknown" && !knownAnywhere(m.Method) {
		for end := time.Now().Add(spinFor); time.Now().Before(end); {
			// computing: the process stays runnable all along
		}
	}
	if fault == "banner" {
		return [][]byte{[]byte("server ready!"), errorReply(&id, jsonrpc.MethodNotFound, "method not found")}
	}
	return [][]byte{errorReply(&id, jsonrpc.MethodNotFound, "method not found")}
}

// handleDual routes one line of a dual-era stream: messages that declare a
// protocol version in _meta are served statelessly by v; initialize opens
// the legacy session, which serves everything else by 2025-11-25 once open.
func handleDual(v spec.Version, l []byte, legacy *bool) [][]byte {
	m := jsonrpc.Decode(l)
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if _, declared := p.Meta["io.modelcontextprotocol/protocolVersion"]; declared {
		return handle(v, "", l)
	}
	switch {
	case m.Shape == jsonrpc.KindRequest && m.Method == spec.MethodInitialize && m.Valid():
		*legacy = true
		b, _ := jsonrpc.NewResponse(m.ID, map[string]any{"protocolVersion": string(spec.V20251125), "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "fuzz-test-server", "version": "1"}})
		return [][]byte{b}
	case *legacy:
		return handle(spec.V20251125, "", l)
	}
	return handle(v, "", l)
}

func knownAnywhere(name string) bool {
	for _, m := range spec.Methods {
		if m.Name == name {
			return true
		}
	}
	return false
}

// runClean runs a campaign that must end without an error, a finding or a
// campaign problem; what names the target in the failure messages.
func runClean(t testing.TB, what string, cfg Config) *Result {
	t.Helper()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("finding on %s: %s %s (%s seed %d): %s\n%q", what, f.Kind, f.Check, f.Mutator, f.Seed, f.Message, trimmed(f.Minimized.Bytes()))
	}
	if len(res.Errors) > 0 {
		t.Errorf("campaign errors: %v", res.Errors)
	}
	return res
}
