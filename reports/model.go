package reports

import (
	"encoding/base64"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Schema is the value of Run.Schema for reports this package writes.
const Schema = "mcpcheck.report/v1"

// Run is the result of one mcpcheck run against one target: the checks it
// judged, optionally a fuzzing campaign, and the baseline it was held to.
//
// Durations are time.Duration in Go and integer nanoseconds in JSON (fields
// ending in "Ns").
type Run struct {
	// Schema names the report format; writers always write Schema.
	Schema string `json:"schema"`
	Tool   Tool   `json:"tool"`
	Target Target `json:"target"`
	// Started is when the run began; writers print it in UTC.
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNs"`
	// Versions are the protocol versions the run tested, oldest first.
	Versions []spec.Version `json:"versions"`
	// Transport is the transport the run used: "stdio", "streamable" or
	// "sse" (or "auto" as requested when the run could not tell).
	Transport string `json:"transport"`
	// LabelFilter is the label expression that selected the checks, if any.
	LabelFilter string `json:"labelFilter,omitempty"`
	// Selection says what else narrowed the checks a run selected, if
	// anything: the go test -run pattern of a scenarios/mcpchecktest run
	// ("go test -run PATTERN"). Like a label filter, it makes baseline
	// entries about checks the run left out out of scope (see Apply).
	Selection string `json:"selection,omitempty"`
	// Shard is "K/N" when the run was shard K of a suite split N ways
	// (mcpcheck server --shard): it holds only that shard's active checks.
	// A merged report (MergeRuns) has none.
	Shard string `json:"shard,omitempty"`
	// ToolPolicy says which of a server's tools the run called and with
	// which arguments (mcpcheck server --call-tools, --tool-args); nil in
	// reports of runs that called none (client runs, fuzzing).
	ToolPolicy *ToolPolicy `json:"toolPolicy,omitempty"`
	Checks     []Check     `json:"checks"`
	// Fuzz summarises a fuzzing campaign, when the run included one.
	Fuzz *FuzzSummary `json:"fuzz,omitempty"`
	// Baseline says which baseline file the run was held to (see Apply).
	Baseline *BaselineInfo `json:"baseline,omitempty"`
	// Requirements is a snapshot of the catalog records the checks cite,
	// keyed by ID, so a report stays readable when the catalog moves on.
	// Writers fill in missing entries from Options.Catalog.
	Requirements map[string]Requirement `json:"requirements,omitempty"`
	// Problems are faults of the harness itself found during the run (a
	// check that cited an unknown requirement, recorded no outcome, or
	// panicked). A run with problems is not trustworthy; the CLI exits 3.
	Problems []string `json:"problems,omitempty"`
	// Interrupted, when set, says why the run ended early (a signal, its
	// deadline): the checks it did not reach are untestable, "not run".
	Interrupted string `json:"interrupted,omitempty"`
	// Unjudged, when set, says why the run is no verdict on the target
	// whatever its checks say: nothing complete was judged (the target
	// never completed initialization, or a fuzz campaign's handshake;
	// nothing was judged in a version asked for; shards of a merged run
	// are missing). No writer calls such a run passed; the CLI exits 3.
	Unjudged string `json:"unjudged,omitempty"`
	// MissingShards lists the shards "K/N" a merged run lacks (see
	// MergeRuns): their active checks are not in it.
	MissingShards []string `json:"missingShards,omitempty"`
	// Silence says how long the checks watched for what must not arrive
	// (server suite runs).
	Silence *Silence `json:"silence,omitempty"`
	// SideEffects says what the target did to the machine besides
	// speaking MCP (see SideEffects); nil when the run did not look.
	SideEffects *SideEffects `json:"sideEffects,omitempty"`
	// Unspoken are the versions the server answered that it does not
	// speak (it negotiated another, refused, or does not list them):
	// their few checks that still run judge only how it says so, and
	// their headline is "unspoken", never a pass.
	Unspoken []spec.Version `json:"unspoken,omitempty"`
	// Startup says how long the target's fresh connections took to say
	// anything, and the allowance they had (server suite runs).
	Startup *Startup `json:"startup,omitempty"`
	// Peers say who was tested: per protocol version, the implementation
	// the target named, the version it negotiated and the capabilities
	// it declared (see PeerInfo).
	Peers []PeerInfo `json:"peers,omitempty"`
}

// Silence describes a run's silence windows: how long a check watched for
// something that must not arrive once the exchange it is about had
// settled (no answer after a cancellation, no progress after the
// response, nothing on a stream). A stray message that comes later than
// the window goes unseen, so the window is part of what a verdict means.
type Silence struct {
	// Window is the configured window (mcpcheck server --quiet).
	Window time.Duration `json:"windowNs"`
	// Longest is the longest window a check watched: windows stretch to
	// a few times the target's typical answer time when that is longer.
	Longest time.Duration `json:"longestNs"`
	// Typical is the longest typical answer time of the target (the 90th
	// percentile of its recent answers) that a window was stretched to;
	// 0 when none was.
	Typical time.Duration `json:"typicalNs,omitempty"`
	// Windows is how many windows the checks watched.
	Windows int `json:"windows"`
}

// String says it for a person: "250ms (31 windows)", or with the
// stretch "250ms, stretched up to 1.2s to the target's answer times
// (typically 400ms) (31 windows)".
func (s *Silence) String() string {
	if s == nil {
		return ""
	}
	out := humanDuration(s.Window)
	if s.Longest > s.Window {
		out += ", stretched up to " + humanDuration(s.Longest) + " to the target's answer times"
		if s.Typical > 0 {
			out += " (typically " + humanDuration(s.Typical) + ")"
		}
	}
	return fmt.Sprintf("%s (%d windows)", out, s.Windows)
}

// Tool names the program that produced the run.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target kinds.
const (
	TargetStdio = "stdio" // a process spoken to over stdin/stdout
	TargetHTTP  = "http"  // a streamable HTTP endpoint
	TargetSSE   = "sse"   // a 2024-11-05 HTTP+SSE endpoint
)

// Target describes what was tested. The caller redacts it; writers redact
// it again.
type Target struct {
	// Kind is TargetStdio, TargetHTTP or TargetSSE.
	Kind string `json:"kind"`
	// Command is the command line of a stdio target, as the user gave it.
	Command string `json:"command,omitempty"`
	// URL is the endpoint of an HTTP or SSE target.
	URL string `json:"url,omitempty"`
	// Role is "server" when mcpcheck judged a server, "client" when it
	// played the server to judge a client.
	Role string `json:"role,omitempty"`
	// HeaderNames are the names of headers the user added (--header); their
	// values are never stored, and are redacted wherever they appear.
	HeaderNames []string `json:"headerNames,omitempty"`
	// StderrTail is the end of what a stdio target wrote to stderr, kept
	// bounded by the harness.
	StderrTail string `json:"stderrTail,omitempty"`
	// ExitStatus says how a stdio target's process ended, when it did.
	ExitStatus string `json:"exitStatus,omitempty"`
}

// Check is one judged check for one protocol version and transport.
// (ID, Version, Transport) identifies it within a run.
type Check struct {
	// ID is the check's stable name, such as
	// "lifecycle/initialize/echoes-supported-version".
	ID    string `json:"id"`
	Title string `json:"title"`
	// Requirements are the catalog IDs the check holds the target to.
	Requirements []string `json:"requirements"`
	// Violated, on a fail or warn, names the requirements the target was
	// found to break when the check could tell them apart; empty means
	// all of Requirements. On an error it names the requirements another
	// shard found broken when a merged report (MergeRuns) kept the error;
	// it is usually empty there. BrokenRequirements resolves it.
	Violated []string `json:"violated,omitempty"`
	// Level is the strongest level among the requirements.
	Level     catalog.Level `json:"level"`
	Area      string        `json:"area"`
	Version   spec.Version  `json:"version"`
	Transport string        `json:"transport,omitempty"`
	Outcome   Outcome       `json:"outcome"`
	// Expected and Actual say what the target was held to and what it did.
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	// Reason says why a check is n/a, untestable or an error.
	Reason string `json:"reason,omitempty"`
	// Retried, set when the verdict is from a re-run, says what the first
	// attempt ended with: a check whose first verdict rested on a wait
	// that went unanswered is run again alone, with fresh sessions and
	// the full timeout, before that verdict is reported.
	Retried  string        `json:"retried,omitempty"`
	Duration time.Duration `json:"durationNs"`
	// JudgedAt is when, since the run started, the check recorded the
	// first violation its verdict rests on (0 when not known): what the
	// transcript holds after it (closing the connection, the process's
	// exit) is not evidence, and reports leave it out of the excerpt
	// that proves the verdict (see Evidence).
	JudgedAt   time.Duration `json:"judgedAtNs,omitempty"`
	Transcript []WireEvent   `json:"transcript,omitempty"`
	// Baselined is set by Apply when a broken check is expected by the
	// baseline: every requirement it broke is one a matching entry names.
	// BaselineReason is the reason of the entries that expect it, joined
	// with "; ".
	Baselined      bool   `json:"baselined,omitempty"`
	BaselineReason string `json:"baselineReason,omitempty"`
	// Unexpected is set by Apply on a broken check that baseline entries
	// match but do not cover: the requirements it broke that none of them
	// names. The check is then not Baselined: it fails the run as a new
	// failure even though an older failure of the same check is expected.
	Unexpected []string `json:"unexpected,omitempty"`
}

// Key identifies the check within a run.
func (c Check) Key() CheckKey { return CheckKey{ID: c.ID, Version: c.Version, Transport: c.Transport} }

// Broken reports whether the outcome is fail, warn or error. A check whose
// outcome was never set counts as an error of the harness.
func (c Check) Broken() bool {
	return c.Outcome == Fail || c.Outcome == Warn || c.Outcome == Error || !c.Outcome.Valid()
}

// BrokenRequirements returns the requirement IDs the check was found to
// break, sorted and without repeats: on a fail or warn its Violated, or all
// of its Requirements when Violated is empty (the check could not tell
// them apart); on an error or an unset outcome its Violated (usually none:
// the harness broke before it could judge); none on the other outcomes.
// Baselines (Apply), diffs (Compare) and matrices compare broken checks
// requirement by requirement through it, so a check that already fails
// cannot hide a second requirement it breaks.
func (c Check) BrokenRequirements() []string {
	var ids []string
	switch {
	case !c.Broken():
		return nil
	case (c.Outcome == Fail || c.Outcome == Warn) && len(c.Violated) == 0:
		ids = append(ids, c.Requirements...)
	default:
		ids = append(ids, c.Violated...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// RequirementKey identifies one requirement of one check within a run:
// the unit in which baselines, diffs and matrices compare broken checks.
// In JSON its fields are those of CheckKey plus "requirement".
type RequirementKey struct {
	CheckKey
	// Requirement is a catalog requirement ID; empty for a broken check
	// that broke no requirement it could name (an error).
	Requirement string `json:"requirement,omitempty"`
}

// String is "ID [version transport] requirement REQ", or the CheckKey's
// string when Requirement is empty.
func (k RequirementKey) String() string {
	if k.Requirement == "" {
		return k.CheckKey.String()
	}
	return k.CheckKey.String() + " requirement " + k.Requirement
}

// CheckKey identifies a check within a run.
type CheckKey struct {
	ID        string       `json:"id"`
	Version   spec.Version `json:"version,omitempty"`
	Transport string       `json:"transport,omitempty"`
}

// String is "ID [version transport]".
func (k CheckKey) String() string {
	s := k.ID
	switch {
	case k.Version != "" && k.Transport != "":
		s += " [" + string(k.Version) + " " + k.Transport + "]"
	case k.Version != "":
		s += " [" + string(k.Version) + "]"
	case k.Transport != "":
		s += " [" + k.Transport + "]"
	}
	return s
}

// Direction says which way a wire event went.
type Direction string

// The directions.
const (
	Sent     Direction = "sent"     // from mcpcheck to the target
	Received Direction = "received" // from the target to mcpcheck
	Note     Direction = "note"     // an observation of the harness (a timeout, an exit)
)

// WireEvent is one message, HTTP exchange or observation in a transcript.
type WireEvent struct {
	// Offset is the time since the run started.
	Offset    time.Duration `json:"offsetNs"`
	Direction Direction     `json:"direction"`
	// Raw holds the bytes on the wire as text. When they are not valid
	// UTF-8, Raw holds their standard base64 encoding and Base64 is set;
	// use RawBytes to build an event and Bytes to read one.
	Raw    string    `json:"raw,omitempty"`
	Base64 bool      `json:"base64,omitempty"`
	HTTP   *HTTPInfo `json:"http,omitempty"`
	// Stream names the HTTP response or SSE stream the event travelled on,
	// when the transport has more than one.
	Stream string `json:"stream,omitempty"`
	// Conn numbers the connection the event travelled on (1, 2, ... within
	// a version's run, or a client case's stdio launches), 0 when not
	// known: one transcript may hold several connections' traffic, and
	// what one process answered is never read as another's answer.
	Conn int    `json:"conn,omitempty"`
	Note string `json:"note,omitempty"`
}

// HTTPInfo is the HTTP side of a wire event. Status is 0 on a request.
type HTTPInfo struct {
	Method  string              `json:"method,omitempty"`
	URL     string              `json:"url,omitempty"`
	Status  int                 `json:"status,omitempty"`
	Headers map[string][]string `json:"headers,omitempty"`
}

// RawBytes returns the Raw and Base64 fields for b: b as text when it is
// valid UTF-8, else its base64 encoding.
func RawBytes(b []byte) (raw string, isBase64 bool) {
	if utf8.Valid(b) {
		return string(b), false
	}
	return base64.StdEncoding.EncodeToString(b), true
}

// Bytes returns the event's bytes, decoding Raw when Base64 is set.
func (e WireEvent) Bytes() ([]byte, error) {
	if !e.Base64 {
		return []byte(e.Raw), nil
	}
	b, err := base64.StdEncoding.DecodeString(e.Raw)
	if err != nil {
		return nil, fmt.Errorf("wire event at %v: raw is flagged base64 but does not decode: %w", e.Offset, err)
	}
	return b, nil
}

// FuzzSummary is the outcome of a fuzzing campaign.
type FuzzSummary struct {
	Duration time.Duration `json:"durationNs"`
	Seed     int64         `json:"seed"`
	Execs    int64         `json:"execs"`
	// Samples are throughput measurements over the campaign, in time order.
	Samples  []ThroughputSample `json:"samples,omitempty"`
	Findings []Finding          `json:"findings,omitempty"`
}

// ThroughputSample is the fuzzing rate measured at Offset into the campaign.
type ThroughputSample struct {
	Offset      time.Duration `json:"offsetNs"`
	ExecsPerSec float64       `json:"execsPerSec"`
}

// Finding kinds.
const (
	FindingCrash     = "crash"     // the target exited or dropped the connection
	FindingHang      = "hang"      // the target stopped answering in time
	FindingViolation = "violation" // a conformance check failed on a fuzzed input
)

// Finding is one problem a fuzzing campaign found, with how to reproduce it.
type Finding struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Requirements and Level are set when a conformance oracle fired.
	Requirements []string      `json:"requirements,omitempty"`
	Level        catalog.Level `json:"level,omitempty"`
	Message      string        `json:"message"`
	// Reproducer is a command that replays the finding
	// ("mcpcheck replay findings/x.jsonl --stdio ...").
	Reproducer string `json:"reproducer"`
	// Input is where the minimized input was saved.
	Input      string      `json:"input,omitempty"`
	Transcript []WireEvent `json:"transcript,omitempty"`
}

// BaselineInfo records the baseline a run was held to, set by Apply.
type BaselineInfo struct {
	// Source names the baseline file.
	Source  string  `json:"source"`
	Entries int     `json:"entries"`
	Matched int     `json:"matched"`
	Stale   []Stale `json:"stale,omitempty"`
	// OutOfScope counts the entries about checks the run did not select
	// (another version or transport, a label filter, another shard): they
	// are neither matched nor stale.
	OutOfScope int `json:"outOfScope,omitempty"`
	// Legacy are the entries without requirements that covered a broken
	// check (see BaselineEntry.Requirements): each could hide a new
	// requirement the check breaks, and should be rewritten.
	Legacy []BaselineEntry `json:"legacy,omitempty"`
	// Renamed are the checks the baseline names by an old ID (once each):
	// its entries still cover them, and should be rewritten with the new
	// ID.
	Renamed []RenamedCheck `json:"renamed,omitempty"`
}

// RenamedCheck is a check named by an ID it carried before it was renamed
// (Old) and the ID it carries now (New).
type RenamedCheck struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// String is the hint the reports print: what to rename in the baseline.
func (r RenamedCheck) String() string {
	return fmt.Sprintf("check %s was renamed %s: the entries naming the old ID still match it; write the new ID in the baseline", r.Old, r.New)
}

// Requirement is a snapshot of a catalog record, as cited by checks.
type Requirement struct {
	ID      string        `json:"id"`
	Level   catalog.Level `json:"level"`
	Area    string        `json:"area"`
	Summary string        `json:"summary"`
	Page    string        `json:"page"`
	Section string        `json:"section"`
	Since   spec.Version  `json:"since"`
	Until   spec.Version  `json:"until,omitempty"`
}

// Source is "page § section (since[..until])", for example
// "basic/lifecycle § Initialization (2024-11-05..)".
func (r Requirement) Source() string {
	return fmt.Sprintf("%s § %s (%s..%s)", r.Page, r.Section, r.Since, r.Until)
}

// RequirementOf snapshots a catalog record.
func RequirementOf(r catalog.Record) Requirement {
	return Requirement{ID: r.ID, Level: r.Level, Area: r.Area, Summary: r.Summary, Page: r.Page, Section: r.Section, Since: r.Since, Until: r.Until}
}
