package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec/specscan"
)

func scanFile(t *testing.T, path string) []specscan.Occurrence {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return specscan.Scan("seeds/"+strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), b)
}
