package fuzz

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/oracle"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Finding is one deduplicated problem a campaign found, with everything
// needed to reproduce it.
type Finding struct {
	oracle.Observation
	// ID is the observation's signature; one ID per bug.
	ID      string       `json:"id"`
	Version spec.Version `json:"version"`
	// Target describes the target (its command line).
	Target string `json:"target"`
	// Mutator and Seed made the input that first showed the problem.
	Mutator string `json:"mutator,omitempty"`
	Seed    uint64 `json:"seed"`
	// Exec is the campaign-wide number of the execution that found it (in
	// a shard, the number its input has in the unsharded sequence), and
	// At how far into the campaign.
	Exec int64         `json:"exec"`
	At   time.Duration `json:"atNs"`
	// Hits counts the executions that showed the same signature.
	Hits int64 `json:"hits"`
	// Reproduced is true when the input, replayed on a fresh instance (with
	// the session's earlier inputs when needed), showed the problem again.
	Reproduced bool `json:"reproduced"`
	// Input is what was sent (with the inputs before it on the same
	// session when the problem needed them); Minimized is the smallest
	// input found that still shows it.
	// Both live in replay.json and the .bin files, not in finding.json.
	Input     mutate.Input `json:"-"`
	Minimized mutate.Input `json:"-"`
	// InputSize and MinimizedSize are their sizes in bytes (set by Write).
	InputSize     int `json:"inputBytes"`
	MinimizedSize int `json:"minimizedBytes"`
	// Transcript is the wire transcript of the last reproduction run (or of
	// the original execution when it did not reproduce).
	Transcript []reports.WireEvent `json:"-"`
	// StderrTail is the end of the target's stderr in that run.
	StderrTail []byte `json:"-"`
	// Dir is where the finding was written ("" when not written).
	Dir string `json:"dir,omitempty"`
	// Reproducer is the command that replays the finding (Config.Reproducer).
	Reproducer string `json:"reproducer,omitempty"`
	// Wait is the liveness deadline the finding was found with.
	Wait time.Duration `json:"waitNs"`
}

// ReplayFile is the content of a finding's replay.json: what Replay needs.
type ReplayFile struct {
	// Format is the file format version (1).
	Format  int          `json:"format"`
	Version spec.Version `json:"version"`
	// Input is the minimized input.
	Input mutate.Input `json:"input"`
	// Original is the input as found.
	Original mutate.Input `json:"original"`
	// Expect is the observation a reproduction must show again.
	Expect oracle.Observation `json:"expect"`
	// Signature is Expect's signature.
	Signature string `json:"signature"`
	// Wait is the liveness deadline.
	Wait time.Duration `json:"waitNs"`
}

// Finding directory file names.
const (
	FileFinding    = "finding.json"
	FileReplay     = "replay.json"
	FileSeed       = "seed.txt"
	FileInput      = "input.bin"
	FileMinimized  = "minimized.bin"
	FileTranscript = "transcript.jsonl"
	FileStderr     = "stderr.txt"
)

// DirName is the directory name of a finding: kind and signature.
func (f *Finding) DirName() string { return f.Kind + "-" + f.ID }

// Write stores the finding in root/<kind>-<id>/: finding.json, replay.json,
// seed.txt, input.bin, minimized.bin, transcript.jsonl and stderr.txt. It
// sets f.Dir.
func (f *Finding) Write(root string) error {
	dir := filepath.Join(root, f.DirName())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fuzz: cannot create the finding directory %s: %w; check --findings", dir, err)
	}
	f.Dir = dir
	f.InputSize, f.MinimizedSize = f.Input.Size(), f.Minimized.Size()
	meta, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	rf := ReplayFile{Format: 1, Version: f.Version, Input: f.Minimized, Original: f.Input, Expect: f.Observation, Signature: f.ID, Wait: f.Wait}
	replay, err := json.MarshalIndent(rf, "", "  ")
	if err != nil {
		return err
	}
	seed := fmt.Sprintf("version %s\nmutator %s\nseed %d\n", f.Version, f.Mutator, f.Seed)
	files := map[string][]byte{
		FileFinding:   append(meta, '\n'),
		FileReplay:    append(replay, '\n'),
		FileSeed:      []byte(seed),
		FileInput:     f.Input.Bytes(),
		FileMinimized: f.Minimized.Bytes(),
		FileStderr:    f.StderrTail,
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("fuzz: cannot write %s: %w", filepath.Join(dir, name), err)
		}
	}
	return writeTranscript(filepath.Join(dir, FileTranscript), f.Transcript)
}

func writeTranscript(path string, events []reports.WireEvent) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("fuzz: cannot write the transcript %s: %w", path, err)
	}
	w := bufio.NewWriter(fh)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, ev := range events {
		if err := enc.Encode(ev); err != nil {
			fh.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// ReadTranscript reads a transcript.jsonl file.
func ReadTranscript(path string) ([]reports.WireEvent, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var out []reports.WireEvent
	dec := json.NewDecoder(fh)
	for dec.More() {
		var ev reports.WireEvent
		if err := dec.Decode(&ev); err != nil {
			return out, fmt.Errorf("fuzz: %s: %w", path, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// Report converts the finding to the reports result model. reproducer is
// the command that replays it.
func (f *Finding) Report(reproducer string, maxEvents int) reports.Finding {
	rf := reports.Finding{ID: f.ID, Kind: f.Kind, Level: f.Level, Message: f.Message, Reproducer: reproducer}
	if f.Requirement != "" {
		rf.Requirements = []string{f.Requirement}
	}
	if f.Dir != "" {
		rf.Input = filepath.Join(f.Dir, FileMinimized)
	}
	ev := f.Transcript
	if maxEvents > 0 && len(ev) > maxEvents {
		ev = ev[len(ev)-maxEvents:]
	}
	rf.Transcript = ev
	return rf
}
