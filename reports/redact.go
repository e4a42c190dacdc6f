package reports

import (
	"encoding/base64"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Redacted replaces every secret value Redact removes.
const Redacted = "[REDACTED]"

// SecretHeaders are the header names whose values are always redacted.
// Names are matched without regard to case.
var SecretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key"}

// secretKeys are JSON member names (lower-cased, with '_' and '-' removed)
// whose string values are secrets. "progressToken" and friends are protocol
// fields and stay visible.
var secretKeys = map[string]bool{
	"accesstoken": true, "refreshtoken": true, "idtoken": true, "token": true,
	"clientsecret": true, "secret": true, "password": true, "passwd": true,
	"apikey": true, "authorization": true, "cookie": true, "codeverifier": true,
	"subjecttoken": true, "actortoken": true, "clientassertion": true,
	"privatekey": true, "sessiontoken": true, "bearertoken": true,
}

func secretKey(name string) bool {
	name = strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	return secretKeys[name]
}

// redactPatterns are the patterns redaction looks for, compiled when first
// used (not at every process start).
type redactPatterns struct {
	jsonMemberRE        *regexp.Regexp
	escapedJSONMemberRE *regexp.Regexp
	schemeRE            *regexp.Regexp
	assignRE            *regexp.Regexp
	flagRE              *regexp.Regexp
	headerLineRE        *regexp.Regexp
	userinfoRE          *regexp.Regexp
}

var redactRE = sync.OnceValue(func() redactPatterns {
	return redactPatterns{
		// "key": "value" in JSON, and \"key\": \"value\" inside a JSON string.
		jsonMemberRE:        regexp.MustCompile(`"([A-Za-z0-9_\-]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"`),
		escapedJSONMemberRE: regexp.MustCompile(`\\"([A-Za-z0-9_\-]{1,64})\\"(\s*:\s*)\\"((?:[^"\\]|\\[^"])*)\\"`),
		// Bearer and Basic credentials in free text.
		schemeRE: regexp.MustCompile(`\b([Bb]earer|BEARER|Basic)(\s+)([A-Za-z0-9\-._~+/]+=*)`),
		// key=value in query strings, form bodies and environment assignments,
		// when the key ends in a secret-sounding word.
		assignRE: regexp.MustCompile(`(?i)((?:^|[^A-Za-z0-9_\-])[A-Za-z0-9_\-]*(?:token|secret|password|passwd|api[_\-]?key|apikey|code_verifier|client_assertion))=("[^"]*"|'[^']*'|[^\s&"',;]+)`),
		// --token VALUE style flags on command lines.
		flagRE: regexp.MustCompile(`(?i)((?:^|\s)--?[A-Za-z0-9\-]*(?:token|secret|password|passwd|api-?key|apikey))(\s+)("[^"]*"|'[^']*'|[^\s"']+)`),
		// Header lines inside raw text ("Authorization: Bearer x").
		headerLineRE: regexp.MustCompile(`(?im)^([A-Za-z0-9\-]{1,64})(:[ \t]*)([^\r\n]*)`),
		// user:password@ in URLs.
		userinfoRE: regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]*):([^/\s@]+)@`),
	}
})

// redactor removes secrets from text; headers holds the lower-cased names of
// headers whose values are secrets.
type redactor struct {
	headers map[string]bool
	names   []string // the keys of headers, sorted
	secrets []string // literal values, longest first
}

// Redaction configures Redact beyond its built-in rules.
type Redaction struct {
	// Headers are more header names whose values are secrets (the names of
	// --header flags), matched without regard to case.
	Headers []string `json:"-"`
	// Secrets are literal values to remove wherever they appear (the values
	// of --header flags, tokens the caller handed the harness). Values
	// shorter than 4 bytes are ignored: they would shred unrelated text.
	Secrets []string `json:"-"`
}

func newRedactor(cfg Redaction) *redactor {
	r := &redactor{headers: map[string]bool{}}
	for _, h := range append(append([]string(nil), SecretHeaders...), cfg.Headers...) {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" && !r.headers[h] {
			r.headers[h] = true
			r.names = append(r.names, h)
		}
	}
	sort.Strings(r.names)
	for _, v := range cfg.Secrets {
		if len(v) >= 4 && v != Redacted {
			r.secrets = append(r.secrets, v)
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool {
		if len(r.secrets[i]) != len(r.secrets[j]) {
			return len(r.secrets[i]) > len(r.secrets[j])
		}
		return r.secrets[i] < r.secrets[j]
	})
	return r
}

// text redacts secrets in a free-text string: JSON members with secret names,
// credentials after an auth scheme, secret key=value assignments, secret
// header lines and URL passwords.
func (r *redactor) text(s string) string {
	if s == "" {
		return s
	}
	// Cheap checks first: most messages hold nothing secret, and the
	// regular expressions are only run when their keywords occur.
	re := redactRE()
	lower := strings.ToLower(s)
	secretWord := containsAny(lower, secretWords)
	header := containsAny(lower, r.names)
	if (secretWord || header) && strings.Contains(s, `"`) {
		s = re.jsonMemberRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := re.jsonMemberRE.FindStringSubmatch(m)
			if !secretKey(sub[1]) && !r.headers[strings.ToLower(sub[1])] {
				return m
			}
			return `"` + sub[1] + `"` + sub[2] + `"` + Redacted + `"`
		})
		if strings.Contains(s, `\"`) {
			s = re.escapedJSONMemberRE.ReplaceAllStringFunc(s, func(m string) string {
				sub := re.escapedJSONMemberRE.FindStringSubmatch(m)
				if !secretKey(sub[1]) && !r.headers[strings.ToLower(sub[1])] {
					return m
				}
				return `\"` + sub[1] + `\"` + sub[2] + `\"` + Redacted + `\"`
			})
		}
	}
	if header && strings.Contains(s, ":") {
		s = re.headerLineRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := re.headerLineRE.FindStringSubmatch(m)
			if !r.headers[strings.ToLower(sub[1])] {
				return m
			}
			return sub[1] + sub[2] + Redacted
		})
	}
	if strings.Contains(lower, "bearer") || strings.Contains(s, "Basic") {
		s = redactSchemes(re.schemeRE, s)
	}
	if secretWord && strings.Contains(s, "=") {
		s = re.assignRE.ReplaceAllString(s, "${1}="+Redacted)
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = re.userinfoRE.ReplaceAllString(s, "${1}:"+Redacted+"@")
	}
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, Redacted)
	}
	return s
}

// redactSchemes replaces the credential after each "Bearer" or "Basic"
// schemeRE finds in s, but for prose ("a forged bearer token") and for the
// auth-params of a challenge ("Bearer resource_metadata=\"…\"", "Bearer
// error=invalid_token"): a token68 credential ends its header value or
// list item, so "name=" followed by a value is a parameter, not a
// credential.
func redactSchemes(schemeRE *regexp.Regexp, s string) string {
	var b strings.Builder
	last := 0
	for _, m := range schemeRE.FindAllStringSubmatchIndex(s, -1) {
		cred := s[m[6]:m[7]]
		if proseAfterScheme[strings.ToLower(cred)] {
			continue // "a forged bearer token", "a Bearer challenge": prose, not a credential
		}
		if strings.HasSuffix(cred, "=") && m[7] < len(s) && !strings.ContainsRune(" \t\r\n,;)", rune(s[m[7]])) {
			continue // an auth-param of a challenge: name=value
		}
		b.WriteString(s[last:m[6]])
		b.WriteString(Redacted)
		last = m[7]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// proseAfterScheme are words that follow "Bearer" or "Basic" in sentences
// about authentication rather than in a credential; they are left as they
// are so that check titles and messages stay readable.
var proseAfterScheme = map[string]bool{
	"token": true, "tokens": true, "credential": true, "credentials": true, "scheme": true,
	"challenge": true, "challenges": true, "header": true, "auth": true, "authentication": true,
	"authorization": true, "and": true, "or": true, "the": true, "a": true, "an": true, "is": true,
	"with": true, "naming": true, "realm": true,
	// error codes of RFC 6750 that follow the scheme in prose about a
	// challenge ("a Bearer insufficient_scope challenge")
	"invalid_token": true, "insufficient_scope": true, "invalid_request": true,
}

// secretWords are lower-case fragments every secret-bearing pattern
// contains; text without any of them skips the costly patterns.
var secretWords = []string{"token", "secret", "passw", "passwd", "key", "authorization", "cookie", "verifier", "assertion"}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// command redacts a command line: what text() finds, --token VALUE flags,
// and "Name: value" for secret header names anywhere on the line (as in
// --header "X-Api-Key: v").
func (r *redactor) command(s string) string {
	s = r.text(s)
	s = redactRE().flagRE.ReplaceAllString(s, "${1}${2}"+Redacted)
	for _, name := range r.names {
		s = r.inlineHeader(s, name)
	}
	return s
}

// inlineHeader redacts "Name: value" where a configured header appears in
// the middle of a line, such as a command line's --header "X-Key: v".
func (r *redactor) inlineHeader(s, name string) string {
	lower := strings.ToLower(s)
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(lower[i:], name+":")
		if j < 0 {
			break
		}
		j += i
		end := j + len(name) + 1
		// Only whole names: the byte before must not continue a name.
		if j > 0 && isNameByte(lower[j-1]) {
			b.WriteString(s[i:end])
			i = end
			continue
		}
		for end < len(s) && (s[end] == ' ' || s[end] == '\t') {
			end++
		}
		stop := end
		for stop < len(s) && !strings.ContainsRune("\"'\r\n", rune(s[stop])) {
			stop++
		}
		b.WriteString(s[i:end])
		if stop > end {
			b.WriteString(Redacted)
		}
		i = stop
	}
	if i == 0 {
		return s
	}
	b.WriteString(s[i:])
	return b.String()
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9')
}

// url redacts a URL: the password of its userinfo and the values of query
// parameters with secret-sounding names (both by text's rules, so the URL
// is not re-encoded).
func (r *redactor) url(s string) string { return r.text(s) }

// raw redacts a wire event's payload, decoding base64 first when needed.
func (r *redactor) raw(e *WireEvent) {
	if !e.Base64 {
		e.Raw = r.text(e.Raw)
		return
	}
	b, err := base64.StdEncoding.DecodeString(e.Raw)
	if err != nil {
		// Not decodable: it cannot be shown as bytes either; redact as text.
		e.Raw = r.text(e.Raw)
		return
	}
	e.Raw, e.Base64 = RawBytes([]byte(r.text(string(b))))
}

func (r *redactor) events(evs []WireEvent) []WireEvent {
	if evs == nil {
		return nil
	}
	out := make([]WireEvent, len(evs))
	for i, e := range evs {
		r.raw(&e)
		e.Note = r.text(e.Note)
		if e.HTTP != nil {
			h := *e.HTTP
			h.URL = r.url(h.URL)
			if h.Headers != nil {
				hs := make(map[string][]string, len(h.Headers))
				for k, vs := range h.Headers {
					nv := make([]string, len(vs))
					for j, v := range vs {
						if r.headers[strings.ToLower(k)] {
							nv[j] = Redacted
						} else {
							nv[j] = r.text(v)
						}
					}
					hs[k] = nv
				}
				h.Headers = hs
			}
			e.HTTP = &h
		}
		out[i] = e
	}
	return out
}

// Redact returns a deep copy of run with secrets replaced by "[REDACTED]":
// the values of SecretHeaders, of the target's HeaderNames and of
// cfg.Headers (matched without regard to case) in HTTP headers and in
// header lines of raw text; string values of JSON members named like
// access_token, refresh_token, id_token, client_secret, password, api_key or
// token, anywhere in transcripts and messages (also inside JSON-encoded
// strings); credentials after "Bearer" or "Basic"; secret-named key=value
// assignments (query strings, form bodies, --token flags, environment
// variables; --token VALUE flags in commands); URL passwords; and every
// literal in cfg.Secrets. Run itself is not modified. Every writer
// calls Redact first.
func Redact(run *Run, cfg Redaction) *Run {
	if run == nil {
		return nil
	}
	cfg.Headers = append(append([]string(nil), run.Target.HeaderNames...), cfg.Headers...)
	r := newRedactor(cfg)
	out := *run
	out.Target.Command = r.command(run.Target.Command)
	out.Target.URL = r.url(run.Target.URL)
	out.Target.HeaderNames = append([]string(nil), run.Target.HeaderNames...)
	out.Target.StderrTail = r.text(run.Target.StderrTail)
	out.Target.ExitStatus = r.text(run.Target.ExitStatus)
	out.LabelFilter = r.text(run.LabelFilter)
	out.SideEffects = r.sideEffects(run.SideEffects)
	if run.ToolPolicy != nil {
		tp := *run.ToolPolicy
		tp.Names = append([]string(nil), tp.Names...)
		tp.ArgsFor = append([]string(nil), tp.ArgsFor...)
		tp.ArgsFile = r.text(tp.ArgsFile)
		out.ToolPolicy = &tp
	}
	out.Unjudged = r.text(run.Unjudged)
	out.Selection = r.text(run.Selection)
	out.MissingShards = append([]string(nil), run.MissingShards...)
	if run.Problems != nil {
		out.Problems = make([]string, len(run.Problems))
		for i, p := range run.Problems {
			out.Problems[i] = r.text(p)
		}
	}
	out.Versions = append(out.Versions[:0:0], run.Versions...)
	if run.Checks != nil {
		out.Checks = make([]Check, len(run.Checks))
		for i, c := range run.Checks {
			c.Title = r.text(c.Title)
			c.Requirements = append([]string(nil), c.Requirements...)
			c.Violated = append([]string(nil), c.Violated...)
			c.Unexpected = append([]string(nil), c.Unexpected...)
			c.Expected = r.text(c.Expected)
			c.Actual = r.text(c.Actual)
			c.Reason = r.text(c.Reason)
			c.BaselineReason = r.text(c.BaselineReason)
			c.Transcript = r.events(c.Transcript)
			out.Checks[i] = c
		}
	}
	if run.Fuzz != nil {
		f := *run.Fuzz
		f.Samples = append([]ThroughputSample(nil), f.Samples...)
		if f.Findings != nil {
			f.Findings = make([]Finding, len(run.Fuzz.Findings))
			for i, fd := range run.Fuzz.Findings {
				fd.Requirements = append([]string(nil), fd.Requirements...)
				fd.Message = r.text(fd.Message)
				fd.Reproducer = r.command(fd.Reproducer)
				fd.Input = r.text(fd.Input)
				fd.Transcript = r.events(fd.Transcript)
				f.Findings[i] = fd
			}
		}
		out.Fuzz = &f
	}
	if run.Baseline != nil {
		b := *run.Baseline
		b.Stale = make([]Stale, len(run.Baseline.Stale))
		for i, s := range run.Baseline.Stale {
			s.Entry.Reason = r.text(s.Entry.Reason)
			b.Stale[i] = s
		}
		if run.Baseline.Stale == nil {
			b.Stale = nil
		}
		if run.Baseline.Legacy != nil {
			b.Legacy = make([]BaselineEntry, len(run.Baseline.Legacy))
			for i, e := range run.Baseline.Legacy {
				e.Reason = r.text(e.Reason)
				b.Legacy[i] = e
			}
		}
		out.Baseline = &b
	}
	if run.Requirements != nil {
		out.Requirements = make(map[string]Requirement, len(run.Requirements))
		for k, v := range run.Requirements {
			out.Requirements[k] = v
		}
	}
	return &out
}
