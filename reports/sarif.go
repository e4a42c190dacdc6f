package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/spec"
)

// sarifLog is a SARIF 2.1.0 log: the subset mcpcheck fills in.
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
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
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
// baseline's reason. A check broken the same way in several versions and
// transports is one result (see Issues) that names them all, in its
// message and in one logical location each (version/transport/check);
// its partial fingerprint (mcpcheckIssue/v1: check, broken requirements,
// outcome) does not depend on the versions, so an alert tracks the same
// problem across runs. Every result is located in one file (see
// SARIFLocation, Options.SARIFPath), line 1: the target is a peer on the
// wire, not source code, but GitHub code scanning shows no alert without
// a physical location. Checks where the harness broke are tool execution
// notifications, not results, and make executionSuccessful false; so does a
// run that is no verdict on its target (Judgement.Unjudged: Run.Unjudged,
// harness problems, an interruption), with an error notification "not
// judged: reason" and the run property unjudged. The run properties say
// its verdict (see RunVerdict).
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
	for _, c := range run.Checks {
		if c.Outcome == Error || !c.Outcome.Valid() {
			inv.ExecutionSuccessful = false
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
				Level:   "error",
				Message: sarifText{Text: printable(fmt.Sprintf("%s: the harness failed: %s", c.Key(), tidy(orElse(c.Reason, "no reason recorded"))))},
			})
		}
	}
	where := SARIFLocation(run, opts)
	results := []sarifResult{}
	for _, is := range Issues(run) {
		if is.Outcome != Fail && is.Outcome != Warn {
			continue
		}
		c := run.Checks[is.Checks[0]]
		ruleID := c.ID
		if len(is.Requirements) > 0 {
			ruleID = is.Requirements[0]
		} else if len(c.Requirements) > 0 {
			ruleID = c.Requirements[0]
		}
		idx := addRule(ruleID, c)
		level := "error"
		if is.Outcome == Warn {
			level = "warning"
		}
		var logical []sarifLogical
		var versions, transports []string
		for _, k := range is.Where {
			fqn := string(k.Version) + "/" + k.Transport + "/" + k.ID
			logical = append(logical, sarifLogical{Name: printable(k.ID), FullyQualifiedName: printable(fqn), Kind: "test"})
			versions = append(versions, printable(string(k.Version)))
			if !slices.Contains(transports, k.Transport) {
				transports = append(transports, printable(k.Transport))
			}
		}
		res := sarifResult{
			RuleID:    ruleID,
			RuleIndex: idx,
			Level:     level,
			Message:   sarifText{Text: printable(strings.TrimSpace(sarifMessage(c, is)))},
			Locations: []sarifLocation{{
				PhysicalLocation: &sarifPhysical{ArtifactLocation: sarifArtifact{URI: where}, Region: sarifRegion{StartLine: 1}},
				LogicalLocations: logical,
			}},
			PartialFingerprints: map[string]string{
				"mcpcheckIssue/v1": printable(is.Check + " " + strings.Join(is.Requirements, ",") + " " + is.Outcome.String()),
			},
			Properties: map[string]any{
				"check":        printable(c.ID),
				"versions":     versions,
				"transports":   transports,
				"area":         printable(c.Area),
				"outcome":      is.Outcome.String(),
				"requirements": nonNil(c.Requirements),
				"broken":       nonNil(is.Requirements),
			},
		}
		if is.Baselined {
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
	j, word := verdictOf(run, opts)
	log.Runs[0].Properties["verdict"] = string(word)
	log.Runs[0].Properties["verdictSentence"] = printable(tidy(j.Sentence(opts.Strict)))
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

// sarifMessage says what broke where: the check and the versions, its
// title, expected versus actual and the evidence of the first version.
func sarifMessage(c Check, is Issue) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s: %s", is.Check, is.Versions(), orElse(c.Title, ""))
	if c.Expected != "" {
		fmt.Fprintf(&b, "\nExpected: %s", tidy(c.Expected))
	}
	if c.Actual != "" {
		fmt.Fprintf(&b, "\nActual: %s", clipLines(tidy(c.Actual), textLines, textLineRunes))
	}
	if ev := EvidenceOf(c); len(ev.Events) > 0 {
		fmt.Fprintf(&b, "\n%s:", evidenceHead(c.Key(), ev))
		for _, l := range evidenceLines(ev) {
			b.WriteString("\n  " + l)
		}
	}
	return b.String()
}

// SARIFLocation is the file SARIF results are located in: opts.SARIFPath,
// else the first argument of the target's command (a stdio server, a
// client) that names a relative file ("node build/index.js" gives
// build/index.js), else "README.md", which GitHub code scanning finds in
// most repositories.
func SARIFLocation(run *Run, opts Options) string {
	if p := strings.TrimSpace(opts.SARIFPath); p != "" {
		return printable(strings.TrimPrefix(filepath.ToSlash(p), "./"))
	}
	if fields := strings.Fields(run.Target.Command); len(fields) > 1 {
		for _, a := range fields[1:] {
			a = strings.Trim(a, `"'`)
			if strings.HasPrefix(a, "-") || filepath.IsAbs(a) || strings.Contains(a, "://") || strings.Contains(a, "..") {
				continue
			}
			if base := filepath.Base(a); strings.Contains(base, ".") && !strings.HasPrefix(base, ".") {
				return printable(strings.TrimPrefix(filepath.ToSlash(a), "./"))
			}
		}
	}
	return "README.md"
}
