package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/reports"
)

// faultyFaults are reference server faults that each break a check in
// several versions without long waits: plain failures (ping), warnings
// (cursors, error codes), a passive check (notifications the server did
// not declare) and frames sent while a request is handled (progress).
var faultyFaults = []string{"ping-nonempty-result", "prompt-notifications-undeclared", "invalid-cursor-accepted", "not-found-invalid-params-legacy", "progress-decreasing"}

// faultyTarget is the reference server with faultyFaults on, run by bin.
func faultyTarget(bin string) string {
	target := shellQuote(bin) + " reference server --stdio"
	for _, f := range faultyFaults {
		target += " --fault " + f
	}
	return target
}

// faultyArgs are the flags of faultyRun's run that shape its verdicts.
var faultyArgs = []string{"--timeout", "5s"}

// faultyRun runs the whole suite, every version, against the reference
// server with faultyFaults on, once per test binary, writing every
// format; it returns the directory and the exit code.
func faultyRun(t *testing.T) (string, int) {
	t.Helper()
	bin := mcpcheckBin(t)
	faultyOnce.Do(func() {
		faultyDir, faultyErr = os.MkdirTemp("", "mcpcheck-faulty-")
		if faultyErr != nil {
			return
		}
		args := append(append([]string{"server", "--stdio", faultyTarget(bin)}, faultyArgs...), "--format", "text,json,md,html,junit,sarif", "--out", faultyDir, "--sarif-path", "server.json")
		faultyCode, _, faultyStderr = runBin(t, args...)
	})
	if faultyErr != nil {
		t.Fatal(faultyErr)
	}
	return faultyDir, faultyCode
}

var (
	faultyOnce   sync.Once
	faultyDir    string
	faultyCode   int
	faultyStderr string
	faultyErr    error
)

// serverHTMLBudget bounds the HTML report of a server run of every
// version (issue 27).
const serverHTMLBudget = 500 << 10

// TestProblemsFirstAgainstAFaultyServer (issue 27) reads every report of
// a failing run of every version as a person and a machine would: the
// text report names the first failure within its first 20 lines; each
// broken check is one entry in the text, Markdown and HTML reports and
// one SARIF result, naming every version where it broke, and each broken
// requirement's text appears once per format; every failure and warning
// has evidence that holds the request that provoked it and the answer
// (or the wait) it was judged on, passive checks included; the reports
// name the implementation tested; the HTML stays within its budget; the
// SARIF results carry a physical location and fingerprints.
func TestProblemsFirstAgainstAFaultyServer(t *testing.T) {
	t.Parallel()
	dir, code := faultyRun(t)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1 (failures)\n%s", code, tail(faultyStderr, 3000))
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	run := readRunJSON(t, filepath.Join(dir, "mcpcheck-server.json"))
	issues := reports.Issues(run)
	var broken []reports.Issue
	for _, is := range issues {
		if is.Outcome == reports.Fail || is.Outcome == reports.Warn {
			broken = append(broken, is)
		}
	}
	if len(broken) < 4 {
		t.Fatalf("%d failing or warning checks, want at least one per fault: %+v", len(broken), issues)
	}
	several := 0
	for _, is := range broken {
		if len(is.Where) > 1 {
			several++
		}
	}
	if several == 0 {
		t.Fatalf("no check broke in several versions: the test proves nothing of one entry per check")
	}

	text, md, html := read("mcpcheck-server.txt"), read("mcpcheck-server.md"), read("mcpcheck-server.html")
	lines := strings.Split(text, "\n")
	firstFail := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "FAIL ") && !strings.HasPrefix(l, "FAIL:") {
			firstFail = i
			break
		}
	}
	if firstFail < 0 || firstFail >= 20 {
		t.Errorf("the first failure is on line %d of the text report, want within its first 20:\n%s", firstFail+1, strings.Join(lines[:min(40, len(lines))], "\n"))
	}
	for _, is := range broken {
		for name, entry := range map[string]*regexp.Regexp{
			"text": regexp.MustCompile(`(?m)^(FAIL|WARN) +` + regexp.QuoteMeta(is.Check) + ` `),
			"md":   regexp.MustCompile("(?m)^#### .*`" + regexp.QuoteMeta(is.Check) + "`"),
			"html": regexp.MustCompile(`<details class="issue o-(fail|warn)"[^>]*>\s*<summary>[^\n]*>` + regexp.QuoteMeta(is.Check) + `<`),
		} {
			if n := len(entry.FindAllString(map[string]string{"text": text, "md": md, "html": html}[name], -1)); n != 1 {
				t.Errorf("%s: %d entries for %s, want 1 naming %s", name, n, is.Check, is.Versions())
			}
		}
		for _, id := range is.Requirements {
			r, ok := run.Requirements[id]
			if !ok {
				continue
			}
			for name, out := range map[string]string{"text": text, "html": html} {
				if n := strings.Count(out, escapeFor(name, r.Summary)); n != 1 {
					t.Errorf("%s: the text of %s appears %d times, want once", name, id, n)
				}
			}
		}
	}

	// Every failure and warning proves itself.
	for _, c := range run.Checks {
		if c.Outcome != reports.Fail && c.Outcome != reports.Warn {
			continue
		}
		ev := reports.EvidenceOf(c)
		var sent, received bool
		for _, e := range ev.Events {
			sent = sent || e.Direction == reports.Sent
			received = received || e.Direction == reports.Received && e.Raw != ""
		}
		provoked := false
		for _, e := range c.Transcript {
			provoked = provoked || e.Direction == reports.Sent
		}
		switch {
		case len(ev.Events) == 0:
			t.Errorf("%s: no evidence at all (transcript of %d events)", c.Key(), len(c.Transcript))
		case !received && len(ev.Unanswered) == 0:
			t.Errorf("%s: the evidence holds neither what the target sent nor the request it did not answer", c.Key())
		case provoked && !sent:
			t.Errorf("%s: the evidence lacks the request that provoked the verdict", c.Key())
		}
	}

	if len(run.Peers) == 0 || run.Peers[0].Name != "mcp-conformance-test-server" || len(run.Peers[0].Capabilities) == 0 {
		t.Errorf("the report does not say who was tested: %+v", run.Peers)
	}
	for name, out := range map[string]string{"text": text, "md": md, "html": html} {
		if !strings.Contains(out, "mcp-conformance-test-server 1.0.0") {
			t.Errorf("the %s report does not name the implementation tested", name)
		}
	}
	if len(html) > serverHTMLBudget {
		t.Errorf("the HTML report is %d bytes, over its budget of %d", len(html), serverHTMLBudget)
	}
	t.Logf("HTML %d bytes, text %d, Markdown %d; %d issues, %d of them in several versions", len(html), len(text), len(md), len(issues), several)

	var sarif struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
			Properties map[string]any `json:"properties"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(read("mcpcheck-server.sarif")), &sarif); err != nil {
		t.Fatal(err)
	}
	if got := len(sarif.Runs[0].Results); got != len(broken) {
		t.Errorf("SARIF has %d results, want %d (one per broken check, whatever its versions)", got, len(broken))
	}
	for i, r := range sarif.Runs[0].Results {
		if len(r.Locations) == 0 || r.Locations[0].PhysicalLocation == nil || r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "server.json" || r.PartialFingerprints["mcpcheckIssue/v1"] == "" {
			t.Errorf("SARIF result %d has no physical location in server.json (--sarif-path) or no fingerprint: %+v", i, r)
		}
	}
	if sarif.Runs[0].Properties["verdict"] != "fail" {
		t.Errorf("SARIF verdict %v, want fail", sarif.Runs[0].Properties["verdict"])
	}
	var junit struct {
		Suites []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(read("mcpcheck-server.junit.xml")), &junit); err != nil || len(junit.Suites) < 2 || junit.Suites[0].Name != "mcpcheck/verdict" {
		t.Errorf("JUnit does not open with the verdict: %v %+v", err, junit.Suites)
	}
}

// escapeFor is s as the format writes it.
func escapeFor(format, s string) string {
	if format == "html" {
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
	}
	return s
}

// clientHTMLBudget and clientTextBudget bound the HTML and text reports of
// a client run of every version (issue 27).
const (
	clientHTMLBudget = 1 << 20
	clientTextBudget = 30 << 10
)

// clientRun judges the reference client in every version, once per test
// binary, writing the text, JSON and HTML reports; it returns the
// directory and the exit code.
func clientRun(t *testing.T) (string, int) {
	t.Helper()
	bin := mcpcheckBin(t)
	clientOnce.Do(func() {
		clientDir, clientErr = os.MkdirTemp("", "mcpcheck-client-run-")
		if clientErr != nil {
			return
		}
		clientCode, _, clientStderr = runBin(t, "client", "--command", shellQuote(bin)+" reference client --timeout 10s conformance", "--format", "text,json,html", "--out", clientDir)
	})
	if clientErr != nil {
		t.Fatal(clientErr)
	}
	return clientDir, clientCode
}

var (
	clientOnce   sync.Once
	clientDir    string
	clientCode   int
	clientStderr string
	clientErr    error
)

// TestClientRunReportsAreSmallAndNameTheClient (issue 27): a client run
// of every version writes an HTML report within 1 MB and a text report
// within 30 KB; its JSON report keeps each transcript the checks of one
// case share once (a client's case is judged by many checks), and reads
// back whole; the reports name the client tested by its clientInfo.
func TestClientRunReportsAreSmallAndNameTheClient(t *testing.T) {
	t.Parallel()
	dir, code := clientRun(t)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s", code, tail(clientStderr, 3000))
	}
	size := func(name string) int {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return int(st.Size())
	}
	html, text, js := size("mcpcheck-client.html"), size("mcpcheck-client.txt"), size("mcpcheck-client.json")
	if html > clientHTMLBudget {
		t.Errorf("the HTML report is %d bytes, over its budget of %d", html, clientHTMLBudget)
	}
	if text > clientTextBudget {
		t.Errorf("the text report is %d bytes, over its budget of %d", text, clientTextBudget)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "mcpcheck-client.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Checks []struct {
			Transcript    json.RawMessage `json:"transcript"`
			TranscriptRef *int            `json:"transcriptRef"`
		} `json:"checks"`
		Transcripts []json.RawMessage `json:"transcripts"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	inline, refs := map[string]int{}, 0
	for _, c := range doc.Checks {
		if len(c.Transcript) > 0 {
			inline[string(c.Transcript)]++
		}
		if c.TranscriptRef != nil {
			refs++
		}
	}
	for tr, n := range inline {
		if n > 1 {
			t.Errorf("%d checks carry the same transcript (%d bytes) inline, want it once in transcripts", n, len(tr))
		}
	}
	if refs == 0 || len(doc.Transcripts) == 0 {
		t.Errorf("no check refers to a shared transcript (%d shared): the test proves nothing", len(doc.Transcripts))
	}
	run := readRunJSON(t, filepath.Join(dir, "mcpcheck-client.json"))
	withTranscript := 0
	for _, c := range run.Checks {
		if len(c.Transcript) > 0 {
			withTranscript++
		}
	}
	if withTranscript < refs {
		t.Errorf("read back, %d checks have a transcript, but %d referred to one", withTranscript, refs)
	}
	if len(run.Peers) == 0 || run.Peers[0].Name != "mcpcheck-reference-client" || run.Peers[0].Negotiated == "" {
		t.Errorf("the report does not say which client was tested: %+v", run.Peers)
	}
	for _, name := range []string{"mcpcheck-client.txt", "mcpcheck-client.html"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "mcpcheck-reference-client 0.1.0") {
			t.Errorf("%s does not name the client tested", name)
		}
	}
	t.Logf("HTML %d bytes, text %d, JSON %d (%d checks refer to %d shared transcripts)", html, text, js, refs, len(doc.Transcripts))
}
