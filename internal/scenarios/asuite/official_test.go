package asuite

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/authserver"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/officialsuite"
)

// officialVerdicts runs the official conformance suite's authorization
// server scenarios (conformance authorization) against issuer, as a
// public client it registers there (RFC 7591) with a loopback callback;
// it plays the browser: the authorization URL the suite prints is
// followed, and the authserver's automatic consent redirects to the
// suite's callback. It returns the suite's verdicts by status and its
// output.
func officialVerdicts(t *testing.T, s officialsuite.Suite, issuer string) (map[string]int, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	reg, _ := json.Marshal(map[string]any{"redirect_uris": []string{fmt.Sprintf("http://127.0.0.1:%d/callback", port)},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "client_name": "official-suite"})
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Post(issuer+"/register", "application/json", bytes.NewReader(reg))
	if err != nil {
		t.Fatal(err)
	}
	var client struct {
		ID string `json:"client_id"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&client)
	resp.Body.Close()
	if err != nil || client.ID == "" {
		t.Fatalf("registering the suite's client: HTTP %d, %v", resp.StatusCode, err)
	}

	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Node, s.Script, "authorization", "--url", issuer, "--client-id", client.ID,
		"--resource", testResource, "-p", strconv.Itoa(port), "-o", out)
	cmd.Env = append(os.Environ(), "NODE_OPTIONS=--require "+filepath.Join(s.Lab, "bind-localhost.cjs"))
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()

	authorize := regexp.MustCompile(regexp.QuoteMeta(issuer) + `/authorize\?\S+`)
	var log strings.Builder
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	var pending string
	for sc.Scan() {
		line := sc.Text()
		if log.Len() < 1<<20 {
			log.WriteString(line + "\n")
		}
		if u := authorize.FindString(line); u != "" {
			pending = u
		}
		if pending != "" && strings.Contains(line, "Callback server started") {
			// The browser: the authserver consents at once and redirects
			// to the suite's callback, which the client follows.
			if r, err := hc.Get(pending); err == nil {
				_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
				r.Body.Close()
			} else {
				t.Errorf("following the authorization URL: %v", err)
			}
			pending = ""
		}
	}
	_, _ = io.Copy(io.Discard, pr)
	if err := <-done; err != nil && !strings.Contains(log.String(), "Total") {
		t.Fatalf("the official suite: %v\n%s", err, log.String())
	}

	return officialsuite.Statuses(out), log.String()
}

// TestOfficialSuiteAgainstTheAuthserver: the official conformance suite's
// authorization server scenarios (metadata endpoint, authorization code
// grant), a client mcpcheck did not write, pass against mcpcheck's
// authserver and fail on its no-metadata fault. It needs the lab (Node 22
// and the suite, ../shared/lab/setup.sh) and skips without it.
func TestOfficialSuiteAgainstTheAuthserver(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the official suite under Node")
	}
	s, err := officialsuite.Find()
	if err != nil {
		t.Skip(err)
	}
	v, log := officialVerdicts(t, s, startAS(t))
	if v["SUCCESS"] < 3 || v["FAILURE"] > 0 || v["WARNING"] > 0 {
		t.Errorf("against the clean authserver the official suite judged %v, want at least 3 successes and nothing else\n%s", v, log)
	}
	t.Logf("clean authserver: %v", v)
	v, log = officialVerdicts(t, s, startAS(t, authserver.FaultNoMetadata))
	if v["FAILURE"] == 0 {
		t.Errorf("with fault %s the official suite judged %v, want a failure\n%s", authserver.FaultNoMetadata, v, log)
	}
	t.Logf("fault %s: %v", authserver.FaultNoMetadata, v)
}
