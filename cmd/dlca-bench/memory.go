package main

import (
	"fmt"
	"sort"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/internal/memlimit"
)

// checkMemory refuses, before anything is allocated, a configuration whose
// CPU training iteration needs more memory than this process may take
// (memlimit.Check), naming flags that make it fit.
func checkMemory(s bptt.Setup, h, w int) error {
	return memlimit.Check("", func(limit int64, source string) error { return refuseMemory(s, h, w, limit, source) })
}

// refuseMemory is checkMemory's comparison with limit, which comes from source.
func refuseMemory(s bptt.Setup, h, w int, limit int64, source string) error {
	est := bptt.EstimateMemory(s, h, w)
	if est.Total <= limit {
		return nil
	}
	fits := func(batch, steps, h, w int) bool {
		t := s
		t.Batch, t.Steps = batch, steps
		return bptt.EstimateMemory(t, h, w).Total <= limit
	}
	// The first that fits: fewer steps; one step on a smaller square grid;
	// one step on a 1x1 grid with a smaller batch.
	hint := "free some memory: not even one step of one cell fits"
	if k := sort.Search(s.Steps, func(k int) bool { return !fits(s.Batch, k+1, h, w) }); k >= 1 {
		hint = fmt.Sprintf("use -steps %d or fewer", k)
	} else if n := sort.Search(max(h, w), func(n int) bool { return !fits(s.Batch, 1, n+1, n+1) }); n >= 1 {
		hint = fmt.Sprintf("use -steps 1 with -height %d -width %d or less", n, n)
	} else if b := sort.Search(s.Batch, func(b int) bool { return !fits(b+1, 1, 1, 1) }); b >= 1 {
		hint = fmt.Sprintf("use -batch %d or less with -steps 1 -height 1 -width 1", b)
	}
	return fmt.Errorf("%dx%d grid, batch %d, %d steps: the CPU engine needs about %s but %s is %s; %s",
		h, w, s.Batch, s.Steps, est, source, memlimit.FormatBytes(limit), hint)
}
