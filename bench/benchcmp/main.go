// Command benchcmp compares a run of Go benchmarks against a stored
// baseline from the same machine and flags the slowdowns: for each
// benchmark in both, the ratio of the new time per op to the baseline's,
// each the fastest of its repeats (-count; the least disturbed by other
// work), and SLOWER where the ratio exceeds -max. It exits with status 1
// when anything is slower, so that a script can stop on it.
//
//	go test -run '^$' -bench . -count 5 ./bench ./cmd/internal/mnist > new.txt
//	go run ./bench/benchcmp -max 1.15 bench/baseline.txt new.txt
//
// Both files are `go test -bench` output; lines that are not benchmark
// results are skipped. Compare runs of one machine only, at one load: a
// ratio across machines says nothing about the code.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		if errors.Is(err, errSlower) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

var errSlower = errors.New("slower than the baseline")

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("benchcmp", flag.ContinueOnError)
	maxRatio := fs.Float64("max", 1.15, "flag a benchmark whose time per op is more than this times the baseline's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 || !(*maxRatio > 0) {
		return errors.New("usage: benchcmp [-max ratio] baseline.txt new.txt (two go test -bench outputs, ratio > 0)")
	}
	base, err := parseFile(fs.Arg(0))
	if err != nil {
		return err
	}
	cur, err := parseFile(fs.Arg(1))
	if err != nil {
		return err
	}
	rows, slower := compare(base, cur, *maxRatio)
	for _, r := range rows {
		fmt.Fprintln(out, r)
	}
	if slower > 0 {
		return fmt.Errorf("%d benchmark(s) %w by more than x%.2f", slower, errSlower, *maxRatio)
	}
	return nil
}

func parseFile(path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	best, err := parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(best) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results (want go test -bench output)", path)
	}
	return best, nil
}

// parse returns the fastest ns/op of each benchmark in a go test -bench
// output: lines "BenchmarkName-P  N  T ns/op  [value unit]...".
func parse(r io.Reader) (map[string]float64, error) {
	best := map[string]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		for i := 2; i+1 < len(f); i += 2 {
			if f[i+1] != "ns/op" {
				continue
			}
			ns, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: time %q: %w", f[0], f[i], err)
			}
			if old, ok := best[f[0]]; !ok || ns < old {
				best[f[0]] = ns
			}
		}
	}
	return best, sc.Err()
}

// compare returns one line per benchmark, in name order, and how many are
// slower than maxRatio times the baseline.
func compare(base, cur map[string]float64, maxRatio float64) (rows []string, slower int) {
	names := make([]string, 0, len(base)+len(cur))
	for n := range base {
		names = append(names, n)
	}
	for n := range cur {
		if _, ok := base[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	rows = append(rows, fmt.Sprintf("%-50s %14s %14s %7s", "benchmark", "base ns/op", "new ns/op", "ratio"))
	for _, n := range names {
		b, inBase := base[n]
		c, inCur := cur[n]
		switch {
		case !inBase:
			rows = append(rows, fmt.Sprintf("%-50s %14s %14.0f %7s  (new)", n, "-", c, "-"))
		case !inCur:
			rows = append(rows, fmt.Sprintf("%-50s %14.0f %14s %7s  (missing)", n, b, "-", "-"))
		default:
			ratio := c / b
			mark := ""
			if ratio > maxRatio {
				mark = "  SLOWER"
				slower++
			}
			rows = append(rows, fmt.Sprintf("%-50s %14.0f %14.0f %7.2f%s", n, b, c, ratio, mark))
		}
	}
	return rows, slower
}
