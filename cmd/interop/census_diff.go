package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
)

// censusMatrixJSON is what the census diff reads of a matrix in
// CENSUS.json (the MATRIX.json layout of reports.Matrix.WriteJSON).
type censusMatrixJSON struct {
	Servers []struct {
		Name     string `json:"name"`
		Headline string `json:"headline"`
		Violated []struct {
			ID          string `json:"id"`
			Requirement string `json:"requirement"`
			Outcome     string `json:"outcome"`
		} `json:"violated"`
	} `json:"servers"`
	Rows []struct {
		Requirement string   `json:"requirement"`
		Cells       []string `json:"cells"`
	} `json:"rows"`
}

// censusCells flattens a census document into "matrix · column ·
// what" → value: every cell, every column's verdict and every
// requirement each broken check broke. A check is named by the ID it
// carries now (reports.CanonicalCheckID), so a census recorded before a
// check was renamed diffs cleanly against one recorded after.
func censusCells(b []byte) (map[string]string, error) {
	var doc struct {
		Servers json.RawMessage `json:"servers"`
		Hosts   json.RawMessage `json:"hosts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range []struct {
		name string
		raw  json.RawMessage
	}{{"servers", doc.Servers}, {"hosts", doc.Hosts}} {
		if len(m.raw) == 0 {
			continue
		}
		var mx censusMatrixJSON
		if err := json.Unmarshal(m.raw, &mx); err != nil {
			return nil, fmt.Errorf("%s: %v", m.name, err)
		}
		for _, s := range mx.Servers {
			out[m.name+" · "+s.Name+" · verdict"] = s.Headline
			for _, v := range s.Violated {
				out[m.name+" · "+s.Name+" · "+reports.CanonicalCheckID(v.ID)+" breaks "+v.Requirement] = v.Outcome
			}
		}
		for _, r := range mx.Rows {
			for i, c := range r.Cells {
				if i < len(mx.Servers) && c != "" {
					out[m.name+" · "+mx.Servers[i].Name+" · "+r.Requirement] = c
				}
			}
		}
	}
	return out, nil
}

// censusDiff writes every cell, verdict and broken requirement that moved
// between two CENSUS.json files, and returns how many moved.
func censusDiff(oldPath, newPath string, w io.Writer) (int, error) {
	ob, err := os.ReadFile(oldPath)
	if err != nil {
		return 0, err
	}
	nb, err := os.ReadFile(newPath)
	if err != nil {
		return 0, err
	}
	o, err := censusCells(ob)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", oldPath, err)
	}
	n, err := censusCells(nb)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", newPath, err)
	}
	keys := map[string]bool{}
	for k := range o {
		keys[k] = true
	}
	for k := range n {
		keys[k] = true
	}
	var lines []string
	for k := range keys {
		if o[k] == n[k] {
			continue
		}
		lines = append(lines, fmt.Sprintf("- %s: %s → %s", k, orDash(o[k]), orDash(n[k])))
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		fmt.Fprintf(w, "census diff: no cell moved (%s → %s)\n", oldPath, newPath)
		return 0, nil
	}
	fmt.Fprintf(w, "census diff: %d cells moved (%s → %s)\n%s\n", len(lines), oldPath, newPath, strings.Join(lines, "\n"))
	return len(lines), nil
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
