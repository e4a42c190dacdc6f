package rules

import (
	"encoding/json"
	"testing"
)

func TestTaskTimeReadsRFC3339(t *testing.T) {
	for s, want := range map[string]bool{
		"2025-11-25T10:00:00Z":          true,
		"2025-11-25T10:00:00.123+02:00": true,
		"2025-11-25t10:00:00z":          true, // RFC 3339 allows lower case
		"2025-11-25 10:00:00Z":          true, // and a space between date and time
		"2025-11-25":                    false,
		"1764064800":                    false,
		"":                              false,
	} {
		if _, ok := TaskTime(s); ok != want {
			t.Errorf("TaskTime(%q) = %v, want %v", s, ok, want)
		}
	}
}

func TestDecodeTaskKeepsWhatWasSent(t *testing.T) {
	w, ok := DecodeTask(json.RawMessage(`{"taskId":"a1","status":"working","ttl":null,"pollInterval":500}`))
	if !ok {
		t.Fatal("a task object did not decode")
	}
	if id, ok := w.ID(); !ok || id != "a1" {
		t.Errorf("ID() = %q, %v", id, ok)
	}
	if p, ok := w.Poll(); !ok || p != 500 {
		t.Errorf("Poll() = %d, %v", p, ok)
	}
	if !w.HasTTL || !w.TTLValid() {
		t.Errorf("a null ttl is a stated ttl: HasTTL %v, TTLValid %v", w.HasTTL, w.TTLValid())
	}
	w, _ = DecodeTask(json.RawMessage(`{"taskId":7,"status":"working"}`))
	if _, ok := w.ID(); ok {
		t.Error("a numeric taskId passed as a string id")
	}
	if w.HasTTL || w.TTLValid() {
		t.Error("a missing ttl counted as stated")
	}
	for _, raw := range []string{``, `null`, `[]`, `"x"`} {
		if _, ok := DecodeTask(json.RawMessage(raw)); ok {
			t.Errorf("DecodeTask(%s) accepted a non-object", raw)
		}
	}
	if _, ok := CreatedTask(json.RawMessage(`{"task":null}`)); ok {
		t.Error("CreatedTask accepted a null task")
	}
	if id, ok := RelatedTask(json.RawMessage(`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t9"}}}`)); !ok || id != "t9" {
		t.Errorf("RelatedTask = %q, %v", id, ok)
	}
}
