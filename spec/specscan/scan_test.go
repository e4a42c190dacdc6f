package specscan

import (
	"testing"
)

func TestScanFindsKeywordsPerSentence(t *testing.T) {
	src := []byte(`---
title: Example
---

# Top

## Part one

The client **MUST** send a
request first. Then the server **SHOULD** answer and **MAY** log it.

- Items **MUST NOT** be empty.

` + "```json\n{\"a\": \"**MUST**\"}\n```" + `

| a | b **REQUIRED** |
`)
	occ := Scan("basic/example", src)
	if len(occ) != 5 {
		t.Fatalf("want 5 keywords (MUST, SHOULD, MAY, MUST NOT, REQUIRED; none from the code block), got %d: %+v", len(occ), occ)
	}
	if occ[0].Section != "Top > Part one" || occ[0].Line != 9 {
		t.Errorf("first keyword: want section %q line 9, got %q line %d", "Top > Part one", occ[0].Section, occ[0].Line)
	}
	if occ[1].Hash != occ[2].Hash || occ[1].Count != 2 || occ[2].Index != 2 {
		t.Errorf("SHOULD and MAY share one sentence: want same hash, count 2, second index 2; got %+v %+v", occ[1], occ[2])
	}
	if occ[0].Hash == occ[1].Hash {
		t.Errorf("two sentences must not share a fingerprint")
	}
	if got := occ[2].Ref(); got != "basic/example#"+occ[2].Hash+":2" {
		t.Errorf("ref of second keyword in a sentence: got %q", got)
	}
	if got := occ[0].Ref(); got != "basic/example#"+occ[0].Hash {
		t.Errorf("ref of only keyword in a sentence: got %q", got)
	}
	if occ[3].Keyword.Level() != "MUST NOT" || occ[4].Keyword.Level() != "MUST" {
		t.Errorf("levels: got %q %q", occ[3].Keyword.Level(), occ[4].Keyword.Level())
	}
}

func TestNormalizeMatchesRenderedText(t *testing.T) {
	md := "The server **MUST NOT** write anything to its `stdout` that is not a [valid](/x) _MCP_ message, e.g. logs."
	rendered := "The server **MUST NOT** write anything to its stdout that is not a valid MCP message, e.g. logs."
	if Normalize(md) != Normalize(rendered) {
		t.Fatalf("markdown and rendered text must normalize alike:\n%q\n%q", Normalize(md), Normalize(rendered))
	}
	if got := Normalize("keep list_changed and server’s"); got != "keep list_changed and server's" {
		t.Fatalf("identifiers keep underscores and quotes fold to ASCII: got %q", got)
	}
}

func TestSplitKeepsAbbreviations(t *testing.T) {
	got := splitSentences("Use a header, e.g. Foo. Then stop. Next")
	if len(got) != 3 {
		t.Fatalf("want 3 sentences, got %d: %q", len(got), got)
	}
}
