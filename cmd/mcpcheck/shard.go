package main

import (
	"strconv"
	"strings"
)

// parseShard reads a --shard value "K/N": shard K of N, 1 <= K <= N
// (N <= 10000). An empty value is no sharding (0, 0). cmd prefixes the
// usage error.
func parseShard(cmd, s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	k, errK := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	if !ok || errK != nil || errN != nil || n < 1 || n > 10000 || k < 1 || k > n {
		return 0, 0, usagef("%s: --shard %q: use K/N, shard K of N with 1 <= K <= N (e.g. --shard 1/4 ... --shard 4/4 in four jobs)", cmd, s)
	}
	return k, n, nil
}
