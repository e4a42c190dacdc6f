package reports

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/spec"
)

// badgeTemplate is parsed when first used.
var badgeTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("badge").Parse(`<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="20" role="img" aria-label="{{.Label}}: {{.Value}}">
<title>{{.Label}}: {{.Value}}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="{{.Width}}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="{{.LabelWidth}}" height="20" fill="#555"/><rect x="{{.LabelWidth}}" width="{{.ValueWidth}}" height="20" fill="{{.Color}}"/><rect width="{{.Width}}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="{{.LabelX}}" y="15" fill="#010101" fill-opacity=".3">{{.Label}}</text><text x="{{.LabelX}}" y="14">{{.Label}}</text>
<text x="{{.ValueX}}" y="15" fill="#010101" fill-opacity=".3">{{.Value}}</text><text x="{{.ValueX}}" y="14">{{.Value}}</text>
</g>
</svg>
`))
})

type badgeView struct {
	Label, Value, Color           string
	Width, LabelWidth, ValueWidth int
	LabelX, ValueX                float64
}

// BadgeColor picks a badge colour for a MUST pass rate: bright green at
// 100%, green from 95%, yellow from 80%, orange from 50%, red below, grey
// when nothing was judged.
func BadgeColor(r Rate) string {
	v, ok := r.Value()
	switch {
	case !ok:
		return "#9f9f9f"
	case r.Broken == 0:
		return "#4c1"
	case v >= 0.95:
		return "#97ca00"
	case v >= 0.80:
		return "#dfb317"
	case v >= 0.50:
		return "#fe7d37"
	}
	return "#e05d44"
}

// WriteBadge writes an SVG badge such as "MCP 2025-11-25 | MUST 100%" for
// one protocol version: Options.BadgeVersion, or the newest version in the
// run. The colour follows the MUST pass rate (BadgeColor); a version where
// nothing was judged reads "MUST n/a" in grey, and a run that is no
// verdict on its target (Judgement.Unjudged: Run.Unjudged, harness
// problems, an interruption) reads "not judged" in grey, whatever its
// rate. Text is escaped.
func WriteBadge(w io.Writer, run *Run, opts Options) error {
	run, err := Prepare(run, opts)
	if err != nil {
		return err
	}
	sum := Summarize(run)
	want := spec.Version(opts.BadgeVersion)
	var vs *VersionSummary
	for i := range sum.Versions {
		s := &sum.Versions[i]
		if want != "" && s.Version == want || want == "" && (vs == nil || s.Version.Compare(vs.Version) > 0) {
			vs = s
		}
	}
	if vs == nil {
		if want != "" {
			return fmt.Errorf("badge: the run has no results for protocol version %s; pick one of the versions it tested", want)
		}
		vs = &VersionSummary{}
	}
	label := strings.TrimSpace("MCP " + printable(string(vs.Version)))
	if run.Target.Role != "" && run.Target.Role != "server" {
		// A client's badge says so; a server's keeps the short label.
		label = strings.TrimSpace("MCP " + printable(run.Target.Role) + " " + printable(string(vs.Version)))
	}
	value, color := "MUST "+vs.Must.Percent(), BadgeColor(vs.Must)
	if Verdict(run).Unjudged != "" {
		value, color = "not judged", BadgeColor(Rate{})
	}
	v := badgeView{Label: label, Value: value, Color: color}
	v.LabelWidth = textWidth(label) + 10
	v.ValueWidth = textWidth(value) + 10
	v.Width = v.LabelWidth + v.ValueWidth
	v.LabelX = float64(v.LabelWidth) / 2
	v.ValueX = float64(v.LabelWidth) + float64(v.ValueWidth)/2
	if err := badgeTemplate().Execute(w, v); err != nil {
		return fmt.Errorf("write badge: %w", err)
	}
	return nil
}

// textWidth estimates the width of s in 11px Verdana, in pixels.
func textWidth(s string) int { return utf8.RuneCountInString(s)*7 + 2 }
