package rules

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// TaskPayload is a task as a peer sent it, kept loose so that every field
// can be judged: a taskId of the wrong type, a timestamp that does not
// parse, a ttl that is missing rather than null.
type TaskPayload struct {
	TaskID        json.RawMessage `json:"taskId"`
	Status        string          `json:"status"`
	CreatedAt     *string         `json:"createdAt"`
	LastUpdatedAt *string         `json:"lastUpdatedAt"`
	TTL           json.RawMessage `json:"ttl"`
	PollInterval  json.RawMessage `json:"pollInterval"`
	// HasTTL reports whether the ttl member was present at all (null
	// counts as present).
	HasTTL bool `json:"-"`
}

// DecodeTask decodes a task payload; false when raw is not a JSON object.
func DecodeTask(raw json.RawMessage) (TaskPayload, bool) {
	var w TaskPayload
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m == nil || json.Unmarshal(raw, &w) != nil {
		return TaskPayload{}, false
	}
	_, w.HasTTL = m["ttl"]
	return w, true
}

// CreatedTask returns the task of a CreateTaskResult; false when the
// result has no task object.
func CreatedTask(result json.RawMessage) (TaskPayload, bool) {
	var r struct {
		Task json.RawMessage `json:"task"`
	}
	if json.Unmarshal(result, &r) != nil || len(r.Task) == 0 || string(r.Task) == "null" {
		return TaskPayload{}, false
	}
	return DecodeTask(r.Task)
}

// ID returns the taskId when it is a non-empty JSON string.
func (w TaskPayload) ID() (string, bool) {
	var s string
	return s, json.Unmarshal(w.TaskID, &s) == nil && s != ""
}

// Poll returns pollInterval in milliseconds, when it is a positive integer.
func (w TaskPayload) Poll() (int64, bool) {
	var n int64
	return n, len(w.PollInterval) > 0 && json.Unmarshal(w.PollInterval, &n) == nil && n > 0
}

// TTLValid reports whether the payload states a ttl: milliseconds or null.
func (w TaskPayload) TTLValid() bool {
	var n int64
	return w.HasTTL && (string(w.TTL) == "null" || json.Unmarshal(w.TTL, &n) == nil)
}

// RelatedTask returns the taskId named by the related-task entry of an
// object's _meta (params or result), and whether the entry is there.
func RelatedTask(obj json.RawMessage) (string, bool) {
	var o struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(obj, &o) != nil {
		return "", false
	}
	raw, ok := o.Meta[mcp.MetaRelatedTask]
	if !ok {
		return "", false
	}
	var r struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.TaskID, true
}

// TaskTime parses a task timestamp as RFC 3339 reads it: besides Go's
// layout it takes a lower-case t or z, and a space between date and time.
func TaskTime(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	n := strings.ToUpper(s)
	if len(n) > 10 && n[10] == ' ' {
		n = n[:10] + "T" + n[11:]
	}
	t, err := time.Parse(time.RFC3339Nano, n)
	return t, err == nil
}

// DigitsOnly reports whether s is empty or only ASCII digits: what is
// left of two task ids that differ only in a counter.
func DigitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// OrAbsent renders a raw member for a report: "absent" when it was not
// there.
func OrAbsent(raw json.RawMessage, present bool) string {
	if !present {
		return "absent"
	}
	return string(raw)
}
