package fuzz

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SummaryFile is the name of the campaign summary (Result.WriteJSON) in a
// campaign's output directory (mcpcheck fuzz --out).
const SummaryFile = "mcpcheck-fuzz.json"

// Part is one campaign a merged Result was made of.
type Part struct {
	// Dir is the campaign's output directory, as given to Merge.
	Dir      string        `json:"dir"`
	Shard    string        `json:"shard,omitempty"`
	Seed     uint64        `json:"seed"`
	Execs    int64         `json:"execs"`
	Duration time.Duration `json:"durationNs"`
	Findings int           `json:"findings"`
}

// LoadResult reads the campaign summary in dir (dir/SummaryFile).
func LoadResult(dir string) (*Result, error) {
	path := filepath.Join(dir, SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fuzz: cannot read the campaign summary %s: %w; give the --out directory of a campaign (mcpcheck fuzz --out DIR)", path, err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("fuzz: %s is not a campaign summary: %v", path, err)
	}
	if !r.Version.Known() {
		return nil, fmt.Errorf("fuzz: %s names protocol version %q; it was not written by this mcpcheck", path, r.Version)
	}
	return &r, nil
}

// roleName names a Result's role for a message ("" is a server campaign).
func roleName(role string) string {
	if role == "" {
		return "server"
	}
	return role
}

// Merge joins the campaigns written to dirs (the --out directories of
// mcpcheck fuzz, typically the shards of one campaign, see Shard) into one
// result, and writes the merged findings into out/findings. The campaigns
// must speak the same protocol version; shards of one seed must be of one
// split, each shard once.
//
// Executions, restarts, workers, methods covered and the per-mutator
// counts and times add up; Duration is the longest campaign's (shards run
// side by side); peaks are the highest. Findings are deduplicated by
// signature: the one found first (lowest Exec, which a shard numbers as
// the unsharded campaign would) is kept, with the hits of all, and its
// directory (replay.json, inputs, transcript) is copied to
// out/findings/<kind>-<id>, its reproducer pointed there. Parts lists the
// campaigns. missing lists the shards "K/N" of a split that were not
// given; a merge that lacks some, or holds a campaign that never reached
// its target, is no verdict on the target (Result.Unjudged says why).
func Merge(dirs []string, out string) (merged *Result, missing []string, err error) {
	if len(dirs) == 0 {
		return nil, nil, errors.New("fuzz: nothing to merge: give the --out directories of the campaigns")
	}
	absOut, _ := filepath.Abs(out)
	var parts []*Result
	for _, d := range dirs {
		if abs, _ := filepath.Abs(d); abs == absOut {
			return nil, nil, fmt.Errorf("fuzz: the merge would write into its input %s; choose another output directory", d)
		}
		r, err := LoadResult(d)
		if err != nil {
			return nil, nil, err
		}
		parts = append(parts, r)
	}
	first := parts[0]
	m := &Result{Role: first.Role, Client: first.Client, Version: first.Version, Target: first.Target, Seed: first.Seed, Transport: first.Transport,
		MethodsCovered: map[string]int64{}, Mutators: map[string]int64{}, MutatorTime: map[string]time.Duration{}}
	type split struct {
		seed uint64
		n    int
	}
	seen := map[split]map[int]bool{}
	type kept struct {
		f   *Finding
		dir string // the campaign it came from
	}
	byID := map[string]*kept{}
	for i, r := range parts {
		if r.Role != first.Role {
			return nil, nil, fmt.Errorf("fuzz: %s is a %s campaign, %s a %s one: merge campaigns against one kind of target", dirs[i], roleName(r.Role), dirs[0], roleName(first.Role))
		}
		if r.Version != first.Version {
			return nil, nil, fmt.Errorf("fuzz: %s fuzzed protocol %s, %s fuzzed %s: merge campaigns of one protocol version", dirs[i], r.Version, dirs[0], first.Version)
		}
		if r.Shard != "" {
			var k, n int
			if _, err := fmt.Sscanf(r.Shard, "%d/%d", &k, &n); err != nil || !(Shard{K: k, N: n}).Valid() || n == 0 {
				return nil, nil, fmt.Errorf("fuzz: %s: shard %q is not K/N", dirs[i], r.Shard)
			}
			sp := split{r.Seed, n}
			for other := range seen {
				if other.seed == r.Seed && other.n != n {
					return nil, nil, fmt.Errorf("fuzz: %s is shard %s of seed %d, another campaign of that seed is split %d ways: merge the shards of one split", dirs[i], r.Shard, r.Seed, other.n)
				}
			}
			if seen[sp] == nil {
				seen[sp] = map[int]bool{}
			}
			if seen[sp][k] {
				return nil, nil, fmt.Errorf("fuzz: shard %s of seed %d comes twice (%s): give each shard's directory once", r.Shard, r.Seed, dirs[i])
			}
			seen[sp][k] = true
		}
		m.Workers += r.Workers
		m.Execs += r.Execs
		m.Restarts += r.Restarts
		m.RestartTime += r.RestartTime
		m.RestartWait += r.RestartWait
		if r.Duration > m.Duration {
			m.Duration = r.Duration
		}
		if r.PeakHeapBytes > m.PeakHeapBytes {
			m.PeakHeapBytes = r.PeakHeapBytes
		}
		if r.PeakRSSBytes > m.PeakRSSBytes {
			m.PeakRSSBytes = r.PeakRSSBytes
		}
		for k, v := range r.MethodsCovered {
			m.MethodsCovered[k] += v
		}
		for k, v := range r.Mutators {
			m.Mutators[k] += v
		}
		for k, v := range r.MutatorTime {
			m.MutatorTime[k] += v
		}
		for _, e := range r.Errors {
			m.Errors = append(m.Errors, dirs[i]+": "+e)
		}
		if r.Unjudged != "" {
			if m.Unjudged != "" {
				m.Unjudged += "; "
			}
			m.Unjudged += dirs[i] + ": " + r.Unjudged
		}
		m.Parts = append(m.Parts, Part{Dir: dirs[i], Shard: r.Shard, Seed: r.Seed, Execs: r.Execs, Duration: r.Duration, Findings: len(r.Findings)})
		for _, f := range r.Findings {
			k, ok := byID[f.ID]
			if !ok {
				byID[f.ID] = &kept{f: f, dir: dirs[i]}
				continue
			}
			hits := k.f.Hits + f.Hits
			if f.Exec < k.f.Exec {
				k.f, k.dir = f, dirs[i]
			}
			k.f.Hits = hits
		}
	}
	for sp, ks := range seen {
		for k := 1; k <= sp.n; k++ {
			if !ks[k] {
				missing = append(missing, fmt.Sprintf("%d/%d (seed %d)", k, sp.n, sp.seed))
			}
		}
	}
	sort.Strings(missing)
	for _, k := range byID {
		if err := k.f.adopt(k.dir, filepath.Join(out, "findings")); err != nil {
			return nil, missing, err
		}
		m.Findings = append(m.Findings, k.f)
	}
	sort.SliceStable(m.Findings, func(i, j int) bool {
		a, b := m.Findings[i], m.Findings[j]
		if a.Exec != b.Exec {
			return a.Exec < b.Exec
		}
		return a.ID < b.ID
	})
	if len(missing) > 0 {
		what := "shard " + strings.Join(missing, ", shard ") + " missing: its inputs were not run; merge every shard's --out directory"
		if m.Unjudged != "" {
			what += "; " + m.Unjudged
		}
		m.Unjudged = what
	}
	m.Verdict = verdict(m.Findings)
	if m.Unjudged != "" {
		m.Verdict.Unjudged = true
		if !m.Verdict.Failed {
			m.Verdict.Reason = "nothing complete was judged: " + m.Unjudged
		}
	}
	return m, missing, nil
}

// adopt copies the finding's directory, found in campaign/findings or at
// f.Dir, to root/<kind>-<id>, and points f (Dir, Reproducer) and the
// copy's finding.json there.
func (f *Finding) adopt(campaign, root string) error {
	src := filepath.Join(campaign, "findings", f.DirName())
	if _, err := os.Stat(filepath.Join(src, FileReplay)); err != nil {
		if f.Dir == "" {
			return fmt.Errorf("fuzz: the finding %s of %s has no directory: the campaign wrote no findings (was --findings set?)", f.ID, campaign)
		}
		if _, err := os.Stat(filepath.Join(f.Dir, FileReplay)); err != nil {
			return fmt.Errorf("fuzz: the finding %s of %s is neither in %s nor at %s; merge the campaign's --out directory with its findings directory in it (the default)", f.ID, campaign, src, f.Dir)
		}
		src = f.Dir
	}
	dst := filepath.Join(root, f.DirName())
	if err := copyDir(src, dst); err != nil {
		return fmt.Errorf("fuzz: cannot copy the finding %s to %s: %w", src, dst, err)
	}
	if f.Dir != "" && f.Reproducer != "" {
		f.Reproducer = strings.Replace(f.Reproducer, f.Dir, dst, 1)
	}
	f.Dir = dst
	meta, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, FileFinding), append(meta, '\n'), 0o644)
}

// copyDir copies the regular files of src (a finding directory: no
// subdirectories) into dst, which it creates.
func copyDir(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
