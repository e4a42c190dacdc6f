package jsonrpc

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteDecodeCorpus writes the decode cases as seed files of the
// decoder's fuzz target in decodeCorpus. It only runs when
// MCPCHECK_WRITE_CORPUS=1:
//
//	MCPCHECK_WRITE_CORPUS=1 go test -run TestWriteDecodeCorpus ./internal/spec/jsonrpc
func TestWriteDecodeCorpus(t *testing.T) {
	if os.Getenv("MCPCHECK_WRITE_CORPUS") != "1" {
		t.Skip("set MCPCHECK_WRITE_CORPUS=1 to rewrite " + decodeCorpus)
	}
	dir := filepath.FromSlash(decodeCorpus)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range decodeCases {
		if len(tc.in) > 12000 {
			continue // huge seeds make every fuzzing step slow; one 10 KB deep seed is enough
		}
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", tc.in)
		sum := sha256.Sum256([]byte(tc.in))
		name := fmt.Sprintf("seed-%s-%x", slug(tc.name), sum[:4])
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteByte('-')
			}
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// TestDecodeCorpusHasEveryCase: every decode case (but the huge ones) is a
// seed of the decoder's fuzz target in decodeCorpus, byte for byte; rewrite
// them with MCPCHECK_WRITE_CORPUS=1 (TestWriteDecodeCorpus) when a case is
// added or changed.
func TestDecodeCorpusHasEveryCase(t *testing.T) {
	for _, tc := range decodeCases {
		if len(tc.in) > 12000 {
			continue
		}
		sum := sha256.Sum256([]byte(tc.in))
		name := filepath.Join(filepath.FromSlash(decodeCorpus), fmt.Sprintf("seed-%s-%x", slug(tc.name), sum[:4]))
		b, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("decode case %q has no seed: %v; run MCPCHECK_WRITE_CORPUS=1 go test -run TestWriteDecodeCorpus ./internal/spec/jsonrpc", tc.name, err)
			continue
		}
		if want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", tc.in); string(b) != want {
			t.Errorf("the seed %s differs from decode case %q; rewrite the corpus", name, tc.name)
		}
	}
}
