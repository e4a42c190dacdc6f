package catalog

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/spec"
)

//go:embed data
var dataFS embed.FS

// SkipsPrefix starts the names of the data files that list keywords that are
// not requirements (skips.json, skips-authorization.json, ...).
const SkipsPrefix = "skips"

// Catalog is the loaded set of requirements.
type Catalog struct {
	Records []Record
	Skips   []Skip
	byID    map[string]int
}

var (
	loadOnce sync.Once
	loaded   *Catalog
	loadErr  error
)

// Default returns the embedded catalog, loaded and checked once.
func Default() (*Catalog, error) {
	loadOnce.Do(func() { loaded, loadErr = Load(dataFS) })
	return loaded, loadErr
}

// Load reads every data/*.json file of fsys: skips*.json hold Skip entries,
// every other file an array of Records. It returns every problem it finds,
// joined, naming the file and record.
func Load(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "data/*.json")
	if err != nil {
		return nil, fmt.Errorf("list catalog data: %w", err)
	}
	sort.Strings(names)
	c := &Catalog{byID: map[string]int{}}
	var errs []error
	for _, name := range names {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", name, err))
			continue
		}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if strings.HasPrefix(path.Base(name), SkipsPrefix) {
			var skips []Skip
			if err := dec.Decode(&skips); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w (want an array of {ref, why})", name, err))
				continue
			}
			for _, s := range skips {
				if _, _, _, err := ParseRef(s.Ref); err != nil || len(s.Why) < 8 {
					errs = append(errs, fmt.Errorf("%s: skip %q needs a valid ref and a reason", name, s.Ref))
				}
			}
			c.Skips = append(c.Skips, skips...)
			continue
		}
		var recs []Record
		if err := dec.Decode(&recs); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (want an array of records)", name, err))
			continue
		}
		for _, r := range recs {
			for _, e := range r.Validate() {
				errs = append(errs, fmt.Errorf("%s: %w", name, e))
			}
			if _, dup := c.byID[r.ID]; dup {
				errs = append(errs, fmt.Errorf("%s: duplicate id %q", name, r.ID))
				continue
			}
			c.byID[r.ID] = len(c.Records)
			c.Records = append(c.Records, r)
		}
	}
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	sort.SliceStable(c.Records, func(i, j int) bool { return c.Records[i].ID < c.Records[j].ID })
	for i, r := range c.Records {
		c.byID[r.ID] = i
	}
	return c, nil
}

// Get returns the record with the given ID.
func (c *Catalog) Get(id string) (Record, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Record{}, false
	}
	return c.Records[i], true
}

// Filter selects records; zero fields match everything.
type Filter struct {
	Version     spec.Version
	Level       Level
	Role        Role
	Area        string
	Testability Testability
}

// Select returns the records that match f, in ID order. A role filter of
// server or client also matches records whose role is "both".
func (c *Catalog) Select(f Filter) []Record {
	var out []Record
	for _, r := range c.Records {
		if f.Version != "" && !r.In(f.Version) {
			continue
		}
		if f.Level != "" && r.Level != f.Level {
			continue
		}
		if f.Role != "" && r.Role != f.Role && !(r.Role == RoleBoth && (f.Role == RoleServer || f.Role == RoleClient)) {
			continue
		}
		if f.Area != "" && r.Area != f.Area {
			continue
		}
		if f.Testability != "" && r.Testability != f.Testability {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Counts tallies records per level for version v (all versions when empty).
func (c *Catalog) Counts(v spec.Version) map[Level]int {
	out := map[Level]int{}
	for _, r := range c.Records {
		if v == "" || r.In(v) {
			out[r.Level]++
		}
	}
	return out
}
