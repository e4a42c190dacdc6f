package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeExamples returns the mcpcheck command lines of README.md's shell
// blocks: continuation lines joined, trailing comments cut.
func readmeExamples(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	in, pending := false, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			in = line == "```sh"
			continue
		}
		if !in {
			continue
		}
		line = strings.TrimSpace(line)
		if pending != "" {
			line = pending + " " + line
			pending = ""
		}
		if strings.HasSuffix(line, `\`) {
			pending = strings.TrimSpace(strings.TrimSuffix(line, `\`))
			continue
		}
		if i := strings.Index(line, "  #"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if strings.HasPrefix(line, "mcpcheck ") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readmeCase says how one README example runs here: its placeholder
// programs and URLs replaced by the reference pair, flags appended that
// only bound it (a later flag wins), and the exit code it must give.
type readmeCase struct {
	replace []string // old, new pairs
	bound   []string
	want    int
	setup   func(t *testing.T, dir string) []string // more old, new pairs
	env     []string                                // added to the example's environment
}

// TestREADMEExamplesRun runs every mcpcheck example of README.md as
// written, in one scratch directory in README order (later examples read
// the reports earlier ones wrote), with `mcpcheck` on PATH. Placeholders
// (a user's server or client, example URLs) become the reference pair;
// runs are bounded by flags appended after the example's own. An example
// the table does not know fails the test, so the README cannot gain an
// example no test runs.
func TestREADMEExamplesRun(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("the examples run through sh")
	}
	dir := t.TempDir()
	pathDir := filepath.Join(dir, "bin")
	if err := os.MkdirAll(pathDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(pathDir, "mcpcheck")); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	streamable := refServerURL(t, ctx, "--http", "127.0.0.1:0")
	legacy := strings.TrimSuffix(refServerURL(t, ctx, "--http", "127.0.0.1:0", "--legacy-sse"), "/mcp") + "/sse"
	ref := "mcpcheck reference server --stdio"
	ping := []string{"--label-filter", "area:ping", "--protocol", "2025-11-25"}
	// A campaign's bound: three inputs, whatever the machine's load (the
	// README's --duration stays: a duration cut short by a busy machine
	// ended a client campaign in its clean run, exit 3). A client
	// campaign's runs may each take twice its clean run plus --wait
	// before they are findings: 10 s, not the default, so that a run
	// slowed by the load is not one.
	short := []string{"--max-execs", "3"}
	clientShort := append(short, "--wait", "10s")
	base := []string{"--label-filter", "area:base", "--protocol", "2025-11-25"} // every shard of it has checks
	onPath := append(os.Environ(), "PATH="+pathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	copyFile := func(t *testing.T, from, to string) {
		b, err := os.ReadFile(filepath.Join(work, from))
		if err != nil {
			t.Fatalf("an earlier example should have written %s: %v", from, err)
		}
		if err := os.WriteFile(filepath.Join(work, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]readmeCase{
		`mcpcheck server --stdio "node build/index.js"`:                         {replace: []string{"node build/index.js", ref}, bound: ping},
		`mcpcheck server --url http://127.0.0.1:3000/mcp --protocol 2025-11-25`: {replace: []string{"http://127.0.0.1:3000/mcp", streamable}, bound: ping},
		`mcpcheck server --url https://example.test/mcp --header-env "Authorization:MCP_TOKEN" --format text,json,junit,md,html,sarif --out mcpcheck-out/ --baseline expected-failures.json`: {
			replace: []string{"https://example.test/mcp", streamable}, bound: ping, env: []string{"MCP_TOKEN=Bearer readme-example"},
			setup: func(t *testing.T, dir string) []string {
				if err := os.WriteFile(filepath.Join(dir, "expected-failures.json"), []byte(`{"entries":[]}`), 0o644); err != nil {
					t.Fatal(err)
				}
				return nil
			},
		},
		`mcpcheck client --command "my-client {url}"`:                                                                               {replace: []string{"my-client", "mcpcheck reference client conformance"}, bound: ping},
		`mcpcheck client --stdio "my-host --server '{server}'"`:                                                                     {replace: []string{"my-host --server", "mcpcheck reference client conformance --stdio"}, bound: ping},
		`mcpcheck client --command "mcpcheck reference client conformance" --protocol all --format text,html --out out/`:            {bound: ping},
		`mcpcheck fuzz --stdio "./my-server" --protocol 2025-11-25 --duration 10m --seed 42 --out fuzz-out --format text,json,html`: {replace: []string{"./my-server", ref}, bound: short},
		`mcpcheck replay fuzz-out/findings/crash-1a2b3c4d --stdio "./my-server"`: {
			want: exitFailed,
			setup: func(t *testing.T, dir string) []string {
				// A finding to replay, from a campaign against a server
				// that crashes, written where the README's campaign writes.
				broken := brokenCommand(t)
				cmd := exec.Command(bin, "fuzz", "--stdio", broken, "--protocol", "2025-11-25", "--max-execs", "20", "--seed", "1", "--wait", "2s", "--out", "fuzz-out")
				cmd.Dir = dir
				cmd.Run()
				found, _ := filepath.Glob(filepath.Join(dir, "fuzz-out", "findings", "crash-*"))
				if len(found) == 0 {
					t.Fatal("the campaign against a crashing server left no crash finding under fuzz-out/findings")
				}
				rel, _ := filepath.Rel(dir, found[0])
				return []string{"fuzz-out/findings/crash-1a2b3c4d", rel, "./my-server", broken}
			},
		},
		`mcpcheck fuzz --client-stdio "my-host --server '{server}'" --protocol 2025-11-25 --duration 10m --out fuzz-client`: {
			replace: []string{"my-host --server", "mcpcheck reference client conformance --timeout 2s --stdio"}, bound: clientShort},
		`mcpcheck fuzz --client "my-client {url}" --protocol 2026-07-28 --duration 10m`: {replace: []string{"my-client", "mcpcheck reference client conformance --timeout 2s"}, bound: clientShort},
		`mcpcheck fuzz --url http://127.0.0.1:3000/mcp --duration 10m`:                  {replace: []string{"http://127.0.0.1:3000/mcp", streamable}, bound: short},
		`mcpcheck fuzz --url http://127.0.0.1:3000/sse --transport sse`:                 {replace: []string{"http://127.0.0.1:3000/sse", legacy}, bound: short},
		`mcpcheck report convert run.json --format html,md,junit,sarif,badge --out site/`: {
			setup: func(t *testing.T, dir string) []string {
				copyFile(t, "mcpcheck-out/mcpcheck-server.json", "run.json")
				return nil
			},
		},
		`mcpcheck report diff yesterday.json today.json --format md`: {
			setup: func(t *testing.T, dir string) []string {
				copyFile(t, "run.json", "yesterday.json")
				copyFile(t, "run.json", "today.json")
				return nil
			},
		},
		`mcpcheck report matrix ref=a.json ts=b.json go=c.json --format html,md --out matrix/`: {
			setup: func(t *testing.T, dir string) []string {
				for _, f := range []string{"a.json", "b.json", "c.json"} {
					copyFile(t, "run.json", f)
				}
				return nil
			},
		},
		`mcpcheck baseline write run.json --reason "known, tracked in #12" --out expected-failures.json`: {},
		`mcpcheck reference server --stdio`:                                                                  {},
		`mcpcheck reference server --list-faults`:                                                            {},
		`mcpcheck reference client --stdio "npx -y @modelcontextprotocol/server-everything" tools`:           {replace: []string{"npx -y @modelcontextprotocol/server-everything", ref}},
		`mcpcheck reference client --url http://127.0.0.1:8080/mcp call greet --args '{"name":"hi"}' --json`: {replace: []string{"http://127.0.0.1:8080/mcp", streamable}},
		`mcpcheck reference client --list-faults`:                                                            {},
		`mcpcheck spec list --version 2025-11-25 --level MUST --role server --area tools --json`:             {},
		`mcpcheck spec show lifecycle.initialize.first-interaction`:                                          {},
		`mcpcheck spec coverage --role client --json`:                                                        {},
		`mcpcheck version`: {},
		`mcpcheck server --url http://127.0.0.1:3000/mcp --auth-issuer http://127.0.0.1:9000`:                                {setup: readmeAuthPair, bound: []string{"--label-filter", "area:authorization", "--protocol", "2025-11-25"}},
		`mcpcheck authserver mint --issuer http://127.0.0.1:9000 --resource http://127.0.0.1:3000/mcp --kind expired`:        {setup: readmeAuthPair},
		`mcpcheck server --url http://127.0.0.1:3000/mcp --auth-issuer http://127.0.0.1:9000 --auth-upstream 127.0.0.1:9100`: {setup: readmeAuthUpstream, bound: []string{"--label-filter", "area:authorization", "--protocol", "2025-11-25"}},
		`mcpcheck authserver-check --url http://127.0.0.1:9000`:                                                              {setup: readmeAuthPair, bound: []string{"--protocol", "2025-11-25"}},
		`mcpcheck server --stdio "node build/index.js" --format text,json,html,md --out mcpcheck-out/`:                       {replace: []string{"node build/index.js", ref}, bound: ping},
		`mcpcheck server --stdio "node build/index.js" --call-tools all --tool-args tool-args.json`: {
			replace: []string{"node build/index.js", ref}, bound: []string{"--label-filter", "area:tools", "--protocol", "2025-11-25"},
			setup: func(t *testing.T, dir string) []string {
				if err := os.WriteFile(filepath.Join(dir, "tool-args.json"), []byte(`{"ref_structured": [{"a": 1, "b": 2}, {"a": -1, "b": 0.5}]}`), 0o644); err != nil {
					t.Fatal(err)
				}
				return nil
			},
		},
		`mcpcheck baseline write mcpcheck-out/mcpcheck-server.json --reason "known: #42, cursors are not stable yet" --out .mcpcheck/expected-failures.json`: {},
		`mcpcheck server --stdio "node build/index.js" --baseline .mcpcheck/expected-failures.json`:                                                          {replace: []string{"node build/index.js", ref}, bound: ping},
		`mcpcheck server --stdio "./my-server" --shard 2/4 --out shard-2 --format json`:                                                                      {replace: []string{"./my-server", ref}, bound: base},
		`mcpcheck report merge shard-*/mcpcheck-server.json --out merged --format json,html,junit`: {
			setup: func(t *testing.T, dir string) []string {
				// The other shards of the README's CI matrix.
				for _, k := range []string{"1", "3", "4"} {
					cmd := exec.Command(bin, append([]string{"server", "--stdio", ref, "--shard", k + "/4", "--out", "shard-" + k, "--format", "json"}, base...)...)
					cmd.Dir, cmd.Env = dir, onPath
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("shard %s/4: %v\n%s", k, err, out)
					}
				}
				return nil
			},
		},
		`mcpcheck fuzz --stdio "./my-server" --seed 42 --max-execs 200000 --shard 2/4 --out fuzz-2`: {replace: []string{"./my-server", ref, "200000", "40"}},
		`mcpcheck fuzz merge fuzz-1 fuzz-2 fuzz-3 fuzz-4 --out fuzz-merged --format text,json,html`: {
			setup: func(t *testing.T, dir string) []string {
				for _, k := range []string{"1", "3", "4"} {
					cmd := exec.Command(bin, "fuzz", "--stdio", ref, "--seed", "42", "--max-execs", "40", "--shard", k+"/4", "--out", "fuzz-"+k)
					cmd.Dir, cmd.Env = dir, onPath
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("fuzz shard %s/4: %v\n%s", k, err, out)
					}
				}
				return nil
			},
		},
	}

	examples := readmeExamples(t)
	if len(examples) < len(cases) {
		t.Errorf("README.md has %d mcpcheck examples, the table %d: an example was removed or changed; update the table", len(examples), len(cases))
	}
	for _, ex := range examples {
		tc, ok := cases[ex]
		if !ok {
			t.Errorf("README example %q is not run by this test: add it to the table in readme_test.go", ex)
			continue
		}
		t.Run(ex, func(t *testing.T) {
			line := ex
			pairs := tc.replace
			if tc.setup != nil {
				pairs = append(pairs, tc.setup(t, work)...)
			}
			for i := 0; i+1 < len(pairs); i += 2 {
				line = strings.ReplaceAll(line, pairs[i], pairs[i+1])
			}
			for _, b := range tc.bound {
				line += " " + shellQuote(b)
			}
			rctx, rcancel := context.WithTimeout(ctx, 2*time.Minute)
			defer rcancel()
			cmd := exec.CommandContext(rctx, "sh", "-c", line)
			cmd.Dir = work
			cmd.Env = append(append(os.Environ(), "PATH="+pathDir+string(os.PathListSeparator)+os.Getenv("PATH")), tc.env...)
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if code != tc.want {
				t.Errorf("%s\nexit %d, want %d:\n%s", line, code, tc.want, tail(string(out), 3000))
			}
		})
	}
}

// refServerURL starts the reference server over HTTP in this process with
// args and returns the URL it prints; ctx stops it.
func refServerURL(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	var stdout, stderr lockedBuffer
	code := startRefServer(ctx, strings.NewReader(""), &stdout, &stderr, args...)
	deadline := time.After(10 * time.Second)
	for {
		if m := listenURL.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case ec := <-code:
			t.Fatalf("the reference server exited (%d) before printing its URL; stderr %q", ec, stderr.String())
		case <-deadline:
			t.Fatalf("the reference server printed no URL within 10s: %q", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
