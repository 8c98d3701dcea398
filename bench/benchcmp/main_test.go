package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const baseRun = `goos: linux
BenchmarkMatMul/128x784x128-2   	    1000	    200000 ns/op	 128.0 GFLOP/s
BenchmarkMatMul/128x784x128-2   	    1000	    180000 ns/op	 142.0 GFLOP/s
BenchmarkReLU-2                 	     100	   1000000 ns/op	   4.0 GB/s
BenchmarkGone-2                 	     100	       500 ns/op
PASS
`

const newRun = `BenchmarkMatMul/128x784x128-2   	    1000	    190000 ns/op
BenchmarkReLU-2                 	     100	   1300000 ns/op
BenchmarkReLU-2                 	     100	   1250000 ns/op
BenchmarkNew-2                  	     100	       700 ns/op
`

// TestCompareFlagsSlowdowns: the fastest repeat counts on each side
// (180000 against 190000 is x1.06, within x1.15; 1000000 against 1250000
// is x1.25, flagged), and benchmarks on one side only are listed, not
// flagged.
func TestCompareFlagsSlowdowns(t *testing.T) {
	dir := t.TempDir()
	bp, np := filepath.Join(dir, "base.txt"), filepath.Join(dir, "new.txt")
	if err := os.WriteFile(bp, []byte(baseRun), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(np, []byte(newRun), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run([]string{"-max", "1.15", bp, np}, &out)
	if !errors.Is(err, errSlower) || !strings.Contains(err.Error(), "1 benchmark(s)") {
		t.Fatalf("err = %v, want one slower benchmark", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := map[string]string{
		"BenchmarkMatMul/128x784x128-2": "1.06",
		"BenchmarkReLU-2":               "1.25  SLOWER",
		"BenchmarkGone-2":               "(missing)",
		"BenchmarkNew-2":                "(new)",
	}
	for name, suffix := range want {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, name+" ") {
				found = true
				if !strings.HasSuffix(l, suffix) {
					t.Errorf("line %q: want it to end in %q", l, suffix)
				}
			}
		}
		if !found {
			t.Errorf("no line for %s in\n%s", name, out.String())
		}
	}
	if err := run([]string{"-max", "1.3", bp, np}, &out); err != nil {
		t.Errorf("-max 1.3: %v, want no slowdown", err)
	}
	if err := run([]string{bp}, &out); err == nil || errors.Is(err, errSlower) {
		t.Errorf("one file: %v, want a usage error", err)
	}
}
