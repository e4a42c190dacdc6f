package main

import "github.com/mcpcheck/mcpcheck/internal/harness/shard"

// parseShard reads a --shard value "K/N": shard K of N, 1 <= K <= N
// (N <= 10000). An empty value is no sharding (0, 0). cmd prefixes the
// usage error.
func parseShard(cmd, s string) (k, n int, err error) {
	p, err := shard.Parse(s)
	if err != nil {
		return 0, 0, usagef("%s: --%v", cmd, err)
	}
	return p.K, p.N, nil
}
