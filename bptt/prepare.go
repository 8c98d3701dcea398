package bptt

import "fmt"

// PrepareMemory sets setup's recomputation (gradient checkpointing over
// time, every recompute steps; 0: off) and refuses, with a suggestion, a run
// on a height x width grid whose estimated memory exceeds maxMemory (a size
// ParseBytes reads, such as "2GiB") or, when maxMemory is "", the available
// memory.
func PrepareMemory(setup *Setup, height, width, recompute int, maxMemory string) error {
	setup.Recompute = recompute
	limit, source := int64(0), "-max-memory"
	if maxMemory != "" {
		var err error
		if limit, err = ParseBytes(maxMemory); err != nil {
			return fmt.Errorf("-max-memory: %w", err)
		}
	} else {
		avail, err := AvailableMemory()
		if err != nil {
			return nil // nothing to compare with (not Linux); training will tell
		}
		limit, source = avail, "the available memory (MemAvailable in /proc/meminfo)"
	}
	return EstimateMemory(*setup, height, width).Check(*setup, limit, source)
}
