package bptt

import (
	"runtime"
	"time"
)

// workerTrials is how many iterations the CPU engine times with each
// number of workers before it keeps the faster (Setup.Workers 0).
const workerTrials = 3

// workerChoice chooses the CPU engine's number of workers per step from
// its first iterations: after one untimed iteration (buffers are
// allocated), it alternates one worker and GOMAXPROCS for workerTrials
// iterations each and keeps the one whose fastest iteration was faster.
//
// NOTE: on the reference machine two threads made the checkerboard's
// iteration slower than one before the step ran in tiles (docs/perf/dlca.md):
// whether the second core pays depends on the machine and on what else runs
// on it, so it is measured rather than assumed. The results do not depend on
// the choice.
type workerChoice struct {
	fixed int              // the number of workers, once known
	iters int              // iterations started
	best  [2]time.Duration // fastest timed iteration: one worker, all
}

func newWorkerChoice(workers int) *workerChoice {
	if workers == 0 && runtime.GOMAXPROCS(0) == 1 {
		workers = 1
	}
	return &workerChoice{fixed: workers}
}

// next returns the number of workers for the next iteration, 0 meaning
// GOMAXPROCS, and a function to call when it is done.
func (c *workerChoice) next() (workers int, done func()) {
	if c.fixed > 0 {
		return c.fixed, func() {}
	}
	i := c.iters
	c.iters++
	if i == 0 {
		return 0, func() {}
	}
	workers, k := 0, 1 // odd iterations run on one worker, even on all
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
			c.fixed = runtime.GOMAXPROCS(0)
			if c.best[0] < c.best[1] {
				c.fixed = 1
			}
		}
	}
}
