package server

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

func levelRank(l mcp.LoggingLevel) int {
	for i, x := range mcp.LoggingLevels {
		if x == l {
			return i
		}
	}
	return -1
}

// setLevel serves logging/setLevel: it sets the session's threshold.
func setLevel(r *request) (any, error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	l, err := mcp.ParseLoggingLevel(p.Level)
	if err != nil {
		if !r.srv.faults.on(FaultBadLogLevelAccepted) {
			return nil, invalidParams("Invalid log level %q: use one of debug, info, notice, warning, error, critical, alert, emergency", p.Level)
		}
		l = mcp.LevelDebug
	}
	r.s.mu.Lock()
	r.s.logLevel = l
	r.s.mu.Unlock()
	return struct{}{}, nil
}

// logAllowed reports whether a log message of level may be sent for r:
// stateful sessions filter by the level set with logging/setLevel (all
// levels before that); stateless requests get logs only when their _meta
// names a level.
func (r *request) logAllowed(level mcp.LoggingLevel) bool {
	if r.stateless() {
		if r.logLevel == "" {
			return r.srv.faults.on(FaultLogWithoutLevel)
		}
		return levelRank(level) >= levelRank(r.logLevel)
	}
	if r.s == nil {
		return false
	}
	r.s.mu.Lock()
	th := r.s.logLevel
	r.s.mu.Unlock()
	return th == "" || levelRank(level) >= levelRank(th)
}

// rawJSON marshals v, for log data and similar members.
func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
