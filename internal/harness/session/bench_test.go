package session

import (
	"context"
	"testing"
)

// BenchmarkPingOverPipe measures one request/response through the whole
// session stack (encode, tap, schema validation, queue, expect loop).
func BenchmarkPingOverPipe(b *testing.B) {
	conn, _ := startFakeB(b)
	s := NewStateful(conn, Config{})
	ctx := context.Background()
	if _, err := s.Open(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := s.Call(ctx, "ping", nil); !r.OK() {
			b.Fatal(r.Describe())
		}
	}
}
