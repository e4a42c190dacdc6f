package fuzz

import (
	"bytes"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
)

// Minimize shrinks a failing input by delta debugging: first over its write
// chunks, then over its lines, then over its bytes, keeping every reduction
// for which test still reports the failure. test is called at most budget
// times; the input's Fresh and CloseAfter flags are kept. The result is the
// smallest failing input found (in itself when nothing could be removed).
func Minimize(in mutate.Input, test func(mutate.Input) bool, budget int) mutate.Input {
	if budget <= 0 {
		return in
	}
	left := budget
	with := func(chunks [][]byte) mutate.Input {
		out := in
		out.Chunks = chunks
		return out
	}
	try := func(chunks [][]byte) bool {
		if left <= 0 {
			return false
		}
		left--
		return test(with(chunks))
	}
	// 1. Whole write chunks.
	chunks := ddmin(in.Chunks, try, &left)
	// 2. One write instead of many, when the split does not matter.
	if len(chunks) > 1 {
		joined := [][]byte{bytes.Join(chunks, nil)}
		if try(joined) {
			chunks = joined
		}
	}
	if len(chunks) != 1 {
		return with(chunks)
	}
	// 3. Lines, each kept with its newline.
	lines := splitLines(chunks[0])
	lines = ddmin(lines, func(ls [][]byte) bool { return try([][]byte{bytes.Join(ls, nil)}) }, &left)
	// 4. Bytes.
	all := bytes.Join(lines, nil)
	all = ddmin(all, func(b []byte) bool { return try([][]byte{b}) }, &left)
	return with([][]byte{all})
}

// splitLines cuts b after each LF.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// ddmin is Zeller's delta debugging (complement reduction): it removes ever
// smaller blocks of items as long as test keeps passing (reporting the
// failure). left bounds the calls; test decrements it.
func ddmin[T any](items []T, test func([]T) bool, left *int) []T {
	n := 2
	for len(items) >= 2 && *left > 0 {
		size := (len(items) + n - 1) / n
		reduced := false
		for start := 0; start < len(items) && *left > 0; start += size {
			end := start + size
			if end > len(items) {
				end = len(items)
			}
			cand := make([]T, 0, len(items)-(end-start))
			cand = append(cand, items[:start]...)
			cand = append(cand, items[end:]...)
			if len(cand) == 0 {
				continue
			}
			if test(cand) {
				items = cand
				if n > 2 {
					n--
				}
				reduced = true
				break
			}
		}
		if !reduced {
			if n >= len(items) {
				break
			}
			n *= 2
			if n > len(items) {
				n = len(items)
			}
		}
	}
	return items
}
