package bptt

import (
	"runtime"
	"time"
)

const (
	// workerTrials is how many iterations the CPU engine times with each
	// number of workers before it keeps the faster (Setup.Workers 0).
	workerTrials = 3
	// workerRetrial is how many iterations the engine keeps its choice
	// before timing both again: what else runs on the machine changes
	// during a long run.
	workerRetrial = 250
)

// workerChoice chooses the CPU engine's number of workers per step by
// timing iterations: after one untimed iteration (buffers are allocated),
// it alternates one worker and GOMAXPROCS for workerTrials iterations each
// and keeps the one whose fastest iteration was faster, for workerRetrial
// iterations, then times both again. A trial costs at most a few slower
// iterations in hundreds.
//
// NOTE: on the reference machine two threads made the checkerboard's
// iteration slower than one before the step ran in tiles, and still do
// whenever other processes keep the cores busy (docs/perf/dlca.md):
// whether the second core pays depends on the machine and on what else
// runs on it, so it is measured rather than assumed. The results do not
// depend on the choice.
type workerChoice struct {
	auto   bool             // choose by timing (Setup.Workers 0)
	chosen int              // workers in use; 0 until the first trial ends
	iters  int              // iterations since the start or the last trial's
	best   [2]time.Duration // a trial's fastest iteration: one worker, all
}

func newWorkerChoice(workers int) *workerChoice {
	if workers == 0 && runtime.GOMAXPROCS(0) == 1 {
		workers = 1
	}
	return &workerChoice{auto: workers == 0, chosen: workers}
}

// next returns the number of workers for the next iteration, 0 meaning
// GOMAXPROCS, and a function to call when it is done.
func (c *workerChoice) next() (workers int, done func()) {
	if !c.auto {
		return c.chosen, func() {}
	}
	i := c.iters
	c.iters++
	switch {
	case i == 0: // the first iteration, untimed
		return 0, func() {}
	case i > 2*workerTrials:
		if i >= workerRetrial {
			c.iters, c.best = 1, [2]time.Duration{}
		}
		return c.chosen, func() {}
	}
	workers, k := 0, 1 // odd iterations of a trial run on one worker, even on all
	if i%2 == 1 {
		workers, k = 1, 0
	}
	start := time.Now()
	return workers, func() {
		d := time.Since(start)
		if c.best[k] == 0 || d < c.best[k] {
			c.best[k] = d
		}
		if i == 2*workerTrials {
			c.chosen = runtime.GOMAXPROCS(0)
			if c.best[0] < c.best[1] {
				c.chosen = 1
			}
		}
	}
}
