package reports

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MergeRuns joins the reports of one suite split into shards (mcpcheck
// server --shard K/N) into the report one unsharded run would have
// written. The runs must be of the same target, transport, tool and label
// filter, and no shard may come twice. A check that appears in more than
// one run (a passive check, which every shard runs on its own traffic)
// keeps its most severe outcome: error, then fail, warn, pass, untestable,
// n/a, and the requirements every copy broke (see mergeViolated), so no
// shard's broken requirement is lost behind another shard's failure.
// Checks are ordered by version, then by "ID: Title" (the spec name
// the suite orders an unsharded run by). The result's Started is the
// earliest start and Duration spans to the latest end; Versions, Problems
// and Requirements are the union; Interrupted joins the runs' causes. The
// baselines the shards were held to are dropped (apply one to the
// result), and so is what each shard could not judge alone (Unjudged):
// the result is to be judged as a whole. missing lists the shards "K/N" absent from a sharded
// set (empty when the set is complete or the runs were not sharded); the
// result names them too (MissingShards), and an incomplete set is no
// verdict on the target (Unjudged says which shards are missing), however
// clean the shards it has.
func MergeRuns(runs []*Run) (merged *Run, missing []string, err error) {
	if len(runs) == 0 {
		return nil, nil, errors.New("nothing to merge: give one or more JSON reports")
	}
	first := runs[0]
	out := &Run{Schema: Schema, Tool: first.Tool, Target: first.Target, Started: first.Started, Transport: first.Transport, LabelFilter: first.LabelFilter, ToolPolicy: mergeToolPolicy(runs)}
	shards := map[string]bool{}
	total := 0
	var end time.Time
	index := map[CheckKey]int{}
	for i, r := range runs {
		switch {
		case r.Target.Kind != first.Target.Kind || r.Target.Command != first.Target.Command || r.Target.URL != first.Target.URL || r.Target.Role != first.Target.Role:
			return nil, nil, fmt.Errorf("report %d is of %s, report 1 of %s: merge the shards of one target only", i+1, describeTarget(r.Target), describeTarget(first.Target))
		case r.Transport != first.Transport:
			return nil, nil, fmt.Errorf("report %d ran over %s, report 1 over %s: merge the shards of one transport only", i+1, r.Transport, first.Transport)
		case r.LabelFilter != first.LabelFilter:
			return nil, nil, fmt.Errorf("report %d was selected by --label-filter %q, report 1 by %q: shards must run the same selection", i+1, r.LabelFilter, first.LabelFilter)
		case r.ToolPolicy.String() != first.ToolPolicy.String():
			return nil, nil, fmt.Errorf("report %d called tools by the policy %q, report 1 by %q: shards must run with the same --call-tools and --tool-args", i+1, r.ToolPolicy.String(), first.ToolPolicy.String())
		case r.Fuzz != nil:
			return nil, nil, fmt.Errorf("report %d holds a fuzz campaign: merge campaigns with mcpcheck fuzz merge", i+1)
		}
		if r.Shard != "" {
			_, n, err := parseShardLabel(r.Shard)
			if err != nil {
				return nil, nil, fmt.Errorf("report %d: %v", i+1, err)
			}
			if total != 0 && n != total {
				return nil, nil, fmt.Errorf("report %d is shard %s, another is of %d shards: merge the shards of one split", i+1, r.Shard, total)
			}
			if shards[r.Shard] {
				return nil, nil, fmt.Errorf("shard %s comes twice (report %d): give each shard's report once", r.Shard, i+1)
			}
			shards[r.Shard], total = true, n
		}
		if r.Started.Before(out.Started) {
			out.Started = r.Started
		}
		if e := r.Started.Add(r.Duration); e.After(end) {
			end = e
		}
		for _, v := range r.Versions {
			if !slices.Contains(out.Versions, v) {
				out.Versions = append(out.Versions, v)
			}
		}
		if out.Target.StderrTail == "" {
			out.Target.StderrTail = r.Target.StderrTail
		}
		if out.Target.ExitStatus == "" {
			out.Target.ExitStatus = r.Target.ExitStatus
		}
		for _, h := range r.Target.HeaderNames {
			if !slices.Contains(out.Target.HeaderNames, h) {
				out.Target.HeaderNames = append(out.Target.HeaderNames, h)
			}
		}
		for _, p := range r.Problems {
			if !slices.Contains(out.Problems, p) {
				out.Problems = append(out.Problems, p)
			}
		}
		if r.Interrupted != "" && !strings.Contains(out.Interrupted, r.Interrupted) {
			if out.Interrupted != "" {
				out.Interrupted += "; "
			}
			out.Interrupted += r.Interrupted
		}
		for _, s := range r.MissingShards {
			if !slices.Contains(out.MissingShards, s) {
				out.MissingShards = append(out.MissingShards, s)
			}
		}
		for id, req := range r.Requirements {
			if out.Requirements == nil {
				out.Requirements = map[string]Requirement{}
			}
			if _, ok := out.Requirements[id]; !ok {
				out.Requirements[id] = req
			}
		}
		for _, c := range r.Checks {
			c.Baselined, c.BaselineReason, c.Unexpected = false, "", nil
			if j, ok := index[c.Key()]; ok {
				prev := out.Checks[j]
				if severity(c.Outcome) > severity(prev.Outcome) {
					out.Checks[j] = c
				}
				out.Checks[j].Violated = mergeViolated(out.Checks[j], prev, c)
				continue
			}
			index[c.Key()] = len(out.Checks)
			out.Checks = append(out.Checks, c)
		}
	}
	out.Duration = end.Sub(out.Started)
	sort.Slice(out.Versions, func(i, j int) bool { return out.Versions[i].Compare(out.Versions[j]) < 0 })
	SortChecks(out.Checks)
	for k := 1; k <= total; k++ {
		if s := fmt.Sprintf("%d/%d", k, total); !shards[s] {
			missing = append(missing, s)
		}
	}
	out.MissingShards = append(out.MissingShards, missing...)
	switch n := len(out.MissingShards); {
	case n == 1:
		out.Unjudged = fmt.Sprintf("shard %s is missing: its active checks are not in this report; merge the JSON report of every shard", out.MissingShards[0])
	case n > 1:
		out.Unjudged = fmt.Sprintf("shards %s are missing: their active checks are not in this report; merge the JSON report of every shard", strings.Join(out.MissingShards, ", "))
	}
	return out, missing, nil
}

// mergeViolated is the Violated of kept, the copy of a check MergeRuns
// keeps from copies a and b: every requirement either copy broke
// (Check.BrokenRequirements). On a fail or warn that is every requirement
// the check cites, it is nil (which means all of them there). On an error
// it lists what the other copy found broken, which Apply and Compare then
// hold the check to; on any other outcome neither copy broke anything.
func mergeViolated(kept, a, b Check) []string {
	union := append(a.BrokenRequirements(), b.BrokenRequirements()...)
	slices.Sort(union)
	union = slices.Compact(union)
	if len(union) == 0 {
		return nil
	}
	if kept.Outcome == Fail || kept.Outcome == Warn {
		all := append([]string(nil), kept.Requirements...)
		slices.Sort(all)
		if slices.Equal(slices.Compact(all), union) {
			return nil
		}
	}
	return union
}

// SortChecks puts checks in the order a report lists them: by version,
// then by "ID: Title" (the spec name the suite orders an unsharded run
// by), whatever order they ended in.
func SortChecks(checks []Check) {
	sort.SliceStable(checks, func(i, j int) bool {
		a, b := checks[i], checks[j]
		if c := a.Version.Compare(b.Version); c != 0 {
			return c < 0
		}
		return a.ID+": "+a.Title < b.ID+": "+b.Title
	})
}

// severity orders outcomes for merging: the higher wins.
func severity(o Outcome) int {
	switch o {
	case Error:
		return 6
	case Fail:
		return 5
	case Warn:
		return 4
	case Pass:
		return 3
	case Untestable:
		return 2
	case NA:
		return 1
	}
	return 7 // unset: a harness fault, never hidden
}

// parseShardLabel reads a run's Shard, "K/N".
func parseShardLabel(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("shard %q is not K/N with 1 <= K <= N; was the report written by mcpcheck server --shard?", s)
	}
	return k, n, nil
}

func describeTarget(t Target) string {
	switch {
	case t.Command != "":
		return fmt.Sprintf("the %s command %q", t.Kind, t.Command)
	case t.URL != "":
		return fmt.Sprintf("the %s endpoint %s", t.Kind, t.URL)
	}
	return "an unnamed target"
}
