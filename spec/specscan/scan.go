// Package specscan finds the normative keywords (MUST, SHOULD, MAY and their
// family, in bold as the MCP pages write them) in a specification page and
// ties each to a stable fingerprint of the sentence it stands in.
//
// The fingerprint lets the requirement catalog point at a statement without
// quoting it and without depending on its position: a sentence that is
// unchanged between versions keeps its fingerprint, so one catalog record
// can cover it in every version it appears in.
package specscan

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Keyword is a BCP 14 keyword as written on a page.
type Keyword string

// Level folds a keyword onto the five levels the catalog uses: MUST, MUST
// NOT, SHOULD, SHOULD NOT and MAY (REQUIRED and SHALL are MUST, RECOMMENDED
// is SHOULD, NOT RECOMMENDED is SHOULD NOT, OPTIONAL is MAY).
func (k Keyword) Level() string {
	switch k {
	case "MUST", "REQUIRED", "SHALL":
		return "MUST"
	case "MUST NOT", "SHALL NOT":
		return "MUST NOT"
	case "SHOULD", "RECOMMENDED":
		return "SHOULD"
	case "SHOULD NOT", "NOT RECOMMENDED":
		return "SHOULD NOT"
	case "MAY", "OPTIONAL":
		return "MAY"
	}
	return ""
}

// Occurrence is one bold keyword on a page.
type Occurrence struct {
	Page     string  // page path without extension, e.g. "basic/lifecycle"
	Section  string  // heading path, e.g. "Lifecycle Phases > Initialization"
	Line     int     // 1-based line where the sentence starts
	Keyword  Keyword // as written
	Index    int     // 1-based position of this keyword within its sentence
	Count    int     // number of keywords in the sentence
	Hash     string  // fingerprint of the normalized sentence (8 hex digits)
	Sentence string  // the normalized sentence; for display by tools, never stored
}

// Ref is the catalog's reference to this occurrence: "page#hash" when the
// sentence holds one keyword, "page#hash:N" otherwise.
func (o Occurrence) Ref() string {
	if o.Count == 1 {
		return o.Page + "#" + o.Hash
	}
	return fmt.Sprintf("%s#%s:%d", o.Page, o.Hash, o.Index)
}

// SentenceRef is "page#hash", the reference that covers every keyword of the
// sentence at once.
func (o Occurrence) SentenceRef() string { return o.Page + "#" + o.Hash }

var keywordRE = lazyRE(`\*\*(MUST NOT|MUST|SHOULD NOT|SHOULD|REQUIRED|SHALL NOT|SHALL|NOT RECOMMENDED|RECOMMENDED|MAY|OPTIONAL)\*\*`)

// Scan returns every bold keyword of a page in document order. page names
// the page in references; src is its Markdown (MDX) source. Fenced code,
// front matter and HTML/JSX tags are ignored.
func Scan(page string, src []byte) []Occurrence {
	var out []Occurrence
	for _, b := range blocks(src) {
		for _, s := range splitSentences(b.text) {
			kws := keywordRE().FindAllStringSubmatch(s, -1)
			if len(kws) == 0 {
				continue
			}
			norm := Normalize(s)
			h := Fingerprint(norm)
			for i, m := range kws {
				out = append(out, Occurrence{
					Page: page, Section: b.section, Line: b.line,
					Keyword: Keyword(m[1]), Index: i + 1, Count: len(kws),
					Hash: h, Sentence: norm,
				})
			}
		}
	}
	return out
}

// Fingerprint hashes a normalized sentence to 8 hex digits.
func Fingerprint(normalized string) string {
	sum := sha256.Sum256([]byte(normalized))
	return hex.EncodeToString(sum[:4])
}

type block struct {
	text    string
	section string
	line    int
}

var (
	headingRE  = lazyRE(`^(#{1,6})\s+(.*)$`)
	listItemRE = lazyRE(`^\s*(?:[-*+]|\d+[.)])\s+`)
	tagLineRE  = lazyRE(`^\s*</?[A-Za-z][^>]*>\s*$`)
)

// blocks splits a page into paragraphs, list items and table rows, each with
// the heading path it sits under.
func blocks(src []byte) []block {
	var (
		out      []block
		cur      []string
		curLine  int
		headings []string
		inFence  bool
		fence    string
		lineNo   int
	)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, block{text: strings.Join(cur, " "), section: strings.Join(nonEmpty(headings), " > "), line: curLine})
			cur = nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	frontMatter := false
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimSpace(line)
		if lineNo == 1 && trimmed == "---" {
			frontMatter = true
			continue
		}
		if frontMatter {
			if trimmed == "---" {
				frontMatter = false
			}
			continue
		}
		if inFence {
			if strings.HasPrefix(trimmed, fence) {
				inFence = false
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			flush()
			inFence = true
			fence = trimmed[:3]
			continue
		}
		if trimmed == "" || tagLineRE().MatchString(trimmed) {
			flush()
			continue
		}
		if m := headingRE().FindStringSubmatch(trimmed); m != nil {
			flush()
			depth := len(m[1])
			for len(headings) < depth {
				headings = append(headings, "")
			}
			headings = headings[:depth]
			headings[depth-1] = cleanHeading(m[2])
			continue
		}
		if strings.HasPrefix(trimmed, "|") || listItemRE().MatchString(line) {
			flush()
			curLine = lineNo
			cur = append(cur, trimmed)
			if strings.HasPrefix(trimmed, "|") {
				flush()
			}
			continue
		}
		if len(cur) == 0 {
			curLine = lineNo
		}
		cur = append(cur, trimmed)
	}
	flush()
	return out
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func cleanHeading(s string) string {
	s = strings.ReplaceAll(s, "`", "")
	s = strings.ReplaceAll(s, "*", "")
	return strings.TrimSpace(s)
}

// splitSentences cuts a block at a full stop, question or exclamation mark
// that is followed by white space and a capital letter, digit or opening
// markup. Abbreviations such as "e.g." are followed by lower case and stay.
func splitSentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c != '.' && c != '?' && c != '!' {
			continue
		}
		j := i + 1
		for j < len(rs) && (rs[j] == '*' || rs[j] == '_' || rs[j] == ')' || rs[j] == '"' || rs[j] == '\'') {
			j++
		}
		if j >= len(rs) || !unicode.IsSpace(rs[j]) {
			continue
		}
		k := j
		for k < len(rs) && unicode.IsSpace(rs[k]) {
			k++
		}
		if k >= len(rs) {
			continue
		}
		n := rs[k]
		if unicode.IsUpper(n) || unicode.IsDigit(n) || n == '*' || n == '`' || n == '[' || n == '(' || n == '"' {
			if isAbbrev(rs[start:i]) {
				continue
			}
			out = append(out, strings.TrimSpace(string(rs[start:j])))
			start = k
			i = k - 1
		}
	}
	if rest := strings.TrimSpace(string(rs[start:])); rest != "" {
		out = append(out, rest)
	}
	return out
}

func isAbbrev(before []rune) bool {
	s := strings.ToLower(string(before))
	for _, a := range []string{" e.g", " i.e", " etc", " vs", "(e.g", "(i.e"} {
		if strings.HasSuffix(s, a) {
			return true
		}
	}
	return false
}

var (
	linkRE          = lazyRE(`!?\[([^\]]*)\]\([^)]*\)`)
	tagRE           = lazyRE(`</?[A-Za-z][^>]*>`)
	listRE          = lazyRE(`^(?:[-*+]|\d+[.)])\s+`)
	emphRE          = lazyRE(`(^|[^\pL\pN])_+|_+([^\pL\pN]|$)`)
	spaceRE         = lazyRE(`\s+`)
	markdownEscapes = strings.NewReplacer(`\_`, "_", `\*`, "*", "\\`", "`", `\[`, "[", `\]`, "]", `\|`, "|")
	unicodeRP       = strings.NewReplacer(
		"\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`,
		"\u2013", "-", "\u2014", "-", "\u00a0", " ", "\u2192", "->",
	)
)

// Normalize reduces a sentence to the form that is fingerprinted: markup,
// link targets, list markers and table pipes removed, typographic quotes and
// dashes folded to ASCII, white space collapsed, lower case. Text extracted
// from a rendered page and the page's Markdown source normalize alike.
func Normalize(s string) string {
	s = unicodeRP.Replace(s)
	s = markdownEscapes.Replace(s)
	s = strings.TrimSpace(s)
	s = listRE().ReplaceAllString(s, "")
	s = linkRE().ReplaceAllString(s, "$1")
	s = tagRE().ReplaceAllString(s, "")
	s = strings.NewReplacer("**", "", "`", "", "|", " ", "*", "").Replace(s)
	s = emphRE().ReplaceAllString(s, "$1$2")
	s = spaceRE().ReplaceAllString(s, " ")
	return strings.ToLower(strings.TrimSpace(s))
}

// lazyRE compiles expr when first used, not at every start of the binary
// (which is also the reference server a fuzz campaign starts thousands
// of times).
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
