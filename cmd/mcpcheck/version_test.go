package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestToolVersionFromBuildInfo: a released module version is the tool's
// version as is; a checkout build is the base version plus the short
// revision, marked when the tree was modified; a build without VCS
// information is the base version.
func TestToolVersionFromBuildInfo(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	settings := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-21T17:26:22Z"}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, baseVersion},
		{"go test or go run", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, baseVersion},
		{"release", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.2.0"}}, "v1.2.0"},
		{"clean checkout", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}, Settings: settings("false")}, baseVersion + "+0123456789ab"},
		{"modified checkout", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.0.0-20261121172622-0123456789ab+dirty"}, Settings: settings("true")}, baseVersion + "+0123456789ab.modified"},
		{"pseudo-version", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.1.1-0.20261121172622-0123456789ab"}, Settings: settings("false")}, baseVersion + "+0123456789ab"},
	} {
		if got := readBuild(c.bi).Version; got != c.want {
			t.Errorf("%s: version %q, want %q", c.name, got, c.want)
		}
	}
	var buf bytes.Buffer
	b, err := withSpecVersions(readBuild(&debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}, Settings: settings("true")}))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeVersion(&buf, b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"revision  " + rev + " 2026-11-21T17:26:22Z (modified)", "module    " + modulePath + " (devel)", "go        go"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the version text lacks %q:\n%s", want, buf.String())
		}
	}
}

const modulePath = "github.com/mcpcheck/mcpcheck"

// TestVersionCommand: "mcpcheck version" names the catalog's protocol
// versions in text and JSON, and refuses arguments.
func TestVersionCommand(t *testing.T) {
	code, out, stderr := runCLI("version")
	if code != exitOK || !strings.HasPrefix(out, "mcpcheck "+programVersion+"\n") {
		t.Fatalf("version: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	for _, v := range spec.Versions {
		if !strings.Contains(out, string(v)+" (") {
			t.Errorf("version does not name protocol %s:\n%s", v, out)
		}
	}
	code, out, _ = runCLI("version", "--json")
	var b buildInfo
	if err := json.Unmarshal([]byte(out), &b); code != exitOK || err != nil {
		t.Fatalf("version --json: exit %d, %v:\n%s", code, err, out)
	}
	if b.Name != programName || b.Version != programVersion || len(b.SpecVersions) != len(spec.Versions) || b.SpecVersions[0].Requirements == 0 || b.GoVersion == "" {
		t.Errorf("version --json is incomplete: %+v", b)
	}
	if code, _, stderr := runCLI("version", "extra"); code != exitUsage || !strings.Contains(stderr, "no arguments") {
		t.Errorf("version extra: exit %d, stderr %q; want %d", code, stderr, exitUsage)
	}
}

// TestVersionPrintsTheBuildRevision wants "mcpcheck version" (text and
// JSON) and the reports of a run of a binary built with go build from a
// git checkout to carry the commit from the build information. The binary
// is the tests' own (mcpcheckBin), which go build stamps in a checkout
// (make test's clean clone); where it carries no revision — Go stamps no
// VCS information in a linked git worktree (golang/go#58218) — or HEAD
// moved while it was built (another commit in a shared checkout), it is
// built again from a throwaway clone of the working tree.
func TestVersionPrintsTheBuildRevision(t *testing.T) {
	bin, head := mcpcheckBin(t), binHead
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	b, out := versionJSON(ctx, t, bin)
	if b.Revision == "" || head == "" {
		t.Logf("the tests' binary carries no revision to compare (%q, HEAD %q): building one from a clone of the working tree", b.Revision, head)
		bin, head = stampedBuild(ctx, t)
		b, out = versionJSON(ctx, t, bin)
	}
	if b.Revision != head || b.VCS != "git" || b.Time == "" || !strings.Contains(b.Version, "+"+head[:12]) {
		t.Errorf("mcpcheck version --json: want revision %s, vcs git, a time and the short revision in the version:\n%s", head, out)
	}
	text, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		t.Fatalf("mcpcheck version: %v", err)
	}
	if !strings.Contains(string(text), "revision  "+head) {
		t.Errorf("mcpcheck version does not print the revision %s it was built from:\n%s", head, text)
	}
	dir := t.TempDir()
	run := exec.CommandContext(ctx, bin, "server", "--stdio", bin+" reference server --stdio", "--protocol", "2025-11-25", "--label-filter", "area:ping", "--deadline", "1m", "--format", "json", "--out", dir)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("a run of the stamped binary: %v\n%s", err, out)
	}
	f, err := os.Open(filepath.Join(dir, "mcpcheck-server.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := reports.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tool.Version != b.Version {
		t.Errorf("the report names the tool %q, mcpcheck version says %q", rep.Tool.Version, b.Version)
	}
}

// versionJSON runs "bin version --json" and returns what it says.
func versionJSON(ctx context.Context, t *testing.T, bin string) (buildInfo, string) {
	t.Helper()
	out, err := exec.CommandContext(ctx, bin, "version", "--json").Output()
	var b buildInfo
	if err == nil {
		err = json.Unmarshal(out, &b)
	}
	if err != nil {
		t.Fatalf("mcpcheck version --json: %v\n%s", err, out)
	}
	return b, string(out)
}

// stampedBuild builds mcpcheck with go build -buildvcs=true from a git
// checkout of the working tree (a copy committed in a repository of its
// own when this is a linked worktree) and returns the binary and the
// commit it was built from. It skips t when there is no git or no
// checkout to compare the stamped revision with.
func stampedBuild(ctx context.Context, t *testing.T) (bin, head string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH: nothing to compare the stamped revision with")
	}
	gitOut := func(dir string, args ...string) string {
		out, err := exec.Command(git, append([]string{"-C", dir}, args...)...).Output()
		if err != nil {
			t.Skipf("not a git checkout (git %s: %v): nothing to compare the stamped revision with", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	src := gitOut(".", "rev-parse", "--show-toplevel")
	if gitOut(".", "rev-parse", "--path-format=absolute", "--git-dir") != gitOut(".", "rev-parse", "--path-format=absolute", "--git-common-dir") {
		src = checkoutOfWorkingTree(t, git, src)
	}
	head = gitOut(src, "rev-parse", "HEAD")
	bin = filepath.Join(t.TempDir(), "mcpcheck")
	build := exec.CommandContext(ctx, "go", "build", "-buildvcs=true", "-o", bin, "./cmd/mcpcheck")
	build.Dir = src
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("go build -buildvcs=true cannot stamp this checkout (%v): %s", err, out)
	}
	if gitOut(src, "rev-parse", "HEAD") != head {
		t.Skipf("HEAD of %s moved while mcpcheck was built from it: no one revision to compare with", src)
	}
	return bin, head
}

// checkoutOfWorkingTree copies the files of the working tree at src
// (tracked and untracked, not ignored) into a new git repository, commits
// them and returns its directory: a checkout Go can stamp, holding the code
// under test. The directory's name depends on src only, so that the build
// cache (whose keys include a package's directory) serves the next run.
func checkoutOfWorkingTree(t *testing.T, git, src string) string {
	t.Helper()
	list, err := exec.Command(git, "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("list the working tree's files: %v", err)
	}
	dst := filepath.Join(os.TempDir(), fmt.Sprintf("mcpcheck-vcs-checkout-%x", sha256.Sum256([]byte(src)))[:len("mcpcheck-vcs-checkout-")+16])
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dst) })
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(src, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "--all"}, {"-c", "user.name=mcpcheck test", "-c", "user.email=test@mcpcheck.invalid", "commit", "--quiet", "--no-verify", "-m", "the working tree under test"}} {
		if out, err := exec.Command(git, append([]string{"-C", dst}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %s in the copy: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dst
}
