package toolpolicy

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Arguments mcpcheck generates never consent: a tool that gates what it
// does behind a confirmation ("confirm": true, "acknowledgement": "Y")
// must not be talked into it by a generator that picks the first enum
// value. A property whose name asks for consent gets false, 0 or a value
// that does not read as yes; a value that reads as consent is never
// generated anywhere; a property that makes a call safer (dry_run,
// preview) is set when the schema allows it. Arguments a user gives
// (--tool-args) are used as written.

// consentWords are the words of a property name that ask for consent or
// confirmation (matched against each word of the name, as a prefix).
var consentWords = []string{
	"confirm", "acknowledg", "ack", "consent", "approv", "agree", "accept", "force",
	"overwrite", "proceed", "authoriz", "authoris", "understand", "understood",
	"yes", "sure", "really", "danger", "unsafe", "iknow", "permit",
}

// consentExact are words that ask for consent only as whole words (as
// prefixes they would match too much: "allowedOrigins", "okta").
var consentExact = map[string]bool{"allow": true, "ok": true, "okay": true, "y": true, "go": true}

// safetyWords are the words of a boolean property name whose true makes a
// call do less: a dry run, a preview.
var safetyWords = [][]string{{"dry"}, {"dryrun"}, {"preview"}, {"simulate"}, {"validate", "only"}, {"check", "only"}, {"plan", "only"}, {"noop"}, {"what", "if"}}

// consentValues are the string values that read as consent, normalised
// (lower case, letters and digits only).
var consentValues = map[string]bool{
	"y": true, "yes": true, "yeah": true, "yep": true, "true": true, "on": true, "ok": true, "okay": true,
	"confirm": true, "confirmed": true, "iconfirm": true, "acknowledge": true, "acknowledged": true,
	"iacknowledge": true, "accept": true, "accepted": true, "iaccept": true, "approve": true, "approved": true,
	"agree": true, "agreed": true, "iagree": true, "allow": true, "allowed": true, "force": true, "forced": true,
	"proceed": true, "sure": true, "iunderstand": true, "understood": true, "consent": true, "iconsent": true,
	"doit": true, "go": true,
}

// consentStems are parts of a longer string value that make it read as
// consent ("CONFIRM_DELETE", "I acknowledge the risk").
var consentStems = []string{"confirm", "acknowledg", "consent", "iunderstand", "iagree", "iaccept", "approve"}

// riskyValues are enum values that name a destructive action; the
// generator picks another value of the enum when there is one.
var riskyValues = []string{"delete", "remove", "drop", "destroy", "purge", "wipe", "erase", "reset", "kill",
	"truncate", "overwrite", "force", "clean", "clear", "prune", "uninstall", "shutdown", "terminate", "revoke", "rm"}

// words splits a property name into lower-case words: camelCase,
// snake_case, kebab-case and digits all split.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// ConsentName reports whether a property named name asks for consent or
// confirmation (confirm, acknowledgement, force, yesIAmSure, really...).
func ConsentName(name string) bool {
	for _, w := range words(name) {
		if consentExact[w] {
			return true
		}
		for _, c := range consentWords {
			if strings.HasPrefix(w, c) {
				return true
			}
		}
	}
	return false
}

// SafetyName reports whether a boolean property named name makes a call
// do less when true (dry_run, dryRun, preview, validateOnly).
func SafetyName(name string) bool {
	ws := words(name)
	for _, want := range safetyWords {
		for i := 0; i+len(want) <= len(ws); i++ {
			match := true
			for j, w := range want {
				if ws[i+j] != w {
					match = false
					break
				}
			}
			if match {
				return true
			}
		}
	}
	return false
}

func normal(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ConsentString reports whether a string value reads as consent ("Y",
// "yes", "confirm", "I understand", "CONFIRM_DELETE").
func ConsentString(s string) bool {
	n := normal(s)
	if consentValues[n] {
		return true
	}
	for _, st := range consentStems {
		if strings.Contains(n, st) {
			return true
		}
	}
	return false
}

// Consents reports whether v, the value of a property that asks for
// consent when consentNamed, reads as consent: a consent string anywhere;
// and for such a property also true or a number other than 0.
func Consents(v any, consentNamed bool) bool {
	switch x := v.(type) {
	case string:
		if consentNamed {
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return f != 0
			}
		}
		return ConsentString(x)
	case json.RawMessage:
		var d any
		if json.Unmarshal(x, &d) != nil {
			return false
		}
		return Consents(d, consentNamed)
	case bool:
		return consentNamed && x
	case float64:
		return consentNamed && x != 0
	case int64:
		return consentNamed && x != 0
	case int:
		return consentNamed && x != 0
	case json.Number:
		f, err := x.Float64()
		return consentNamed && err == nil && f != 0
	}
	return false
}

// Risky reports whether an enum value names a destructive action
// ("delete", "force-push", "reset").
func Risky(v any) bool {
	if raw, ok := v.(json.RawMessage); ok {
		var d any
		if json.Unmarshal(raw, &d) != nil {
			return false
		}
		v = d
	}
	s, ok := v.(string)
	if !ok {
		return false
	}
	for _, w := range words(s) {
		for _, r := range riskyValues {
			if w == r || strings.HasPrefix(w, r) && len(r) > 3 {
				return true
			}
		}
	}
	return false
}

// FindConsent walks generated arguments (decoded JSON) and returns the
// path of the first value that consents ("confirm", "options.force"), or
// "" when none does.
func FindConsent(v any) string {
	return findConsent(v, "", false)
}

func findConsent(v any, path string, named bool) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if found := findConsent(x[k], p, named || ConsentName(k)); found != "" {
				return found
			}
		}
	case []any:
		for i, e := range x {
			if found := findConsent(e, fmt.Sprintf("%s[%d]", path, i), named); found != "" {
				return found
			}
		}
	default:
		if Consents(v, named) {
			if path == "" {
				return "(the arguments)"
			}
			return path
		}
	}
	return ""
}

// Defuse rewrites generated arguments in place so that none consents: a
// property that asks for consent gets false, 0 or "no"; a consent string
// elsewhere becomes "mcpcheck"; a boolean safety property (dry_run) gets
// true. The fuzzer's tool calls use it: their values are random, and
// only their shape matters.
func Defuse(v any) any {
	return defuse(v, false)
}

func defuse(v any, named bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if _, ok := e.(bool); ok && SafetyName(k) {
				x[k] = true
				continue
			}
			x[k] = defuse(e, named || ConsentName(k))
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = defuse(e, named)
		}
		return x
	}
	if !Consents(v, named) {
		return v
	}
	switch v.(type) {
	case bool:
		return false
	case string:
		if named {
			return "no"
		}
		return "mcpcheck"
	default:
		return 0
	}
}
