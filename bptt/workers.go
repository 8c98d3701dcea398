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
	// workerSlowRun iterations in a row that each take workerSlowdown
	// times the chosen count's fastest trial iteration or more time both
	// again at once, without waiting for workerRetrial.
	workerSlowRun  = 5
	workerSlowdown = 1.5
)

// workerChoice chooses the CPU engine's number of workers per step by
// timing iterations: after one untimed iteration (buffers are allocated),
// it alternates one worker and GOMAXPROCS for workerTrials iterations each
// and keeps the one whose fastest iteration was faster, for workerRetrial
// iterations, then times both again; sooner when the chosen count's
// iterations turn workerSlowdown times slower than in its trial,
// workerSlowRun times in a row. A trial costs at most a few slower
// iterations in hundreds.
//
// NOTE: on the reference machine (a VM with 2 vCPUs) two workers take the
// checkerboard's iteration from 40 ms to 31 ms most of the time, but for
// stretches of seconds both threads run 2.6 times slower (80 ms an
// iteration, twice the CPU time), while one worker stays at 40 ms: the
// host, not the engine's buffers, which stay the same through such a
// stretch (docs/perf/dlca.md). Waiting 250 iterations for the next trial
// would lose up to 10 s each time; watching every iteration costs a clock
// read.
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
	slow   int              // slow iterations in a row since the trial
	now    func() time.Time // the clock (the tests' own)
}

func newWorkerChoice(workers int) *workerChoice {
	if workers == 0 && runtime.GOMAXPROCS(0) == 1 {
		workers = 1
	}
	return &workerChoice{auto: workers == 0, chosen: workers, now: time.Now}
}

// retrial makes the next iteration start a new trial.
func (c *workerChoice) retrial() {
	c.iters, c.best, c.slow = 1, [2]time.Duration{}, 0
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
			c.retrial()
			return c.chosen, func() {}
		}
		k := 1
		if c.chosen == 1 {
			k = 0
		}
		start := c.now()
		return c.chosen, func() {
			if c.now().Sub(start) < time.Duration(workerSlowdown*float64(c.best[k])) {
				c.slow = 0
			} else if c.slow++; c.slow >= workerSlowRun {
				c.retrial()
			}
		}
	}
	workers, k := 0, 1 // odd iterations of a trial run on one worker, even on all
	if i%2 == 1 {
		workers, k = 1, 0
	}
	start := c.now()
	return workers, func() {
		d := c.now().Sub(start)
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
