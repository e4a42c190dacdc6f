package harness

import (
	"errors"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"sort"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/record"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

// Requirements looks up catalog records; *catalog.Catalog implements it.
type Requirements interface {
	Get(id string) (catalog.Record, bool)
}

// RunOptions configure a Run. Zero fields take the defaults.
type RunOptions struct {
	// Catalog resolves requirement IDs (default: the embedded catalog).
	Catalog Requirements
	// Recorder keeps the transcript (default: a new one starting now).
	// Attach it to every connection of the run (conn.Observe).
	Recorder *record.Recorder
	// Version and Transport are the defaults of checks made with Run.Check.
	Version   spec.Version
	Transport wire.Transport
	// Verbose keeps the transcript of passing checks too; by default only
	// checks that did not pass keep theirs.
	Verbose bool
	// KeepTranscript keeps the recorder's events after the checks that
	// cover them end; by default they are discarded whenever no check is
	// open, so a long run's memory stays bounded.
	KeepTranscript bool
}

// Run collects the checks of one run.
//
// Concurrency: all methods are safe for concurrent use. Transcripts are
// cut by time (a check gets everything the run's recorder kept between its
// start and its end), so checks that share the run's recorder should run
// one at a time; checks that run at the same time each get their own
// recorder (Check.UseRecorder), attached to the connections they use.
type Run struct {
	opts    RunOptions
	started time.Time

	mu       sync.Mutex
	open     int
	checks   []reports.Check
	keys     map[reports.CheckKey]bool
	problems []error
	reqs     map[string]catalog.Record
	// transcripts is the Cost of the transcripts the run's checks keep.
	transcripts int
}

// The bounds of the transcripts a run keeps in its report: each check's
// is trimmed (record.Trim) to the first bound while the run's total is
// under transcriptRunBytes, to the second after.
const (
	transcriptEvents, transcriptBytes         = 400, 512 << 10
	transcriptRunBytes                        = 96 << 20
	transcriptEventsLate, transcriptBytesLate = 20, 32 << 10
)

// keepTranscript trims events for a check's report within the run's
// budget and accounts for what is kept.
func (r *Run) keepTranscript(events []reports.WireEvent) []reports.WireEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, b := transcriptEvents, transcriptBytes
	if r.transcripts >= transcriptRunBytes {
		n, b = transcriptEventsLate, transcriptBytesLate
	}
	events = record.Trim(events, n, b)
	for _, e := range events {
		r.transcripts += record.Cost(e)
	}
	return events
}

// NewRun starts a run.
func NewRun(o RunOptions) (*Run, error) {
	if o.Catalog == nil {
		c, err := catalog.Default()
		if err != nil {
			return nil, fmt.Errorf("harness: loading the requirement catalog: %w", err)
		}
		o.Catalog = c
	}
	now := time.Now()
	if o.Recorder == nil {
		o.Recorder = record.New(now, record.Options{})
	} else {
		now = o.Recorder.Start()
	}
	return &Run{opts: o, started: now, keys: map[reports.CheckKey]bool{}, reqs: map[string]catalog.Record{}}, nil
}

// Recorder is the run's transcript recorder.
func (r *Run) Recorder() *record.Recorder { return r.opts.Recorder }

// Scope is a version and transport that checks are made for.
type Scope struct {
	run       *Run
	Version   spec.Version
	Transport wire.Transport
	again     bool
}

// Again returns the scope for re-running checks already judged in it:
// the verdict of a check made in it replaces the earlier one of the same
// check instead of being a second verdict (a harness problem).
func (s Scope) Again() Scope {
	s.again = true
	return s
}

// Scope returns a scope for checks of version v over transport.
func (r *Run) Scope(v spec.Version, transport wire.Transport) Scope {
	return Scope{run: r, Version: v, Transport: transport}
}

// Check begins a check with the run's default version and transport.
func (r *Run) Check(id, title string, requirements ...string) *Check {
	return r.Scope(r.opts.Version, r.opts.Transport).Check(id, title, requirements...)
}

// Problem records a programming error of a scenario (an unknown
// requirement ID, a check ended twice) so that it is reported loudly.
func (r *Run) Problem(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, err)
}

// Problems returns the programming errors found so far; a CLI should
// treat any as a harness error (exit 3).
func (r *Run) Problems() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.problems...)
}

// Err joins the problems, nil when there are none.
func (r *Run) Err() error { return errors.Join(r.Problems()...) }

func (r *Run) begin() {
	r.mu.Lock()
	r.open++
	r.mu.Unlock()
}

func (r *Run) add(c reports.Check, recs []catalog.Record, again bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open--
	if r.open == 0 && !r.opts.KeepTranscript {
		r.opts.Recorder.Discard(r.opts.Recorder.Mark())
	}
	k := c.Key()
	if again && r.keys[k] {
		for i := range r.checks {
			if r.checks[i].Key() == k {
				r.checks[i] = c
			}
		}
		for _, rec := range recs {
			r.reqs[rec.ID] = rec
		}
		return
	}
	if r.keys[k] {
		r.problems = append(r.problems, fmt.Errorf("harness: check %s was judged twice in this run; give each check a unique ID per version and transport", k))
	}
	r.keys[k] = true
	r.checks = append(r.checks, c)
	for _, rec := range recs {
		r.reqs[rec.ID] = rec
	}
}

// Find returns the verdict of the check with that key (the zero Check
// when there is none yet).
func (r *Run) Find(k reports.CheckKey) reports.Check {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.checks {
		if c.Key() == k {
			return c
		}
	}
	return reports.Check{}
}

// Checks returns the ended checks in the order they ended.
func (r *Run) Checks() []reports.Check {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reports.Check(nil), r.checks...)
}

// Report builds the reports.Run of everything so far.
func (r *Run) Report(tool reports.Tool, target reports.Target) reports.Run {
	r.mu.Lock()
	defer r.mu.Unlock()
	run := reports.Run{
		Schema: reports.Schema, Tool: tool, Target: target, Started: r.started,
		Duration: time.Since(r.started), Checks: append([]reports.Check(nil), r.checks...),
		Requirements: map[string]reports.Requirement{},
	}
	versions := map[spec.Version]bool{}
	transports := map[string]bool{}
	for _, c := range r.checks {
		if c.Version != "" {
			versions[c.Version] = true
		}
		if c.Transport != "" {
			transports[c.Transport] = true
		}
	}
	for v := range versions {
		run.Versions = append(run.Versions, v)
	}
	sort.Slice(run.Versions, func(i, j int) bool { return run.Versions[i].Compare(run.Versions[j]) < 0 })
	if len(transports) == 1 {
		for t := range transports {
			run.Transport = t
		}
	}
	for id, rec := range r.reqs {
		run.Requirements[id] = reports.RequirementOf(rec)
	}
	return run
}
