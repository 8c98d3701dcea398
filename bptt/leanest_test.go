package bptt

import (
	"testing"
	"time"
)

// TestLeanestMatchesEveryLength: the windowed search finds the length a
// search of every length finds, for estimates whose optimum lies inside
// and far from the window's edges, and answers at once for 10^12 steps
// (before, it tried every length: 30 s for 10^9 steps, hours for 10^12,
// deaf to Ctrl-C).
func TestLeanestMatchesEveryLength(t *testing.T) {
	for _, tc := range []struct {
		step, state int64
		steps       int
	}{
		{6 << 20, 16 << 10, 20},     // the checkerboard
		{6 << 20, 16 << 10, 100000}, // its optimum near 3,900
		{1 << 10, 1 << 20, 50000},   // states larger than steps: long segments
		{3 << 20, 3 << 20, 1000000}, // the optimum near 1,000
	} {
		m := MemoryEstimate{StepBytes: tc.step, StateBytes: tc.state}
		best, at := MemoryEstimate{}, 0
		for k := 1; k < tc.steps; k++ {
			if r := m.kept(tc.steps, k); at == 0 || r.Total < best.Total {
				best, at = r, k
			}
		}
		if k, r := m.leanest(tc.steps); k != at || r.Total != best.Total {
			t.Errorf("step %d, state %d, %d steps: leanest %d (%d bytes), every length: %d (%d bytes)", tc.step, tc.state, tc.steps, k, r.Total, at, best.Total)
		}
	}
	start := time.Now()
	if k, _ := (MemoryEstimate{StepBytes: 6 << 20, StateBytes: 16 << 10}).leanest(1e12); k < 1 {
		t.Errorf("no length for 10^12 steps")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("10^12 steps took %v", d)
	}
}
