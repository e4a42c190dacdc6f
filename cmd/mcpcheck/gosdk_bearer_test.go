package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
	"github.com/mcpcheck/mcpcheck/reports"
)

// gosdkBearerDir is the go-sdk bearer peer's own module.
var gosdkBearerDir = filepath.Join("..", "..", "internal", "reference", "authserver", "testdata", "gosdk-bearer")

// gosdkBearerBin builds the go-sdk bearer peer (go-sdk v1.8.0 from the Go
// module proxy, or the module cache) into the user's cache directory, keyed
// by its sources, and returns the binary. It skips, saying why, when the
// module cannot be downloaded.
func gosdkBearerBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the go-sdk bearer peer (go-sdk from the Go module proxy)")
	}
	h := sha256.New()
	for _, f := range []string{"main.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(gosdkBearerDir, f))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "mcpcheck-test")
	bin := filepath.Join(dir, "gosdk-bearer-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	goCmd := func(ctx context.Context, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = gosdkBearerDir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = 5 * time.Second
		return cmd.CombinedOutput()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// Download first: a failure here is the proxy's (unreachable, or the
	// module gone), not the peer's, and skips.
	if out, err := goCmd(ctx, "mod", "download", "github.com/modelcontextprotocol/go-sdk"); err != nil {
		t.Skipf("go-sdk v1.8.0 could not be downloaded from the Go module proxy (GOPROXY=%s), so the go-sdk bearer peer cannot be built: %v: %s", os.Getenv("GOPROXY"), err, tailString(string(out), 500))
	}
	tmp := fmt.Sprintf("%s.tmp%d", bin, os.Getpid())
	if out, err := goCmd(ctx, "build", "-o", tmp, "."); err != nil {
		t.Fatalf("building the go-sdk bearer peer (%s): %v\n%s", gosdkBearerDir, err, tailString(string(out), 2000))
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// startGosdkBearer runs the go-sdk bearer peer on a free loopback port,
// trusting issuer, with extra flags; it returns the MCP URL once the peer
// listens, and ends its process group when the test ends.
func startGosdkBearer(t *testing.T, bin, issuer string, extra ...string) string {
	t.Helper()
	// The peer prints "gosdk-bearer: URL, trusting ISSUER" once it listens.
	return startUntilReady(t, nil, append([]string{bin, "-http", "127.0.0.1:0", "-issuer", issuer}, extra...),
		regexp.MustCompile(`gosdk-bearer: (http://\S+), trusting`))[0]
}

// freeLoopbackAddr returns a loopback host:port nothing listens on.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestGoSDKBearerPeer: a go-sdk v1.8.0 server behind go-sdk's bearer-token
// middleware (auth.RequireBearerToken), verifying the JWTs of an mcpcheck
// authserver it trusts and calling an upstream API with a credential of
// its own, judged by the authorization checks with minted tokens over
// streamable HTTP in 2025-06-18, 2025-11-25 and 2026-07-28. go-sdk speaks
// 2026-07-28 only on its stateless handler (-stateless); the stateful one
// leaves that version unspoken (every check n/a). Every check passes but
// one real defect: authorization/insufficient-scope warns from 2025-11-25 on,
// because RequireBearerToken (go-sdk v1.8.0 auth/auth.go) answers a token
// lacking the scope 403 with the same challenge as its 401s, naming
// resource_metadata and scope but no error="insufficient_scope"
// (authorization.insufficient-scope.response-403, a SHOULD).
func TestGoSDKBearerPeer(t *testing.T) {
	t.Parallel()
	bin := gosdkBearerBin(t)
	as, err := authserver.Start("127.0.0.1:0", authserver.Options{MintEndpoint: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	versions := []string{"2025-06-18", "2025-11-25", "2026-07-28"}
	for _, mode := range []struct {
		name     string
		flags    []string
		speaks26 bool
	}{
		{"stateless", []string{"-stateless"}, true},
		{"stateful", nil, false},
	} {
		t.Run(mode.name, func(t *testing.T) {
			upstream := freeLoopbackAddr(t)
			u := startGosdkBearer(t, bin, as.URL, append(mode.flags, "-upstream", "http://"+upstream+"/api")...)
			out := t.TempDir()
			code, _, stderr := runCLI("server", "--url", u, "--transport", "streamable", "--auth-issuer", as.URL, "--auth-upstream", upstream,
				"--protocol", strings.Join(versions, ","), "--label-filter", "area:authorization", "--format", "json", "--out", out)
			run := readRunJSON(t, filepath.Join(out, "mcpcheck-server.json"))
			got := map[string]reports.Outcome{}
			for _, c := range run.Checks {
				got[authCheckName(c.ID)+" "+string(c.Version)] = c.Outcome
			}
			if len(got) == 0 {
				t.Fatalf("no verdicts (exit %d): %s", code, stderr)
			}
			for key, o := range got {
				id, v, _ := strings.Cut(key, " ")
				want := reports.Pass
				switch {
				case v == "2026-07-28" && !mode.speaks26:
					want = reports.NA // unspoken
				case id == "authorization-server-2025-03-26":
					want = reports.NA // 2025-03-26 only
				case id == "insufficient-scope" && v == "2025-06-18":
					want = reports.NA // 2025-11-25 on
				case id == "insufficient-scope":
					want = reports.Warn // go-sdk's 403 names no insufficient_scope
				}
				if o != want {
					t.Errorf("%s in %s: %s, want %s", id, v, o, want)
				}
			}
			for _, v := range versions {
				if _, ok := got["token-audience "+v]; !ok {
					t.Errorf("no verdict of the token audience check in %s", v)
				}
			}
			// Warnings alone (SHOULD broken) do not fail a run; the
			// stateful peer, which leaves 2026-07-28 unjudged, exits 3.
			wantCode := 0
			if !mode.speaks26 {
				wantCode = 3
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d: %s", code, wantCode, stderr)
			}
		})
	}
}

// authCheckName is an authorization check's ID without its area prefix
// (auth/ or authorization/), so the test reads the same across the
// rename of the prefix.
func authCheckName(id string) string {
	for _, p := range []string{"authorization/", "auth/"} {
		if strings.HasPrefix(id, p) {
			return strings.TrimPrefix(id, p)
		}
	}
	return id
}
