package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sideEffectsRun is the sample run with side effects: a daemon, a DNS
// query, a file written outside the sandbox, files in the sandbox, and a
// secret on a spawned command line.
func sideEffectsRun(t *testing.T) *Run {
	run := sampleRun(t)
	run.SideEffects = &SideEffects{
		Observed: true, How: "sampled /proc every 100ms (40 samples)", TargetProcesses: 152,
		Sandbox: &SandboxInfo{Dir: "/tmp/mcpcheck-sandbox-1", Cwd: "/tmp/mcpcheck-sandbox-1/work", Home: "/tmp/mcpcheck-sandbox-1/home", Tmp: "/tmp/mcpcheck-sandbox-1/tmp",
			Absolutized: []string{"build/index.js -> /src/app/build/index.js"}},
		Processes: []SpawnedProcess{{Command: "node daemon.js --token s3cr3t-t0ken", Count: 15, Pids: []int{41, 42}, LeftSession: 15, LeftGroup: 15, OutlivedParent: 15, OutlivedTarget: 15, EndedByUs: 15}},
		Network: []NetworkUse{
			{Proto: "udp", Remote: "10.0.0.2:53", DNS: true, Command: "node server.js", Count: 3},
			{Proto: "tcp", Local: "127.0.0.1:8080", Listening: true, Loopback: true, Command: "node server.js", Count: 1},
		},
		FilesWritten: []FileWrite{{Path: "/home/u/.npm/logs/x.log", Command: "node server.js", Count: 2}},
		SandboxFiles: &SandboxFiles{Count: 3, Bytes: 120, Paths: []string{"home/.config/app/conf.json", "tmp/x", "work/out.txt"}},
		Notes:        []string{"a note <script>alert(1)</script>"},
	}
	return run
}

func TestSideEffectsInEveryWriter(t *testing.T) {
	run := sideEffectsRun(t)
	opts := testOptions(t)
	for _, f := range []string{"text", "md", "html", "junit", "sarif", "json"} {
		format, err := LookupFormat(f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := format.Write(&buf, run, opts); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out := buf.String()
		for _, w := range []string{"daemon.js", "10.0.0.2:53", "/home/u/.npm/logs/x.log", "home/.config/app/conf.json"} {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the report does not show %q", f, w)
			}
		}
		if f != "json" && f != "sarif" && !strings.Contains(out, "15 processes spawned") {
			t.Errorf("%s: no summary of the side effects", f)
		}
		if strings.Contains(out, "s3cr3t-t0ken") {
			t.Errorf("%s: a secret on a spawned command line reached the report", f)
		}
		if (f == "html" || f == "md") && strings.Contains(out, "<script>alert") {
			t.Errorf("%s: text from the target reached the report unescaped", f)
		}
		switch f {
		case "junit":
			var doc struct {
				Suites []struct {
					Name      string `xml:"name,attr"`
					Tests     int    `xml:"tests,attr"`
					SystemOut string `xml:"system-out"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("junit: %v", err)
			}
			last := doc.Suites[len(doc.Suites)-1]
			if last.Name != "mcpcheck/side-effects" || last.Tests != 0 || !strings.Contains(last.SystemOut, "Side effects") {
				t.Errorf("junit: the side effects suite = %+v", last)
			}
		case "sarif":
			var log struct {
				Runs []struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(buf.Bytes(), &log); err != nil || log.Runs[0].Properties["sideEffects"] == nil {
				t.Errorf("sarif: no sideEffects run property (%v)", err)
			}
		case "json":
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if err := compileReportSchema(t).Validate(inst); err != nil {
				t.Errorf("json: a report with side effects does not validate against the schema: %v", err)
			}
			var back Run
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.SideEffects == nil || back.SideEffects.Processes[0].EndedByUs != 15 {
				t.Errorf("json: the side effects do not round-trip: %v %+v", err, back.SideEffects)
			}
		}
	}
	if run.SideEffects.Processes[0].Command != "node daemon.js --token s3cr3t-t0ken" {
		t.Error("the writers modified the run's side effects")
	}
}

func TestSideEffectsSaySoWhenNothingOrNothingObserved(t *testing.T) {
	for _, tc := range []struct {
		fx   *SideEffects
		want string
	}{
		{&SideEffects{Observed: true, SandboxFiles: &SandboxFiles{}}, "none seen"},
		{&SideEffects{NotObserved: "HTTP target: its processes are not mcpcheck's to watch"}, "not observed (HTTP target"},
		{&SideEffects{NotObserved: "not Linux", SandboxFiles: &SandboxFiles{Count: 1, Paths: []string{"work/a"}}}, "processes and network not observed (not Linux)"},
	} {
		run := sampleRun(t)
		run.SideEffects = tc.fx
		for _, f := range []string{"text", "md", "html", "junit"} {
			format, _ := LookupFormat(f)
			var buf bytes.Buffer
			if err := format.Write(&buf, run, testOptions(t)); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), tc.want) {
				t.Errorf("%s: the report of %+v does not say %q", f, tc.fx, tc.want)
			}
		}
	}
	// A run that did not look has no section.
	var buf bytes.Buffer
	if err := WriteText(&buf, sampleRun(t), testOptions(t)); err != nil || strings.Contains(buf.String(), "Side effects") {
		t.Errorf("a run without side effects got a section: %v", err)
	}
}
