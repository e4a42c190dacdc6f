package suite

import (
	"strings"
	"testing"
)

// TestParseLabelFilter: an expression compiles into a matcher of labels,
// the empty one matches everything (nil), and a broken one is an error
// that names it.
func TestParseLabelFilter(t *testing.T) {
	m, err := ParseLabelFilter("area:base && !level:should")
	if err != nil {
		t.Fatal(err)
	}
	if !m([]string{"area:base", "level:must"}) || m([]string{"area:base", "level:should"}) || m([]string{"area:tools", "level:must"}) {
		t.Errorf("the matcher of %q does not select by area and level", "area:base && !level:should")
	}
	if m, err := ParseLabelFilter(""); err != nil || m != nil {
		t.Errorf("the empty filter: matcher %v, error %v; want nil, nil (every spec runs)", m != nil, err)
	}
	if _, err := ParseLabelFilter("area:base &&"); err == nil || !strings.Contains(err.Error(), `"area:base &&"`) {
		t.Errorf("a broken filter gave error %v; want one naming the expression", err)
	}
}
