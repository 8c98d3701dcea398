package main

import (
	"fmt"
	"sort"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/memlimit"
)

// viewMemory estimates what showing m on an h x w grid adds to the
// process: the state shown and an initial state (floats, every channel)
// and a soft step (bptt.EstimateRollout: one step's activations, its input
// and output), which needs more than a hard one; either can be chosen at
// any time in the window.
func viewMemory(m *dlca.Model, h, w int) int64 {
	states := float64(h) * float64(w) * float64(m.Config.Channels) * 4 * 2
	return memlimit.WithOverhead(int64(min(states, 1<<62)) + bptt.EstimateRollout(m, h, w).Live)
}

// checkViewMemory refuses, before anything is allocated, a grid whose
// simulation needs more memory than this process may take
// (memlimit.Check), naming a -size that fits.
func checkViewMemory(m *dlca.Model, h, w int) error {
	return memlimit.Check("", func(limit int64, source string) error {
		need := viewMemory(m, h, w)
		if need <= limit {
			return nil
		}
		hint := "free some memory"
		if n := sort.Search(max(h, w), func(n int) bool { return viewMemory(m, n+1, n+1) > limit }); n >= 1 {
			hint = fmt.Sprintf("use -size %d or less", n)
		}
		return fmt.Errorf("a %dx%d grid needs about %s to simulate but %s is %s; %s", h, w, memlimit.FormatBytes(need), source, memlimit.FormatBytes(limit), hint)
	})
}
