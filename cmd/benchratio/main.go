// Command benchratio summarizes the peer benchmarks of internal/reference/server
// (peer_bench_test.go): from "go test -bench Peer -count N" output it prints,
// per benchmark, the median of each implementation's samples and the ratio
// gosdk/ours. For ns/op and server-cpu-ns/op a ratio above 1 means ours is
// faster (for the parallel benchmarks: has that much more throughput).
// benchstat gives the confidence intervals; this gives the ratios.
//
//	go run ./internal/reference/server/testdata/peers/ratio bench.txt
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

var gomaxprocs = regexp.MustCompile(`-\d+$`)

type key struct{ bench, impl, unit string }

func main() {
	in := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratio:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	samples := map[key][]float64{}
	var benches []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := gomaxprocs.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			continue
		}
		bench, impl := name[:i], name[i+1:]
		if !seen[bench] {
			seen[bench] = true
			benches = append(benches, bench)
		}
		for j := 2; j+1 < len(f); j += 2 {
			v, err := strconv.ParseFloat(f[j], 64)
			if err != nil {
				continue
			}
			k := key{bench, impl, f[j+1]}
			samples[k] = append(samples[k], v)
		}
	}
	if len(benches) == 0 {
		fmt.Fprintln(os.Stderr, "ratio: no benchmark lines in the input")
		os.Exit(1)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tn\tours time/op\tgosdk time/op\tgosdk/ours\tours server CPU/op\tgosdk server CPU/op\tgosdk/ours\t")
	for _, b := range benches {
		ot, ok1 := median(samples[key{b, "ours", "ns/op"}])
		gt, ok2 := median(samples[key{b, "gosdk", "ns/op"}])
		oc, ok3 := median(samples[key{b, "ours", "server-cpu-ns/op"}])
		gc, ok4 := median(samples[key{b, "gosdk", "server-cpu-ns/op"}])
		n := fmt.Sprintf("%d/%d", len(samples[key{b, "ours", "ns/op"}]), len(samples[key{b, "gosdk", "ns/op"}]))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", b, n,
			dur(ot, ok1), dur(gt, ok2), ratio(gt, ot, ok1 && ok2),
			dur(oc, ok3), dur(gc, ok4), ratio(gc, oc, ok3 && ok4))
	}
	tw.Flush()
	fmt.Println("medians; gosdk/ours > 1 means ours is faster (or, in *Parallel, has more throughput); '-' = no samples")
}

func median(v []float64) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

func dur(ns float64, ok bool) string {
	switch {
	case !ok:
		return "-"
	case ns >= 1e6:
		return fmt.Sprintf("%.2fms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1fµs", ns/1e3)
	}
	return fmt.Sprintf("%.0fns", ns)
}

func ratio(a, b float64, ok bool) string {
	if !ok || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", a/b)
}
