package reports

import (
	"fmt"
	"strings"
)

// SideEffects is what a run's target did to the machine besides speaking
// MCP: the processes it spawned, the network it used, the files it held
// open for writing outside mcpcheck's sandbox and the files it left in the
// sandbox. mcpcheck samples them from /proc while the run lasts (Linux,
// stdio targets): what lived and ended between two samples goes unseen, so
// an empty list means none seen, not none done.
type SideEffects struct {
	// Observed says the run watched its target's processes. It is false
	// for an HTTP target (its processes are not mcpcheck's) and where
	// /proc cannot be read; NotObserved then says why.
	Observed    bool   `json:"observed"`
	NotObserved string `json:"notObserved,omitempty"`
	// How says how they were observed ("sampled /proc every 100ms, 52
	// samples").
	How string `json:"how,omitempty"`
	// Sandbox is where the target's processes ran; nil when they did not.
	Sandbox *SandboxInfo `json:"sandbox,omitempty"`
	// TargetProcesses is how many processes mcpcheck started (one per
	// session of a stdio target); they are not listed.
	TargetProcesses int `json:"targetProcesses,omitempty"`
	// Processes are the processes the target's processes spawned, one
	// entry per command line; MoreProcesses counts the processes of the
	// command lines left out.
	Processes     []SpawnedProcess `json:"processes,omitempty"`
	MoreProcesses int              `json:"moreProcesses,omitempty"`
	// Network is the sockets of the target's processes, one entry per
	// address; MoreNetwork counts those left out.
	Network     []NetworkUse `json:"network,omitempty"`
	MoreNetwork int          `json:"moreNetwork,omitempty"`
	// FilesWritten are regular files outside the sandbox that the
	// target's processes held open for writing; MoreFilesWritten counts
	// those left out.
	FilesWritten     []FileWrite `json:"filesWritten,omitempty"`
	MoreFilesWritten int         `json:"moreFilesWritten,omitempty"`
	// SandboxFiles are what the run created or changed in the sandbox.
	SandboxFiles *SandboxFiles `json:"sandboxFiles,omitempty"`
	// Notes say what else the observer saw or could not do (a bound it
	// reached, a process it could not end).
	Notes []string `json:"notes,omitempty"`
}

// SandboxInfo describes the sandbox a run's stdio target ran in.
type SandboxInfo struct {
	// Dir is the sandbox directory; Kept says it was left in place
	// (--keep-sandbox), else it was removed at the end of the run.
	Dir  string `json:"dir"`
	Kept bool   `json:"kept,omitempty"`
	// Cwd, Home and Tmp are the working directory, HOME and TMPDIR the
	// target's processes got; KeepHome says HOME, TMPDIR and XDG_* were
	// passed as given (--keep-home).
	Cwd      string `json:"cwd"`
	Home     string `json:"home,omitempty"`
	Tmp      string `json:"tmp,omitempty"`
	KeepHome bool   `json:"keepHome,omitempty"`
	// Absolutized lists the relative command and arguments that named
	// files of the directory mcpcheck was started in, made absolute so
	// that they still do in the sandbox ("build/index.js -> /src/x/build/index.js").
	Absolutized []string `json:"absolutized,omitempty"`
	// EarlyExits counts target processes that ended on their own with a
	// failure before mcpcheck stopped them; Hint then says what the
	// sandbox changed for them and how to opt out.
	EarlyExits int    `json:"earlyExits,omitempty"`
	Hint       string `json:"hint,omitempty"`
}

// SpawnedProcess is one command line the target's processes ran, with how
// many processes ran it and what they did.
type SpawnedProcess struct {
	Command string `json:"command"`
	// Count is how many processes ran it; Pids are the first few.
	Count int   `json:"count"`
	Pids  []int `json:"pids,omitempty"`
	// LeftGroup and LeftSession count those that left the process group
	// or the session of the target process they came from (mcpcheck stops
	// a target by its group).
	LeftGroup   int `json:"leftGroup,omitempty"`
	LeftSession int `json:"leftSession,omitempty"`
	// OutlivedParent counts those still running when their parent had
	// ended; OutlivedTarget those still running when mcpcheck had stopped
	// their target process; OutlivedRun those still running at the end of
	// the run.
	OutlivedParent int `json:"outlivedParent,omitempty"`
	OutlivedTarget int `json:"outlivedTarget,omitempty"`
	OutlivedRun    int `json:"outlivedRun,omitempty"`
	// EndedByUs counts those mcpcheck ended (SIGTERM, then SIGKILL).
	EndedByUs int `json:"endedByUs,omitempty"`
}

// NetworkUse is one socket address the target's processes used.
type NetworkUse struct {
	// Proto is tcp, tcp6, udp, udp6 or unix.
	Proto string `json:"proto"`
	// Remote is the peer of a connection; Local the address of a
	// listening socket (for unix sockets, the path).
	Remote string `json:"remote,omitempty"`
	Local  string `json:"local,omitempty"`
	// Listening: a listening (or, for UDP, bound and unconnected) socket.
	Listening bool `json:"listening,omitempty"`
	// Loopback: the address is on the loopback interface; DNS: the peer's
	// port is 53.
	Loopback bool `json:"loopback,omitempty"`
	DNS      bool `json:"dns,omitempty"`
	// Command is the first process seen with the socket; Count how many
	// processes were.
	Command string `json:"command,omitempty"`
	Count   int    `json:"count"`
}

// FileWrite is one regular file outside the sandbox that the target's
// processes held open for writing.
type FileWrite struct {
	Path    string `json:"path"`
	Command string `json:"command,omitempty"`
	Count   int    `json:"count"`
}

// SandboxFiles are the files a run created or changed in its sandbox,
// found by walking it at the end (bounded).
type SandboxFiles struct {
	// Count and Bytes are the entries (files, directories, links) and the
	// bytes of the regular files among them.
	Count int   `json:"count"`
	Bytes int64 `json:"bytes"`
	// Paths are the first entries, relative to the sandbox directory
	// (work/, home/ and tmp/ hold the working directory, HOME and
	// TMPDIR); a directory ends in "/".
	Paths []string `json:"paths,omitempty"`
	// Truncated says the walk stopped at its bound: there were more.
	Truncated bool `json:"truncated,omitempty"`
}

// None reports whether nothing was seen: no spawned process, no socket,
// no file written outside or inside the sandbox.
func (s *SideEffects) None() bool {
	return s != nil && len(s.Processes) == 0 && s.MoreProcesses == 0 && len(s.Network) == 0 && s.MoreNetwork == 0 &&
		len(s.FilesWritten) == 0 && s.MoreFilesWritten == 0 && (s.SandboxFiles == nil || s.SandboxFiles.Count == 0)
}

// Summary says it in one line: "not observed (HTTP target ...)", "none
// seen", or the counts of what was seen.
func (s *SideEffects) Summary() string {
	if s == nil {
		return ""
	}
	if !s.Observed && s.NotObserved != "" && s.None() {
		return "not observed (" + s.NotObserved + ")"
	}
	if s.None() {
		return "none seen"
	}
	var parts []string
	if n := s.processCount(); n > 0 {
		p := plural(n, "process spawned", "processes spawned")
		var left, ended int
		for _, sp := range s.Processes {
			left += min(sp.OutlivedTarget+sp.OutlivedRun, sp.Count)
			ended += sp.EndedByUs
		}
		if left > 0 {
			p += fmt.Sprintf(" (%d outlived their target process or the run; %d ended by mcpcheck)", left, ended)
		}
		parts = append(parts, p)
	}
	if n := len(s.Network) + s.MoreNetwork; n > 0 {
		remote := 0
		for _, u := range s.Network {
			if !u.Loopback && u.Remote != "" && u.Proto != "unix" {
				remote++
			}
		}
		p := plural(n, "socket address", "socket addresses")
		if remote > 0 {
			p += fmt.Sprintf(" (%d not on loopback)", remote)
		}
		parts = append(parts, p)
	}
	if n := len(s.FilesWritten) + s.MoreFilesWritten; n > 0 {
		parts = append(parts, plural(n, "file written outside the sandbox", "files written outside the sandbox"))
	}
	if f := s.SandboxFiles; f != nil && f.Count > 0 {
		more := ""
		if f.Truncated {
			more = " or more"
		}
		parts = append(parts, fmt.Sprintf("%s%s left in the sandbox (%d bytes)", plural(f.Count, "file", "files"), more, f.Bytes))
	}
	out := strings.Join(parts, ", ")
	if !s.Observed && s.NotObserved != "" {
		out += "; processes and network not observed (" + s.NotObserved + ")"
	}
	return out
}

func (s *SideEffects) processCount() int {
	n := 0
	for _, p := range s.Processes {
		n += p.Count
	}
	if s.MoreProcesses > 0 {
		n += s.MoreProcesses
	}
	return n
}

// Lines says it for a person, one item a line, without the summary: the
// sandbox, then every process, socket and file seen, then the notes.
// Writers render each line in their own way (escaped, as list items).
func (s *SideEffects) Lines() []string {
	if s == nil {
		return nil
	}
	var out []string
	if sb := s.Sandbox; sb != nil {
		where := "removed at the end"
		if sb.Kept {
			where = "kept"
		}
		home := "HOME " + sb.Home + ", TMPDIR " + sb.Tmp
		if sb.KeepHome {
			home = "HOME and TMPDIR as given (--keep-home)"
		}
		out = append(out, fmt.Sprintf("sandbox %s (%s): cwd %s, %s", sb.Dir, where, sb.Cwd, home))
		for _, a := range sb.Absolutized {
			out = append(out, "made absolute to work in the sandbox: "+a)
		}
		if sb.Hint != "" {
			out = append(out, sb.Hint)
		}
	}
	if s.How != "" {
		w := s.How
		if s.TargetProcesses > 0 {
			w += fmt.Sprintf("; %s started by mcpcheck", plural(s.TargetProcesses, "target process", "target processes"))
		}
		out = append(out, "observed: "+w)
	}
	for _, p := range s.Processes {
		out = append(out, "process: "+p.String())
	}
	if s.MoreProcesses > 0 {
		out = append(out, fmt.Sprintf("process: … and %d more processes of other command lines", s.MoreProcesses))
	}
	for _, u := range s.Network {
		out = append(out, "network: "+u.String())
	}
	if s.MoreNetwork > 0 {
		out = append(out, fmt.Sprintf("network: … and %d more addresses", s.MoreNetwork))
	}
	for _, f := range s.FilesWritten {
		out = append(out, fmt.Sprintf("written outside the sandbox: %s (open for writing in %s, seen %d×)", f.Path, f.Command, f.Count))
	}
	if s.MoreFilesWritten > 0 {
		out = append(out, fmt.Sprintf("written outside the sandbox: … and %d more files", s.MoreFilesWritten))
	}
	if f := s.SandboxFiles; f != nil && f.Count > 0 {
		for _, p := range f.Paths {
			out = append(out, "in the sandbox: "+p)
		}
		if rest := f.Count - len(f.Paths); rest > 0 || f.Truncated {
			more := fmt.Sprintf("%d more", rest)
			if f.Truncated {
				more = "more"
			}
			out = append(out, "in the sandbox: … and "+more)
		}
	}
	for _, n := range s.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

// String is "N× COMMAND (left its session 2, outlived its parent 1, ...)".
func (p SpawnedProcess) String() string {
	var what []string
	add := func(n int, s string) {
		if n > 0 {
			what = append(what, fmt.Sprintf("%s %d", s, n))
		}
	}
	add(p.LeftGroup, "left the process group")
	add(p.LeftSession, "left the session")
	add(p.OutlivedParent, "outlived its parent")
	add(p.OutlivedTarget, "outlived its target process")
	add(p.OutlivedRun, "outlived the run")
	add(p.EndedByUs, "ended by mcpcheck")
	s := fmt.Sprintf("%d× %s", p.Count, p.Command)
	if len(what) > 0 {
		s += " (" + strings.Join(what, ", ") + ")"
	}
	return s
}

// String is "tcp 93.184.216.34:443 (by node, 3 processes)" or "tcp listening on 127.0.0.1:8080 ...".
func (u NetworkUse) String() string {
	var b strings.Builder
	b.WriteString(u.Proto)
	switch {
	case u.Listening:
		b.WriteString(" listening on " + u.Local)
	default:
		b.WriteString(" to " + u.Remote)
	}
	var tags []string
	if u.DNS {
		tags = append(tags, "DNS")
	}
	if u.Loopback {
		tags = append(tags, "loopback")
	} else if u.Proto != "unix" {
		tags = append(tags, "not loopback")
	}
	if u.Command != "" {
		tags = append(tags, "by "+u.Command)
	}
	tags = append(tags, plural(u.Count, "process", "processes"))
	b.WriteString(" (" + strings.Join(tags, ", ") + ")")
	return b.String()
}

// sideEffectsTitle is the heading every writer gives the section.
const sideEffectsTitle = "Side effects"

// sideEffects copies s with secrets removed from what the target's
// processes ran and named.
func (r *redactor) sideEffects(s *SideEffects) *SideEffects {
	if s == nil {
		return nil
	}
	out := *s
	if s.Sandbox != nil {
		sb := *s.Sandbox
		sb.Absolutized = make([]string, len(s.Sandbox.Absolutized))
		for i, a := range s.Sandbox.Absolutized {
			sb.Absolutized[i] = r.command(a)
		}
		sb.Hint = r.text(sb.Hint)
		out.Sandbox = &sb
	}
	out.Processes = make([]SpawnedProcess, len(s.Processes))
	for i, p := range s.Processes {
		p.Command = r.command(p.Command)
		p.Pids = append([]int(nil), p.Pids...)
		out.Processes[i] = p
	}
	out.Network = make([]NetworkUse, len(s.Network))
	for i, u := range s.Network {
		u.Command = r.command(u.Command)
		out.Network[i] = u
	}
	out.FilesWritten = make([]FileWrite, len(s.FilesWritten))
	for i, f := range s.FilesWritten {
		f.Path = r.text(f.Path)
		f.Command = r.command(f.Command)
		out.FilesWritten[i] = f
	}
	if s.SandboxFiles != nil {
		f := *s.SandboxFiles
		f.Paths = make([]string, len(s.SandboxFiles.Paths))
		for i, p := range s.SandboxFiles.Paths {
			f.Paths[i] = r.text(p)
		}
		out.SandboxFiles = &f
	}
	out.Notes = make([]string, len(s.Notes))
	for i, n := range s.Notes {
		out.Notes[i] = r.text(n)
	}
	return &out
}

// sideEffects writes the text report's section, when the run has one.
func (t *textWriter) sideEffects(run *Run) {
	s := run.SideEffects
	if s == nil {
		return
	}
	t.printf("%s: %s\n", t.paint(ansiBold, sideEffectsTitle), printable(s.Summary()))
	for _, l := range s.Lines() {
		t.printf("  %s\n", printable(l))
	}
	t.printf("\n")
}

// mdSideEffects writes the Markdown report's section, when the run has
// one.
func mdSideEffects(b *strings.Builder, run *Run) {
	s := run.SideEffects
	if s == nil {
		return
	}
	fmt.Fprintf(b, "### %s: %s\n\n", sideEffectsTitle, md(s.Summary()))
	lines := s.Lines()
	if len(lines) > mdMaxListed {
		lines = append(lines[:mdMaxListed], fmt.Sprintf("… and %d more lines; the JSON report holds them", len(lines)-mdMaxListed))
	}
	for _, l := range lines {
		fmt.Fprintf(b, "- %s\n", md(truncate(l, 400)))
	}
	b.WriteString("\n")
}

// htmlSideEffects is the HTML report's section.
type htmlSideEffects struct {
	Summary string
	Lines   []string
}

func htmlSideEffectsOf(run *Run) *htmlSideEffects {
	s := run.SideEffects
	if s == nil {
		return nil
	}
	h := &htmlSideEffects{Summary: printable(s.Summary())}
	for _, l := range s.Lines() {
		h.Lines = append(h.Lines, printable(l))
	}
	return h
}

// junitSideEffects is a test suite without test cases that carries the
// section: its properties the counts, its system-out the lines (JUnit has
// no place for the run as a whole).
func junitSideEffects(run *Run) []junitSuite {
	s := run.SideEffects
	if s == nil {
		return nil
	}
	su := junitSuite{Name: "mcpcheck/side-effects", Time: seconds(0), Timestamp: run.Started.Format("2006-01-02T15:04:05")}
	su.Properties = []junitProperty{{"sideEffects", xs(s.Summary())}, {"observed", fmt.Sprint(s.Observed)}}
	if sb := s.Sandbox; sb != nil {
		su.Properties = append(su.Properties, junitProperty{"sandbox", xs(sb.Dir)})
	}
	out := xmlText(xs(strings.Join(append([]string{sideEffectsTitle + ": " + s.Summary()}, s.Lines()...), "\n")))
	su.SystemOut = &out
	return []junitSuite{su}
}

// sarifSideEffects adds the section to a SARIF run's properties.
func sarifSideEffects(props map[string]any, run *Run) {
	if run.SideEffects != nil && props != nil {
		props["sideEffects"] = run.SideEffects
		props["sideEffectsSummary"] = printable(run.SideEffects.Summary())
	}
}
