package mcp

import (
	"encoding/json"
	"fmt"
)

// LoggingLevel is a syslog severity (RFC 5424) used by logging (all
// versions).
type LoggingLevel string

// The eight levels, least severe first.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

// LoggingLevels lists the levels, least severe first.
var LoggingLevels = []LoggingLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}

// Severity is the level's rank: 0 for debug up to 7 for emergency, or -1
// when l is not a level.
func (l LoggingLevel) Severity() int {
	for i, w := range LoggingLevels {
		if w == l {
			return i
		}
	}
	return -1
}

// Valid reports whether l is one of the eight levels.
func (l LoggingLevel) Valid() bool { return l.Severity() >= 0 }

// Compare orders levels by severity: -1 when l is less severe than m, 0 when
// equal, +1 when more severe. Unknown levels sort below debug.
func (l LoggingLevel) Compare(m LoggingLevel) int {
	a, b := l.Severity(), m.Severity()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// AtLeast reports whether a message at level l passes a minimum level min:
// both must be valid and l must be at least as severe as min.
func (l LoggingLevel) AtLeast(min LoggingLevel) bool {
	return l.Valid() && min.Valid() && l.Severity() >= min.Severity()
}

// ParseLoggingLevel returns the level named s, or an error listing the
// levels.
func ParseLoggingLevel(s string) (LoggingLevel, error) {
	l := LoggingLevel(s)
	if !l.Valid() {
		return "", fmt.Errorf("mcp: %q is not a logging level; use one of %v", s, LoggingLevels)
	}
	return l, nil
}

// SetLevelParams is the params of logging/setLevel (2024-11-05 through
// 2025-11-25; 2026-07-28 sets the level per request in _meta).
type SetLevelParams struct {
	Meta  Meta         `json:"_meta,omitzero"`
	Level LoggingLevel `json:"level"`
}

// LoggingMessageParams is the params of notifications/message (all
// versions).
type LoggingMessageParams struct {
	Meta   Meta         `json:"_meta,omitzero"`
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	// Data is any JSON value, null included; it is required. A nil Data is
	// left out, a JSON null is kept.
	Data json.RawMessage `json:"data,omitempty"`
}
