// Command zoo is the hostile-target zoo of cmd/mcpcheck's zoo_test.go: one
// small stdio "MCP server" per mode, each broken on purpose. It is built
// by the test (testdata is not part of go build ./...).
//
// Usage: zoo MODE PIDFILE
//
// Every process of the zoo appends its pid to PIDFILE first, so the test
// can prove none is left behind. Every process ends on its own after
// maxLife at the latest, so a harness that leaks one cannot leak it for
// ever (the test fails long before).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const maxLife = 10 * time.Minute

// modes maps each mode to its server.
var modes = map[string]func(){
	"mute":          mute,
	"init-hang":     func() { serve(initHang) },
	"wrong-id":      func() { serve(wrongID) },
	"notify-flood":  notifyFlood,
	"huge-line":     func() { serve(hugeLine) },
	"garbage":       garbage,
	"grandchild":    grandchild,
	"hold":          hold,
	"ignore-term":   ignoreTerm,
	"paginate":      func() { serve(paginate) },
	"deep-nest":     func() { serve(deepNest) },
	"many-tools":    func() { serve(manyTools) },
	"request-storm": requestStorm,
	"well-behaved":  func() { serve(nil) }, // the control: a tiny honest server
	"daemon":        daemon,
	"daemon-mid":    daemonMid,
	"daemon-live":   hold,
	"write-files":   writeFiles,
	"short-child":   shortChild,
}

var pidFile string

func main() {
	if len(os.Args) != 3 || modes[os.Args[1]] == nil {
		fmt.Fprintf(os.Stderr, "usage: zoo MODE PIDFILE (modes: %s)\n", strings.Join(modeNames(), ", "))
		os.Exit(2)
	}
	pidFile = os.Args[2]
	notePid(os.Getpid())
	time.AfterFunc(maxLife, func() { os.Exit(9) })
	modes[os.Args[1]]()
}

func modeNames() []string {
	var out []string
	for m := range modes {
		out = append(out, m)
	}
	return out
}

func notePid(pid int) {
	f, err := os.OpenFile(pidFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "zoo:", err)
		os.Exit(2)
	}
	fmt.Fprintf(f, "%d\n", pid)
	f.Close()
}

// out serialises whole lines on stdout.
var (
	outMu sync.Mutex
	out   = bufio.NewWriterSize(os.Stdout, 64<<10)
)

// writeLine writes one line and flushes; a failed write (the harness went
// away) ends the process.
func writeLine(b []byte) { writeLines([][]byte{b}) }

// writeLines writes lines, nothing between them, and flushes.
func writeLines(lines [][]byte) {
	outMu.Lock()
	defer outMu.Unlock()
	for _, b := range lines {
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		os.Exit(0)
	}
}

func send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	writeLine(b)
}

// msg is an incoming JSON-RPC message.
type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

func (m msg) isRequest() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

// readLoop calls fn with every message read from stdin until EOF.
func readLoop(fn func(msg)) {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m msg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		fn(m)
	}
}

var classic = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

// initResult answers initialize with the version asked (when classic).
func initResult(m msg, caps map[string]any) map[string]any {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(m.Params, &p)
	v := p.ProtocolVersion
	if !classic[v] {
		v = "2025-11-25"
	}
	if caps == nil {
		caps = map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}}
	}
	return map[string]any{"protocolVersion": v, "capabilities": caps, "serverInfo": map[string]any{"name": "zoo", "version": "0"}}
}

// honest answers m the way a tiny correct server would: nil when m needs
// no answer.
func honest(m msg) map[string]any {
	if !m.isRequest() {
		return nil
	}
	var result any
	switch m.Method {
	case "initialize":
		result = initResult(m, nil)
	case "ping":
		result = map[string]any{}
	case "server/discover": // the 2026-07-28 era
		result = map[string]any{"supportedVersions": []string{"2026-07-28"}, "capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "echo", "description": "echo", "inputSchema": map[string]any{"type": "object"}}}}
	case "tools/call":
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}
	case "resources/list":
		result = map[string]any{"resources": []any{}}
	case "resources/templates/list":
		result = map[string]any{"resourceTemplates": []any{}}
	case "prompts/list":
		result = map[string]any{"prompts": []any{}}
	default:
		return map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}}
	}
	return map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result}
}

// serve answers every request; twist, when set, may answer instead
// (returning true when it did).
func serve(twist func(msg) bool) {
	readLoop(func(m msg) {
		if twist != nil && twist(m) {
			return
		}
		if a := honest(m); a != nil {
			send(a)
		}
	})
}

// mute reads everything and answers nothing; it ends at stdin EOF.
func mute() { io.Copy(io.Discard, os.Stdin) }

// initHang answers initialize, then nothing at all.
func initHang(m msg) bool { return m.Method != "initialize" }

// wrongID answers every request, each with an id that was never sent.
var wrongN int

func wrongID(m msg) bool {
	a := honest(m)
	if a == nil {
		return true
	}
	wrongN++
	a["id"] = "wrong-" + strconv.Itoa(wrongN)
	send(a)
	return true
}

// notifyFlood answers honestly while an unbounded stream of
// notifications/message fills stdout.
func notifyFlood() {
	go func() {
		for i := 0; ; i++ {
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
				"params": map[string]any{"level": "info", "logger": "zoo", "data": "flood " + strconv.Itoa(i)}})
		}
	}()
	serve(nil)
}

// hugeLine answers initialize with a 1 GiB line (a result whose padding
// string never seems to end), written in 64 KiB pieces; everything else is
// answered honestly.
func hugeLine(m msg) bool {
	if m.Method != "initialize" || !m.isRequest() {
		return false
	}
	outMu.Lock()
	defer outMu.Unlock()
	id, _ := json.Marshal(m.ID)
	fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"zoo","version":"0"},"pad":"`, id)
	chunk := []byte(strings.Repeat("a", 64<<10))
	for n := 0; n < 1<<30; n += len(chunk) {
		if _, err := out.Write(chunk); err != nil {
			os.Exit(0)
		}
	}
	out.WriteString("\"}}\n")
	if err := out.Flush(); err != nil {
		os.Exit(0)
	}
	return true
}

// garbage answers every line it reads with bytes that are not JSON-RPC:
// binary, text, half an object, a JSON array of numbers.
func garbage() {
	junk := []string{"\x00\x01\x02\xff\xfe garbage \x1b[31m", "this is not JSON", `{"jsonrpc":"2.0","id":`, "[1,2,3]", "\xc3\x28 invalid utf-8"}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for i := 0; sc.Scan(); i++ {
		writeLine([]byte(junk[i%len(junk)]))
	}
}

// grandchild starts a child ("hold") that inherits stdin, stdout and
// stderr, and exits at once: stdout stays open, held by the grandchild of
// the harness, which never writes.
func grandchild() {
	self, err := os.Executable()
	if err != nil {
		os.Exit(2)
	}
	cmd := exec.Command(self, "hold", pidFile)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		os.Exit(2)
	}
	// The child notes its own pid; the parent exits without waiting.
	os.Exit(0)
}

// daemon starts a daemon, the way a server that spawns a background
// helper does (a double fork: a middle process in a session of its own
// starts the daemon and exits, so that the daemon has neither the
// server's process group nor a parent), then answers honestly.
func daemon() {
	if err := start("daemon-mid", true); err != nil {
		fmt.Fprintln(os.Stderr, "zoo:", err)
		os.Exit(2)
	}
	serve(nil)
}

// daemonMid starts the daemon and exits at once, without waiting.
func daemonMid() {
	if err := start("daemon-live", false); err != nil {
		os.Exit(2)
	}
	os.Exit(0)
}

// start starts this program in mode, with no standard streams (a daemon
// keeps none of the harness's pipes), in a session of its own with setsid.
func start(mode string, setsid bool) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, mode, pidFile)
	if setsid {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	return cmd.Start()
}

// writeFiles writes a file into its working directory, its HOME, its
// TMPDIR and its XDG configuration directory, as careless servers do, and
// runs a short-lived child, then answers honestly.
func writeFiles() {
	wd, _ := os.Getwd()
	cfg, err := os.UserConfigDir()
	if err != nil {
		cfg = wd
	}
	home, _ := os.UserHomeDir()
	for _, p := range []string{
		filepath.Join(wd, "zoo-cwd.txt"),
		filepath.Join(home, "zoo-home.txt"),
		filepath.Join(os.TempDir(), "zoo-tmp.txt"),
		filepath.Join(cfg, "zoo", "config.json"),
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(`{"written":"by the zoo"}`+"\n"), 0o644)
	}
	self, err := os.Executable()
	if err == nil {
		cmd := exec.Command(self, "short-child", pidFile)
		if cmd.Start() == nil {
			go cmd.Wait()
		}
	}
	serve(nil)
}

// shortChild lives half a second.
func shortChild() { time.Sleep(500 * time.Millisecond) }

// hold keeps its inherited descriptors open and does nothing.
func hold() { block() }

// block never returns. A goroutine asleep in time.Sleep keeps the runtime
// from seeing a deadlock (an empty select alone could end the program).
func block() {
	for {
		time.Sleep(time.Minute)
	}
}

// ignoreTerm ignores SIGTERM and stdin EOF: it answers honestly while its
// input lasts, then keeps running until SIGKILL.
func ignoreTerm() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	serve(nil)
	block()
}

// paginate answers every list with one item and a nextCursor never seen
// before, for ever.
var cursorN int

func paginate(m msg) bool {
	key, item := "", map[string]any{}
	switch m.Method {
	case "tools/list":
		key, item = "tools", map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}
	case "resources/list":
		key, item = "resources", map[string]any{"uri": "zoo://r", "name": "r"}
	case "resources/templates/list":
		key, item = "resourceTemplates", map[string]any{"uriTemplate": "zoo://{x}", "name": "t"}
	case "prompts/list":
		key, item = "prompts", map[string]any{"name": "p"}
	default:
		return false
	}
	cursorN++
	send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{key: []any{item}, "nextCursor": "cursor-" + strconv.Itoa(cursorN)}})
	return true
}

// deepNest answers tools/list with a tool whose inputSchema nests 100,000
// levels deep ({"items":{"items":...}}).
const nestDepth = 100000

func deepNest(m msg) bool {
	if m.Method != "tools/list" {
		return false
	}
	id, _ := json.Marshal(m.ID)
	var b strings.Builder
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"deep","inputSchema":{"type":"object","properties":{"x":`, id)
	b.WriteString(strings.Repeat(`{"items":`, nestDepth))
	b.WriteString("{}")
	b.WriteString(strings.Repeat("}", nestDepth))
	b.WriteString("}}}]}}")
	writeLine([]byte(b.String()))
	return true
}

// manyTools answers tools/list with 200,000 tools in one page, the same
// page every time, built once (the harness's time is what the entry
// spends, not the zoo's).
const toolCount = 200000

var (
	toolsOnce sync.Once
	toolsPage []byte // the tools array of the answer
)

func manyTools(m msg) bool {
	if m.Method != "tools/list" {
		return false
	}
	toolsOnce.Do(func() {
		var b strings.Builder
		b.WriteByte('[')
		for i := 0; i < toolCount; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"tool-%d","inputSchema":{"type":"object"}}`, i)
		}
		b.WriteByte(']')
		toolsPage = []byte(b.String())
	})
	id, _ := json.Marshal(m.ID)
	line := append(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"result":{"tools":`...), toolsPage...)
	writeLine(append(line, "}}"...))
	return true
}

// stormLead is how many requests of its own request-storm writes
// between reading a request, once the storm is on, and answering it:
// more than the 10,000 other frames a wait of mcpcheck's lets pass
// before it calls the target flooding (expect.Options.MaxFrames'
// default). Every wait then sees the flood, however busy the machine:
// when the answers raced the storm, an answer written before 10,000 of
// its requests (a storm that got little of a loaded machine) made the
// report name no flood.
const stormLead = 12000

// stormRequest is the storm's request number i: ping, roots/list,
// sampling/createMessage in turn.
func stormRequest(i int64) []byte {
	methods := []string{"ping", "roots/list", "sampling/createMessage"}
	req := map[string]any{"jsonrpc": "2.0", "id": "storm-" + strconv.FormatInt(i, 10), "method": methods[i%int64(len(methods))]}
	if req["method"] == "sampling/createMessage" {
		req["params"] = map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}, "maxTokens": 1}
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return b
}

// requestStorm answers honestly and, once initialized, floods the client
// with requests of its own, written as fast as the client reads them by
// one goroutine, which also writes the answers, each stormLead requests
// after its request was read.
func requestStorm() {
	var once sync.Once
	var on atomic.Bool
	answers := make(chan map[string]any, 1024)
	storm := func() {
		on.Store(true)
		go func() {
			type due struct {
				answer map[string]any
				at     int64
			}
			var queue []due
			for i := int64(0); ; i++ {
				writeLine(stormRequest(i))
			take:
				for {
					select {
					case a := <-answers:
						queue = append(queue, due{a, i + stormLead})
					default:
						break take
					}
				}
				for len(queue) > 0 && queue[0].at <= i {
					send(queue[0].answer)
					queue = queue[1:]
				}
			}
		}()
	}
	readLoop(func(m msg) {
		if m.Method == "notifications/initialized" {
			once.Do(storm)
		}
		if a := honest(m); a != nil {
			if on.Load() {
				answers <- a
			} else {
				send(a)
			}
		}
	})
}
