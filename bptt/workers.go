package bptt

import (
	"runtime"

	"github.com/dlca/dlca/internal/parallel"
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
// timing iterations (parallel.Choice): after one untimed iteration (buffers
// are allocated), it cycles through 1, 2, 4, ... and GOMAXPROCS workers for
// workerTrials iterations each and keeps the count whose fastest iteration
// was fastest, for workerRetrial iterations, then times them all again;
// sooner when the chosen count's iterations turn workerSlowdown times
// slower than in its trial, workerSlowRun times in a row. A trial costs at
// most a few slower iterations in hundreds.
//
// NOTE: on a 16-core sandboxed host (the H100's) 16 threads took 276.8 ms
// an iteration where one takes about 66 ms: choosing only between one and
// all would still have caught that, but not a middle count that beats
// both, hence the whole ladder.
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
	auto   bool // choose by timing (Setup.Workers 0)
	fixed  int  // Setup.Workers when not auto
	choice *parallel.Choice
}

func newWorkerChoice(workers int) *workerChoice {
	if workers == 0 && runtime.GOMAXPROCS(0) == 1 {
		workers = 1
	}
	c := parallel.NewChoice()
	c.Trials, c.Retrial, c.SlowRun, c.Slowdown = workerTrials, workerRetrial, workerSlowRun, workerSlowdown
	return &workerChoice{auto: workers == 0, fixed: workers, choice: c}
}

// chosen returns the workers in use: Setup.Workers if it was set, else 0
// until the first trial ends, then the choice.
func (c *workerChoice) chosen() int {
	if !c.auto {
		return c.fixed
	}
	return c.choice.Chosen()
}

// next returns the number of workers for the next iteration, 0 meaning
// GOMAXPROCS while trials run, and a function to call when it is done.
func (c *workerChoice) next() (workers int, done func()) {
	if !c.auto {
		return c.fixed, func() {}
	}
	trialing := c.choice.Trialing()
	r := c.choice.Next(1)
	workers = r.Workers
	if trialing && workers == runtime.GOMAXPROCS(0) {
		workers = 0
	}
	return workers, func() { c.choice.Done(r) }
}
