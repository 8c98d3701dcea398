package bptt_test

import (
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/dlca/dlca/bptt"
)

// TestWorkersTrainTheSameModel trains the small checkerboard (its
// perception runs over 8 blocks of rows, so every worker gets some) for 8
// iterations with Setup.Workers 1, 3 and 0 (the engine times one worker
// against GOMAXPROCS over iterations 2 to 7, then keeps the faster): the
// logits must agree bit for bit, and the engine must have made its choice.
func TestWorkersTrainTheSameModel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var first []uint64
	for _, workers := range []int{1, 3, 0} {
		e, m := experimentModel(t, "checkerboard-small")
		s := e.Setup(m)
		s.Workers = workers
		eng, err := bptt.NewCPU(s)
		if err != nil {
			t.Fatal(err)
		}
		rng := newRand(3)
		for range 8 {
			if _, err := eng.Iterate(e.Source()(rng)); err != nil {
				t.Fatal(err)
			}
		}
		if w := eng.Workers(); workers > 0 && w != workers || workers == 0 && w != 1 && w != 2 {
			t.Errorf("Workers %d: the engine runs on %d", workers, w)
		}
		trained, _ := eng.Model()
		var bits []uint64
		for _, p := range trained.Params() {
			for _, v := range p.Float64s() {
				bits = append(bits, math.Float64bits(v))
			}
		}
		if first == nil {
			first = bits
			continue
		}
		for i := range bits {
			if bits[i] != first[i] {
				t.Fatalf("Workers %d: logit %d differs from one worker's", workers, i)
			}
		}
	}
	e, m := experimentModel(t, "checkerboard-small")
	s := e.Setup(m)
	s.Workers = -1
	if err := s.Validate(); err == nil {
		t.Error("Workers -1 accepted")
	}
}

// TestWorkerChoiceTimesAgain: the choice is made after the untimed first
// iteration and workerTrials of each kind, kept for workerRetrial
// iterations, then timed again, alternating one worker and all. Every
// iteration takes 1 ms on the test's clock: on the real one, iterations
// that do nothing vary by more than the slowdown that starts a trial early
// (TestWorkerChoiceNoticesASlowdown).
func TestWorkerChoiceTimesAgain(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var clock time.Time
	c := bptt.NewWorkerChoiceClock(0, func() time.Time {
		clock = clock.Add(time.Millisecond / 2) // twice an iteration: its start and its end
		return clock
	})
	var got []int
	for i := range bptt.WorkerRetrial + 2*bptt.WorkerTrials + 2 {
		w, done := c.Next()
		got = append(got, w)
		done()
		if chosen := c.Chosen(); i < 2*bptt.WorkerTrials && chosen != 0 || i >= 2*bptt.WorkerTrials && chosen != 1 && chosen != 2 {
			t.Fatalf("after iteration %d: chosen %d", i, chosen)
		}
	}
	trial := []int{1, 0, 1, 0, 1, 0}
	if !slices.Equal(got[1:7], trial) || !slices.Equal(got[bptt.WorkerRetrial+1:bptt.WorkerRetrial+7], trial) {
		t.Errorf("workers per iteration %v: trials not where expected", got)
	}
	for i := 7; i <= bptt.WorkerRetrial; i++ {
		if got[i] != got[7] || got[i] == 0 {
			t.Fatalf("iteration %d ran on %d workers, iteration 7 on %d", i, got[i], got[7])
		}
	}
	if c := bptt.NewWorkerChoice(3); c.Chosen() != 3 {
		t.Errorf("Workers 3: chosen %d", c.Chosen())
	}
}

// TestWorkerChoiceNoticesASlowdown: when the chosen count's iterations turn
// 1.5 times slower than in its trial (two threads crowded on a VM's
// cores), the choice is timed again after WorkerSlowRun of them, not after
// WorkerRetrial; slow iterations that do not come WorkerSlowRun in a row
// change nothing.
func TestWorkerChoiceNoticesASlowdown(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var clock time.Time
	c := bptt.NewWorkerChoiceClock(0, func() time.Time { return clock })
	cost := map[int]time.Duration{1: 40 * time.Millisecond, 2: 31 * time.Millisecond}
	iterate := func() int {
		w, done := c.Next()
		if w == 0 {
			w = 2 // all: GOMAXPROCS
		}
		clock = clock.Add(cost[w])
		done()
		return w
	}
	for range 1 + 2*bptt.WorkerTrials + 10 {
		iterate()
	}
	if c.Chosen() != 2 {
		t.Fatalf("two workers at 31 ms, one at 40: chose %d", c.Chosen())
	}
	// Slow stretches shorter than WorkerSlowRun keep the choice.
	for range 3 {
		cost[2] = 80 * time.Millisecond
		for range bptt.WorkerSlowRun - 1 {
			if w := iterate(); w != 2 {
				t.Fatalf("a short slow stretch: ran on %d workers", w)
			}
		}
		cost[2] = 31 * time.Millisecond
		iterate()
	}
	// A long one starts a trial, which now prefers one worker.
	cost[2] = 80 * time.Millisecond
	var got []int
	for range bptt.WorkerSlowRun + 2*bptt.WorkerTrials + 3 {
		got = append(got, iterate())
	}
	want := append(slices.Repeat([]int{2}, bptt.WorkerSlowRun), 1, 2, 1, 2, 1, 2, 1, 1, 1)
	if !slices.Equal(got, want) || c.Chosen() != 1 {
		t.Errorf("two workers slowed to 80 ms: ran on %v, chose %d; want %v, then 1", got, c.Chosen(), want)
	}
}
