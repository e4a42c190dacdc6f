package harness_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
)

func specOf(t *testing.T, tg harness.Target) target.Spec {
	t.Helper()
	s, ok := target.FromPublic(tg)
	if !ok {
		t.Fatalf("target.FromPublic(%v) did not take a harness.Target", tg)
	}
	return s
}

func serveNothing(ctx context.Context, in io.Reader, out io.Writer) error {
	_, err := io.Copy(io.Discard, in)
	return err
}

// TestTargetsSayWhatTheyAre: each constructor makes the target it names,
// and String says which without header values.
func TestTargetsSayWhatTheyAre(t *testing.T) {
	h := http.NotFoundHandler()
	cases := []struct {
		tg   harness.Target
		want string
		kind func(target.Spec) bool
	}{
		{harness.Command("my-server", "--stdio"), "my-server --stdio", func(s target.Spec) bool {
			return s.Target.Command == "my-server" && len(s.Target.Args) == 1 && s.Target.IsStdio()
		}},
		{harness.URL("http://127.0.0.1:9/mcp").WithHeader("Authorization", "Bearer s3cret"), "http://127.0.0.1:9/mcp", func(s target.Spec) bool {
			return s.Target.URL == "http://127.0.0.1:9/mcp" && !s.Target.IsStdio()
		}},
		{harness.Handler(h, "mcp"), "in-process handler at /mcp", func(s target.Spec) bool { return s.Handler != nil && s.Path == "/mcp" }},
		{harness.Pipe(serveNothing), "in-process pipe", func(s target.Spec) bool { return s.Target.Pipe != nil }},
		{harness.Target{}, "empty target", func(s target.Spec) bool { return s.Handler == nil && s.Target.Command == "" && s.Target.URL == "" }},
	}
	for _, c := range cases {
		if got := c.tg.String(); got != c.want || strings.Contains(got, "s3cret") {
			t.Errorf("String() = %q, want %q (and never a header value)", got, c.want)
		}
		if !c.kind(specOf(t, c.tg)) {
			t.Errorf("%s: the target's spec is not what its constructor names: %+v", c.want, specOf(t, c.tg))
		}
	}
	if _, ok := target.FromPublic("http://127.0.0.1:9/mcp"); ok {
		t.Error("target.FromPublic took a string for a harness.Target")
	}
}

// TestWithLeavesTheOriginalAlone: WithHeader and WithEnv return a new
// target; the one they were called on keeps what it had, so one base
// target can be shared by tests that add different headers.
func TestWithLeavesTheOriginalAlone(t *testing.T) {
	base := harness.URL("http://127.0.0.1:9/mcp").WithHeader("A", "1")
	b := base.WithHeader("B", "2")
	c := base.WithHeader("C", "3")
	if n := len(specOf(t, base).Target.Headers); n != 1 {
		t.Errorf("the base target has %d headers after two WithHeader calls on it, want 1", n)
	}
	for name, tg := range map[string]harness.Target{"B": b, "C": c} {
		hs := specOf(t, tg).Target.Headers
		if len(hs) != 2 || hs[0].Name != "A" || hs[1].Name != name {
			t.Errorf("target with header %s has headers %+v, want A then %s", name, hs, name)
		}
	}
	cmd := harness.Command("srv").WithEnv("X=1")
	d := cmd.WithEnv("Y=2")
	if got := specOf(t, cmd).Target.Env; len(got) != 1 || got[0] != "X=1" {
		t.Errorf("the base command's env is %q after WithEnv on it, want [X=1]", got)
	}
	if got := specOf(t, d).Target.Env; len(got) != 2 || got[1] != "Y=2" {
		t.Errorf("the derived command's env is %q, want [X=1 Y=2]", got)
	}
}

// TestStartRefusesWhatCannotApply: a run refuses an empty target, and an
// option the target's kind cannot honour, instead of ignoring it.
func TestStartRefusesWhatCannotApply(t *testing.T) {
	bad := map[string]struct {
		tg   harness.Target
		says string
	}{
		"empty":               {harness.Target{}, "empty"},
		"header on stdio":     {harness.Command("srv").WithHeader("A", "1"), "WithHeader"},
		"env on a pipe":       {harness.Pipe(serveNothing).WithEnv("X=1"), "WithEnv"},
		"env on a URL":        {harness.URL("http://127.0.0.1:9/mcp").WithEnv("X=1"), "WithEnv"},
		"env on a handler":    {harness.Handler(http.NotFoundHandler(), "/mcp").WithEnv("X=1"), "WithEnv"},
		"URL without address": {harness.URL(""), "empty"},
		"InDir on a URL":      {harness.URL("http://127.0.0.1:9/mcp").InDir("."), "InDir"},
		"InDir on a pipe":     {harness.Pipe(serveNothing).InDir("."), "InDir"},
		"InDir nowhere":       {harness.Command("srv").InDir("/no/such/directory"), "not a directory"},
	}
	for name, c := range bad {
		_, stop, err := specOf(t, c.tg).Start("test")
		if err == nil {
			stop()
			t.Errorf("%s: Start succeeded, want an error about %s", name, c.says)
			continue
		}
		if !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), "test: ") {
			t.Errorf("%s: error %q does not start with the caller's name or does not mention %s", name, err, c.says)
		}
	}
	for _, tg := range []harness.Target{harness.Command("srv").WithEnv("X=1").InDir("."), harness.URL("http://127.0.0.1:9/mcp").WithHeader("A", "1"), harness.Pipe(serveNothing)} {
		_, stop, err := specOf(t, tg).Start("test")
		if err != nil {
			t.Errorf("%s: Start: %v", tg, err)
			continue
		}
		stop()
	}
}

// TestHandlerIsServedOnLoopback: a Handler target is served on a loopback
// address for the length of the run, at its path, and keeps its headers
// for the connections the run makes.
func TestHandlerIsServedOnLoopback(t *testing.T) {
	var gotPath string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.Path
		w.WriteHeader(http.StatusNoContent)
	})
	tg, stop, err := specOf(t, harness.Handler(h, "/mcp").WithHeader("X-Token", "t")).Start("test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tg.URL, "http://127.0.0.1:") || !strings.HasSuffix(tg.URL, "/mcp") {
		t.Errorf("the handler is served at %s, want http://127.0.0.1:PORT/mcp", tg.URL)
	}
	if len(tg.Headers) != 1 || tg.Headers[0].Name != "X-Token" {
		t.Errorf("the served target has headers %+v, want X-Token", tg.Headers)
	}
	resp, err := http.Get(tg.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotPath != "/mcp" || resp.StatusCode != http.StatusNoContent {
		t.Errorf("GET %s reached path %q with status %d, want /mcp and 204", tg.URL, gotPath, resp.StatusCode)
	}
	stop()
	if resp, err := http.Get(tg.URL); err == nil {
		resp.Body.Close()
		t.Errorf("GET %s after stop answered %d; the test server should be closed", tg.URL, resp.StatusCode)
	}
}

// TestCommandGetsASandbox: a Command target runs in a sandbox of the run's
// own, which stop ends and whose side effects it returns; the others are
// not observed, and say why.
func TestCommandGetsASandbox(t *testing.T) {
	tg, stop, err := specOf(t, harness.Command("srv")).Start("test")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Sandbox == nil {
		t.Fatal("a Command target has no sandbox")
	}
	dir := tg.Sandbox.Dir()
	fx := stop()
	if fx == nil || fx.Sandbox == nil {
		t.Errorf("stop returned %+v; want the sandbox's side effects", fx)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the sandbox directory %s is still there after stop (%v)", dir, err)
	}
	for _, other := range []harness.Target{harness.URL("http://127.0.0.1:9/mcp"), harness.Pipe(serveNothing), harness.Handler(http.NotFoundHandler(), "/mcp")} {
		tg, stop, err := specOf(t, other).Start("test")
		if err != nil {
			t.Fatal(err)
		}
		if fx := stop(); tg.Sandbox != nil || fx == nil || fx.Observed || fx.NotObserved == "" {
			t.Errorf("%s: sandbox %v, side effects %+v; want no sandbox and side effects that say why they were not observed", other, tg.Sandbox, fx)
		}
	}
}
