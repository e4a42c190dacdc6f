package auth

import (
	"net/http"
	"strings"
)

// challenge is the Bearer challenge of a WWW-Authenticate header.
type challenge struct {
	ResourceMetadata string
	Scope            []string
	Error            string
}

// parseChallenge reads the Bearer challenge of the WWW-Authenticate
// headers (RFC 6750, RFC 9728): auth-params with quoted or token values.
func parseChallenge(h http.Header) challenge {
	var ch challenge
	for _, v := range h.Values("WWW-Authenticate") {
		params, ok := bearerParams(v)
		if !ok {
			continue
		}
		ch.ResourceMetadata = params["resource_metadata"]
		ch.Scope = strings.Fields(params["scope"])
		ch.Error = params["error"]
		return ch
	}
	return ch
}

// bearerParams returns the parameters of the Bearer challenge in v.
func bearerParams(v string) (map[string]string, bool) {
	s := v
	for {
		s = strings.TrimLeft(s, " ,")
		if s == "" {
			return nil, false
		}
		scheme := s
		if i := strings.IndexAny(s, " ,"); i >= 0 {
			scheme = s[:i]
		}
		rest := strings.TrimPrefix(s, scheme)
		params, tail := parseParams(rest)
		if strings.EqualFold(scheme, "Bearer") {
			return params, true
		}
		s = tail
	}
}

// parseParams reads name=value pairs until something that is not one
// (the next challenge's scheme); it returns the pairs and the rest.
func parseParams(s string) (map[string]string, string) {
	out := map[string]string{}
	for {
		t := strings.TrimLeft(s, " ,")
		eq := strings.IndexByte(t, '=')
		if eq <= 0 || strings.ContainsAny(t[:eq], " \t\"") {
			return out, t
		}
		name := strings.ToLower(strings.TrimSpace(t[:eq]))
		t = strings.TrimLeft(t[eq+1:], " ")
		var val string
		if strings.HasPrefix(t, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(t); i++ {
				c := t[i]
				if c == '\\' && i+1 < len(t) {
					i++
					b.WriteByte(t[i])
					continue
				}
				if c == '"' {
					break
				}
				b.WriteByte(c)
			}
			val = b.String()
			if i < len(t) {
				i++
			}
			t = t[i:]
		} else {
			end := strings.IndexAny(t, " ,")
			if end < 0 {
				end = len(t)
			}
			val, t = t[:end], t[end:]
		}
		out[name] = val
		s = t
	}
}
