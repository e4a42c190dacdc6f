package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// SARIF 2.1.0, the subset mcpcheck fills in.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      *sarifText     `json:"fullDescription,omitempty"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	HelpURI              string         `json:"helpUri,omitempty"`
	Help                 *sarifHelp     `json:"help,omitempty"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

// sarifHelp is a rule's help, which GitHub code scanning shows beside an
// alert and requires of every rule.
type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          map[string]any     `json:"properties"`
}

type sarifLocation struct {
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

// SARIFSchemaURI is the $schema WriteSARIF declares.
const SARIFSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// WriteSARIF writes the run as a SARIF 2.1.0 log with one run. The driver
// has one rule per requirement ID the run's checks cite (short description:
// the catalog summary; properties: level, area, source), plus a rule named
// after the check for a check that cites none. Each fail check is a result
// of level "error" and each warn check one of level "warning", under the
// rule of its first requirement (all of them listed in the result's
// properties); a baselined one carries an external suppression with the
// baseline's reason. Checks where the harness broke are tool execution
// notifications, not results, and make executionSuccessful false; so does a
// run that is no verdict on its target (Judgement.Unjudged: Run.Unjudged,
// harness problems, an interruption), with an error notification "not
// judged: reason" and the run property unjudged. Results
// have a logical location (version/transport/check) rather than a file: the
// target is a peer on the wire, not source code; uploaders that insist on a
// physical location (GitHub code scanning) need one added by the caller.
func WriteSARIF(w io.Writer, run *Run, opts Options) error {
	run, err := Prepare(run, opts)
	if err != nil {
		return err
	}
	driver := sarifDriver{Name: toolName(run), Version: run.Tool.Version, InformationURI: "https://github.com/mcpcheck/mcpcheck"}
	ruleIndex := map[string]int{}
	addRule := func(id string, fallback Check) int {
		if i, ok := ruleIndex[id]; ok {
			return i
		}
		rule := sarifRule{ID: id, DefaultConfiguration: sarifConfig{Level: "error"}}
		if r, ok := run.Requirements[id]; ok {
			rule.Name = ruleName(id)
			rule.ShortDescription = sarifText{Text: printable(r.Summary)}
			rule.FullDescription = &sarifText{Text: printable(fmt.Sprintf("%s (%s). Source: %s.", r.Summary, r.Level, r.Source()))}
			rule.DefaultConfiguration.Level = sarifLevel(r.Level.Advisory())
			rule.Properties = map[string]any{"level": string(r.Level), "area": r.Area, "source": r.Source()}
			rule.HelpURI = specPageURI(r)
			rule.Help = &sarifHelp{
				Text: printable(fmt.Sprintf("%s (%s, %s). Source: %s. Run 'mcpcheck spec show %s' for the requirement and its versions; the report's transcript shows what the target did.", r.Summary, r.Level, r.Area, r.Source(), id)),
				Markdown: fmt.Sprintf("**%s** (%s, area %s)\n\n%s\n\nSource: %s. `mcpcheck spec show %s` prints the requirement and its versions; the mcpcheck report holds what was expected, what the target did and the wire transcript.",
					md(id), md(string(r.Level)), md(r.Area), md(r.Summary), md(r.Source()), strings.ReplaceAll(id, "`", "")),
			}
		} else {
			rule.Name = ruleName(id)
			rule.ShortDescription = sarifText{Text: printable(orElse(fallback.Title, id))}
			rule.DefaultConfiguration.Level = sarifLevel(fallback.Level.Advisory())
			rule.Properties = map[string]any{"level": string(fallback.Level), "area": fallback.Area}
			rule.FullDescription = &sarifText{Text: printable(fmt.Sprintf("%s (a check whose requirement is not in this report's catalog extract).", orElse(fallback.Title, id)))}
			rule.Help = &sarifHelp{Text: printable(fmt.Sprintf("%s: %s. The mcpcheck report holds what was expected, what the target did and the wire transcript.", id, orElse(fallback.Title, "an mcpcheck check")))}
		}
		driver.Rules = append(driver.Rules, rule)
		ruleIndex[id] = len(driver.Rules) - 1
		return ruleIndex[id]
	}
	// Rules first, in ID order, so their indices do not depend on check order.
	for _, id := range citedIDs(run) {
		addRule(id, Check{})
	}
	inv := sarifInvocation{ExecutionSuccessful: true}
	why := Verdict(run).Unjudged
	if why != "" {
		inv.ExecutionSuccessful = false
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
			Level: "error", Message: sarifText{Text: printable("not judged: " + why)},
		})
	}
	results := []sarifResult{}
	for _, c := range run.Checks {
		switch c.Outcome {
		case Fail, Warn:
		case Error:
			inv.ExecutionSuccessful = false
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
				Level:   "error",
				Message: sarifText{Text: printable(fmt.Sprintf("%s: the harness failed: %s", c.Key(), orElse(c.Reason, "no reason recorded")))},
			})
			continue
		default:
			continue
		}
		ruleID := c.ID
		if len(c.Requirements) > 0 {
			ruleID = c.Requirements[0]
		}
		idx := addRule(ruleID, c)
		level := "error"
		if c.Outcome == Warn {
			level = "warning"
		}
		fqn := string(c.Version) + "/" + c.Transport + "/" + c.ID
		res := sarifResult{
			RuleID:    ruleID,
			RuleIndex: idx,
			Level:     level,
			Message:   sarifText{Text: printable(strings.TrimSpace(sarifMessage(c)))},
			Locations: []sarifLocation{{LogicalLocations: []sarifLogical{{Name: printable(c.ID), FullyQualifiedName: printable(fqn), Kind: "test"}}}},
			PartialFingerprints: map[string]string{
				"mcpcheckCheck/v1": printable(c.Key().String()),
			},
			Properties: map[string]any{
				"check":        printable(c.ID),
				"version":      printable(string(c.Version)),
				"transport":    printable(c.Transport),
				"area":         printable(c.Area),
				"outcome":      c.Outcome.String(),
				"requirements": nonNil(c.Requirements),
			},
		}
		if c.Baselined {
			res.Suppressions = []sarifSuppression{{Kind: "external", Justification: printable(orElse(c.BaselineReason, "listed in the baseline"))}}
		}
		results = append(results, res)
	}
	if driver.Rules == nil {
		driver.Rules = []sarifRule{}
	}
	log := sarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []sarifRun{{
		Tool:        sarifTool{Driver: driver},
		Invocations: []sarifInvocation{inv},
		Results:     results,
		Properties:  map[string]any{"target": printable(orElse(run.Target.Command, run.Target.URL)), "role": printable(orElse(run.Target.Role, "server")), "reportSchema": run.Schema},
	}}}
	if why != "" {
		log.Runs[0].Properties["unjudged"] = printable(why)
	}
	sarifSideEffects(log.Runs[0].Properties, run)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return fmt.Errorf("write SARIF report: %w", err)
	}
	return nil
}

// specPageURI is the address of the specification page a requirement comes
// from, in the newest version it is in force in ("" without a page).
func specPageURI(r Requirement) string {
	if r.Page == "" || strings.ContainsAny(r.Page, " ?#") {
		return ""
	}
	v := r.Until
	if v == "" {
		v = spec.Latest
	}
	return "https://modelcontextprotocol.io/specification/" + string(v) + "/" + r.Page
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return append([]string(nil), s...)
}

func sarifLevel(advisory bool) string {
	if advisory {
		return "warning"
	}
	return "error"
}

// ruleName turns "lifecycle.initialize.client-sends-initialize" into
// "LifecycleInitializeClientSendsInitialize", SARIF's PascalCase style.
func ruleName(id string) string {
	var b strings.Builder
	up := true
	for _, r := range id {
		switch {
		case r == '.' || r == '-' || r == '/' || r == '_':
			up = true
		case up && 'a' <= r && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
			up = false
		default:
			b.WriteRune(r)
			up = false
		}
	}
	return b.String()
}

func sarifMessage(c Check) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", c.Key(), orElse(c.Title, ""))
	if c.Expected != "" {
		fmt.Fprintf(&b, "\nExpected: %s", c.Expected)
	}
	if c.Actual != "" {
		fmt.Fprintf(&b, "\nActual: %s", c.Actual)
	}
	return b.String()
}
