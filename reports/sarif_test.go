package reports

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestSARIFHasRequiredFields(t *testing.T) {
	run := sampleRun(t)
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, run, testOptions(t)); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						DefaultConfiguration struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ExecutionSuccessful        *bool `json:"executionSuccessful"`
				ToolExecutionNotifications []struct {
					Level string `json:"level"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations    []json.RawMessage `json:"locations"`
				Suppressions []struct {
					Kind          string `json:"kind"`
					Justification string `json:"justification"`
				} `json:"suppressions"`
				Properties struct {
					Outcome string `json:"outcome"`
				} `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatalf("the SARIF log does not parse: %v", err)
	}
	if log.Version != "2.1.0" || log.Schema == "" || len(log.Runs) != 1 {
		t.Fatalf("want version 2.1.0, a $schema and one run; got version %q schema %q runs %d", log.Version, log.Schema, len(log.Runs))
	}
	r := log.Runs[0]
	if r.Tool.Driver.Name == "" {
		t.Error("tool.driver.name is required")
	}
	// One rule per cited requirement, each described from the catalog.
	prepared, _ := Prepare(run, testOptions(t))
	cited := citedIDs(prepared)
	if len(r.Tool.Driver.Rules) != len(cited) {
		t.Errorf("%d rules, want one per cited requirement (%d)", len(r.Tool.Driver.Rules), len(cited))
	}
	for i, rule := range r.Tool.Driver.Rules {
		if rule.ID == "" || rule.ShortDescription.Text == "" {
			t.Errorf("rule %d needs an id and a shortDescription.text: %+v", i, rule)
		}
		if req, ok := prepared.Requirements[rule.ID]; ok && rule.ShortDescription.Text != req.Summary {
			t.Errorf("rule %s: shortDescription %q, want the catalog summary %q", rule.ID, rule.ShortDescription.Text, req.Summary)
		}
	}
	// Results: fail -> error, warn -> warning, nothing else.
	var wantResults int
	for _, c := range prepared.Checks {
		if c.Outcome == Fail || c.Outcome == Warn {
			wantResults++
		}
	}
	if len(r.Results) != wantResults {
		t.Errorf("%d results, want one per fail or warn check (%d)", len(r.Results), wantResults)
	}
	suppressed := 0
	for i, res := range r.Results {
		if res.RuleIndex < 0 || res.RuleIndex >= len(r.Tool.Driver.Rules) || r.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d does not point at rule %q", i, res.RuleIndex, res.RuleID)
		}
		want := map[string]string{"fail": "error", "warn": "warning"}[res.Properties.Outcome]
		if res.Level != want {
			t.Errorf("result %d: level %q for outcome %q, want %q", i, res.Level, res.Properties.Outcome, want)
		}
		if res.Message.Text == "" || len(res.Locations) == 0 {
			t.Errorf("result %d needs a message and a location", i)
		}
		if len(res.Suppressions) > 0 {
			suppressed++
			if res.Suppressions[0].Kind != "external" || res.Suppressions[0].Justification == "" {
				t.Errorf("result %d: a baselined result is an external suppression with a justification, got %+v", i, res.Suppressions)
			}
		}
	}
	if suppressed != 1 {
		t.Errorf("%d suppressed results, want the 1 baselined failure", suppressed)
	}
	// Harness errors are notifications and make the invocation unsuccessful.
	if len(r.Invocations) != 1 || r.Invocations[0].ExecutionSuccessful == nil || *r.Invocations[0].ExecutionSuccessful {
		t.Errorf("the run had harness errors: invocations[0].executionSuccessful must be false")
	} else if n := len(r.Invocations[0].ToolExecutionNotifications); n != 2 {
		t.Errorf("%d tool execution notifications, want one per harness error (2)", n)
	}
}
