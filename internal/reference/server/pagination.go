package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Cursors are opaque to clients: base64url of "kind|lastKey|mac", where mac
// is a truncated HMAC under the server's key. A cursor names the last item
// of the previous page, so it stays valid (and stable) when items are added
// or removed; lists are sorted by key.

func (s *Server) cursorMAC(kind, key string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("cursor|" + kind + "|" + key))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:9])
}

func (s *Server) makeCursor(kind, lastKey string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + "|" + lastKey + "|" + s.cursorMAC(kind, lastKey)))
}

// parseCursor returns the last key a cursor names, or an error for a cursor
// this server did not issue for this list.
func (s *Server) parseCursor(kind, cursor string) (string, error) {
	bad := invalidParams("Invalid cursor %q for %s: pass back exactly the nextCursor of the previous page, or none for the first page", cursor, kind)
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", bad
	}
	parts := strings.Split(string(b), "|")
	if len(parts) != 3 || parts[0] != kind || !hmac.Equal([]byte(parts[2]), []byte(s.cursorMAC(kind, parts[1]))) {
		return "", bad
	}
	return parts[1], nil
}

// paginate returns the page of items (sorted by key) after cursor and the
// cursor of the next page ("" when this is the last one).
func paginate[T any](s *Server, kind string, items []T, key func(T) string, cursor string) ([]T, string, error) {
	start := 0
	if cursor != "" {
		last, err := s.parseCursor(kind, cursor)
		if err != nil {
			if !s.faults.on(FaultInvalidCursorAccepted) {
				return nil, "", err
			}
		} else {
			start = len(items)
			for i, it := range items {
				if key(it) > last {
					start = i
					break
				}
			}
		}
	}
	end := start + s.opts.PageSize
	if end >= len(items) {
		return append([]T{}, items[start:]...), "", nil
	}
	page := append([]T{}, items[start:end]...)
	return page, s.makeCursor(kind, key(items[s.faultCursorEnd(end)-1])), nil
}
