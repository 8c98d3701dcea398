package parallel

import (
	"runtime"
	"sync"
	"time"
)

// Choice picks the number of goroutines for a piece of work that repeats
// (a training iteration, a matrix product of one size) by timing it: after
// one untimed run (buffers get allocated), it cycles through the counts 1,
// 2, 4, ... up to GOMAXPROCS (which ends the list even when it is not a
// power of two) for Trials runs each, and keeps the count whose fastest run
// per unit of work was fastest. It keeps that choice for Retrial runs, then
// times them all again; sooner when SlowRun runs in a row each take Slowdown
// times the chosen count's fastest trial run or more: what else runs on the
// machine changes during a long run, and on a sandboxed many-core host
// waking threads can cost more than the work (a 16-thread run 4x slower
// than a 1-thread one). A trial costs a few slower runs in hundreds.
//
// The caller must only use Choice for work whose results do not depend on
// the number of goroutines. A Choice is safe for concurrent use; runs that
// overlap each other time each other's contention, which a later trial
// corrects.
type Choice struct {
	Trials   int              // timed runs per count in a trial
	Retrial  int              // runs between trials
	SlowRun  int              // slow runs in a row that start a trial at once
	Slowdown float64          // what counts as slow, against the trial's best
	Now      func() time.Time // the clock (tests set their own)

	mu     sync.Mutex
	counts []int     // the candidates, 1 first and GOMAXPROCS last
	best   []float64 // per count: the trial's fastest run, ns per unit of work
	chosen int       // index into counts; -1 until the first trial ends
	runs   int       // runs since the start or the last trial's start
	slow   int       // slow runs in a row since the trial
}

// NewChoice returns a Choice with the settings the project uses: 3 trials
// per count, a new trial every 250 runs or after 5 runs in a row 1.5 times
// slower than the trial's best.
func NewChoice() *Choice {
	return &Choice{Trials: 3, Retrial: 250, SlowRun: 5, Slowdown: 1.5, Now: time.Now}
}

// Counts returns the candidate counts for GOMAXPROCS p: 1, 2, 4, ... below
// p, then p.
func Counts(p int) []int {
	var out []int
	for n := 1; n < p; n *= 2 {
		out = append(out, n)
	}
	return append(out, max(p, 1))
}

// Run is one timed run, returned by Next and handed back to Done.
type Run struct {
	Workers int       // goroutines to use
	index   int       // into counts; -1: untimed
	trial   bool      // a trial run (else a run of the chosen count)
	start   time.Time //
	work    float64   // units of work, for the time per unit
}

// Chosen returns the count in use, 0 before the first trial has ended.
func (c *Choice) Chosen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil || c.chosen < 0 {
		return 0
	}
	return c.counts[c.chosen]
}

// Trialing reports whether the choice is being timed (or not made yet).
func (c *Choice) Trialing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts == nil || c.runs <= c.Trials*len(c.counts)
}

// Next returns the goroutines for the next run, of work units of work (any
// measure proportional to its cost at one count), to hand to Done when the
// run has ended.
func (c *Choice) Next(work float64) Run {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := runtime.GOMAXPROCS(0); c.counts == nil || c.counts[len(c.counts)-1] != p {
		c.counts = Counts(p)
		c.best = make([]float64, len(c.counts))
		c.chosen, c.runs, c.slow = -1, 0, 0
	}
	if len(c.counts) == 1 {
		c.chosen = 0
		return Run{Workers: 1, index: -1}
	}
	i := c.runs
	c.runs++
	trials := c.Trials * len(c.counts)
	switch {
	case i == 0: // the first run, untimed, on all
		return Run{Workers: c.counts[len(c.counts)-1], index: -1}
	case i > trials:
		if i >= c.Retrial {
			c.runs, c.slow = 1, 0
			clear(c.best)
			return Run{Workers: c.counts[c.chosen], index: -1}
		}
		return Run{Workers: c.counts[c.chosen], index: c.chosen, start: c.Now(), work: work}
	}
	k := (i - 1) % len(c.counts)
	return Run{Workers: c.counts[k], index: k, trial: true, start: c.Now(), work: work}
}

// Done records the end of run r.
func (c *Choice) Done(r Run) {
	if r.index < 0 {
		return
	}
	d := float64(c.Now().Sub(r.start)) / max(r.work, 1e-300)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.index >= len(c.best) {
		return // GOMAXPROCS changed during the run
	}
	if !r.trial {
		if c.chosen < 0 || d < c.Slowdown*c.best[c.chosen] {
			c.slow = 0
		} else if c.slow++; c.slow >= c.SlowRun {
			c.runs, c.slow = 1, 0
			clear(c.best)
		}
		return
	}
	if c.best[r.index] == 0 || d < c.best[r.index] {
		c.best[r.index] = d
	}
	if c.runs > c.Trials*len(c.counts) && allTimed(c.best) {
		c.chosen = 0
		for k, b := range c.best {
			if b < c.best[c.chosen] {
				c.chosen = k
			}
		}
	}
}

func allTimed(best []float64) bool {
	for _, b := range best {
		if b == 0 {
			return false
		}
	}
	return true
}
