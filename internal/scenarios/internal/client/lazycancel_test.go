package client

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// envLazyClient makes this test binary, started with it set, act
// lazyCancelClient instead of running tests (see TestMain).
const envLazyClient = "MCPCHECK_TEST_LAZY_CANCEL_CLIENT"

// lazyCancelClient is a generic stdio client that calls every tool it
// lists, in order, giving each the requestTimeoutMs of
// MCP_CONFORMANCE_CONTEXT, and cancels a call it gave up on the way
// mcp-go's client and the TypeScript SDK do: off the caller's path. Here
// that is made certain rather than left to scheduling: the cancellation
// goes out only after the client's next request, and is dropped when the
// session ends first. args are the server's command line. It returns the
// exit status.
func lazyCancelClient(args []string) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "lazy-cancel client: %v\n", err)
		return 1
	}
	if len(args) == 0 {
		return fail(fmt.Errorf("no server command line"))
	}
	srv := exec.Command(args[0], args[1:]...)
	srv.Stderr = os.Stderr
	in, err := srv.StdinPipe()
	if err != nil {
		return fail(err)
	}
	out, err := srv.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	if err := srv.Start(); err != nil {
		return fail(err)
	}
	exited := make(chan struct{})
	defer func() {
		_ = in.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = srv.Process.Kill()
			<-exited
		}
	}()

	var mu sync.Mutex
	waiting := map[int64]chan json.RawMessage{}
	write := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		_, err = in.Write(append(b, '\n'))
		return err
	}
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			switch {
			case m.Method != "" && len(m.ID) > 0: // a request of the server
				if m.Method == "ping" {
					_ = write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
				} else {
					_ = write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not supported"}})
				}
			case m.Method == "":
				var id int64
				if json.Unmarshal(m.ID, &id) != nil {
					continue
				}
				mu.Lock()
				ch := waiting[id]
				delete(waiting, id)
				mu.Unlock()
				if ch != nil {
					ch <- append(m.Result, m.Error...)
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = srv.Wait()
	}()

	var ctx struct {
		RequestTimeoutMs int `json:"requestTimeoutMs"`
	}
	_ = json.Unmarshal([]byte(os.Getenv(EnvContext)), &ctx)
	var next int64
	var pending []any // cancellations that go out after the next request
	request := func(method string, params any, timeout time.Duration) (json.RawMessage, bool, error) {
		next++
		id := next
		ch := make(chan json.RawMessage, 1)
		mu.Lock()
		waiting[id] = ch
		mu.Unlock()
		if err := write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
			return nil, false, err
		}
		for _, n := range pending {
			if err := write(n); err != nil {
				return nil, false, err
			}
		}
		pending = nil
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case res := <-ch:
			return res, true, nil
		case <-exited:
			return nil, false, fmt.Errorf("the server ended")
		case <-t.C:
			pending = append(pending, map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "reason": "timed out"}})
			return nil, false, nil
		}
	}
	const long = 10 * time.Second
	if _, ok, err := request("initialize", map[string]any{"protocolVersion": os.Getenv(EnvVersion), "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpcheck-lazy-cancel-client", "version": "1.0.0"}}, long); err != nil || !ok {
		return fail(fmt.Errorf("initialize: %v", err))
	}
	if err := write(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return fail(err)
	}
	res, ok, err := request("tools/list", map[string]any{}, long)
	if err != nil || !ok {
		return fail(fmt.Errorf("tools/list: %v", err))
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(res, &list)
	timeout := long
	if ctx.RequestTimeoutMs > 0 {
		timeout = time.Duration(ctx.RequestTimeoutMs) * time.Millisecond
	}
	for _, tool := range list.Tools {
		if _, _, err := request("tools/call", map[string]any{"name": tool.Name, "arguments": map[string]any{}}, timeout); err != nil {
			return fail(fmt.Errorf("tools/call %s: %v", tool.Name, err))
		}
	}
	return 0 // a cancellation still pending is dropped with the session
}

// TestGiveUpOnNeverAnswersIsNotLastAct: mcp-go's client and the TypeScript
// SDK send the cancellation of a call they gave up on off the caller's
// path, and a client that calls every tool it lists closes its session
// right after its last call. never_answers sorted last (after echo), so
// whether the cancellation got out before the close was down to
// scheduling: on a loaded machine (load 10) it did and twelve cells of the
// interop matrix said pass or untestable, on a quiet one it did not and
// they said n/a. then_echo, listed after never_answers, is held until
// never_answers is settled, so the cancellation always has a request to
// follow. This client sends it only after its next request (never before,
// whatever the timing) and drops it when the session ends: it is judged as
// a client that cancels, every time.
func TestGiveUpOnNeverAnswersIsNotLastAct(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBinary(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l := Launch{Command: shellWord(exe) + " {server}", Stdio: true, Relay: bin, Env: []string{envLazyClient + "=1"}}
	want := map[string]reports.Outcome{
		"client/cancellation/on-timeout":      reports.Pass,
		"client/cancellation/in-flight":       reports.Pass,
		"client/cancellation/request-timeout": reports.Pass,
		// Its next request went out before the late answer; answered
		// after it, it shows the client went on.
		"client/cancellation/late-answer": reports.Pass,
	}
	var only []string
	for id := range want {
		only = append(only, id)
	}
	res := runSuite(t, Config{Launch: l, Versions: []spec.Version{spec.V20251125}, Only: only, scenarios: []string{caNoAnswerScenario}})
	wantOutcomes(t, res, want)
}

// shellWord quotes s as one word for sh.
func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
