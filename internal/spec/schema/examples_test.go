package schema

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// specExample is one ```json block of a spec page, decoded.
type specExample struct {
	where string // page:line
	value any
}

var jsonFence = regexp.MustCompile("(?s)```json[^\n]*\n(.*?)```")

// specExamples extracts every ```json block that parses as JSON from the
// .mdx pages under dir, in a stable order. Nothing is stored: the blocks
// are read at test time from the reference material.
func specExamples(dir string) ([]specExample, int, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".mdx") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	sort.Strings(files)
	var out []specExample
	unparsable := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, err
		}
		rel, _ := filepath.Rel(dir, f)
		for _, m := range jsonFence.FindAllSubmatchIndex(b, -1) {
			body := b[m[2]:m[3]]
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
			if err != nil {
				unparsable++
				continue
			}
			line := bytes.Count(b[:m[0]], []byte("\n")) + 1
			out = append(out, specExample{where: fmt.Sprintf("%s:%d", rel, line), value: v})
		}
	}
	return out, unparsable, nil
}

// resultHints recognise a result by a member only that result has, for
// examples whose request is not on the same page.
var resultHints = []struct{ member, method string }{
	{"tools", "tools/list"},
	{"prompts", "prompts/list"},
	{"resourceTemplates", "resources/templates/list"},
	{"resources", "resources/list"},
	{"contents", "resources/read"},
	{"completion", "completion/complete"},
	{"roots", "roots/list"},
	{"supportedVersions", "server/discover"},
	{"protocolVersion", "initialize"},
	{"action", "elicitation/create"},
	{"model", "sampling/createMessage"},
	{"messages", "prompts/get"},
	{"content", "tools/call"},
	{"tasks", "tasks/list"},
	{"inputRequests", "tools/call"},
}

func idKey(v any) string { return fmt.Sprintf("%T:%v", v, v) }
