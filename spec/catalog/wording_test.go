package catalog

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/specscan"
)

// copiedRun is how many consecutive words a summary may share with a
// specification sentence before it counts as copied rather than paraphrased.
const copiedRun = 8

// TestSummariesAreOurOwnWords guards the rule that the catalog paraphrases
// and never quotes: no summary shares a run of copiedRun words with a
// normative sentence of any version.
func TestSummariesAreOurOwnWords(t *testing.T) {
	if sharedtest.Dir() == "" {
		t.Skip("specification pages not present")
	}
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	grams := map[string]string{}
	for _, v := range spec.Versions {
		occ, err := specscan.ScanDir(sharedtest.SpecDir(string(v)))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range occ {
			for _, g := range ngrams(o.Sentence, copiedRun) {
				grams[g] = o.Ref()
			}
		}
	}
	for _, r := range c.Records {
		for _, g := range ngrams(specscan.Normalize(r.Summary), copiedRun) {
			if ref, ok := grams[g]; ok {
				t.Errorf("%s: summary repeats %d words of %s (%q); paraphrase it", r.ID, copiedRun, ref, g)
				break
			}
		}
	}
}

func ngrams(s string, n int) []string {
	w := strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '/' || r == '-')
	})
	var out []string
	for i := 0; i+n <= len(w); i++ {
		out = append(out, strings.Join(w[i:i+n], " "))
	}
	return out
}
