package specscan

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// NormativeDirs are the page folders whose statements the catalog accounts
// for: the base protocol, the server features and the client features.
var NormativeDirs = []string{"basic", "server", "client"}

// ScanDir scans every .mdx page under root's normative folders and returns
// the occurrences ordered by page and line. root is one version's folder of
// specification pages.
func ScanDir(root string) ([]Occurrence, error) {
	var out []Occurrence
	for _, d := range NormativeDirs {
		base := filepath.Join(root, d)
		if _, err := os.Stat(base); err != nil {
			continue
		}
		err := filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !strings.HasSuffix(p, ".mdx") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return fmt.Errorf("read spec page: %w", err)
			}
			rel, _ := filepath.Rel(root, p)
			out = append(out, Scan(PageName(rel), src)...)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", base, err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Page != out[j].Page {
			return out[i].Page < out[j].Page
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

// PageName turns a page's relative file path into its catalog name:
// slashes, no extension ("basic/utilities/ping").
func PageName(rel string) string {
	return strings.TrimSuffix(filepath.ToSlash(rel), ".mdx")
}
