package parallel

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

func TestCounts(t *testing.T) {
	for p, want := range map[int][]int{1: {1}, 2: {1, 2}, 6: {1, 2, 4, 6}, 16: {1, 2, 4, 8, 16}} {
		if got := Counts(p); !slices.Equal(got, want) {
			t.Errorf("Counts(%d) = %v, want %v", p, got, want)
		}
	}
}

// TestChoiceKeepsTheFastestCount: on a test clock where 4 of 8 goroutines
// run fastest (the cost per unit of work is what counts: runs of
// different sizes are compared per unit), the trial cycles 1, 2, 4, 8 and
// keeps 4; when 4 turns 1.5 times slower SlowRun runs in a row, a new trial
// picks the now fastest count, 2.
func TestChoiceKeepsTheFastestCount(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	var clock time.Time
	c := NewChoice()
	c.Now = func() time.Time { return clock }
	perUnit := map[int]time.Duration{1: 40, 2: 25, 4: 20, 8: 60}
	work := 1.0
	run := func() int {
		r := c.Next(work)
		clock = clock.Add(time.Duration(work) * perUnit[r.Workers])
		c.Done(r)
		work = 3 - work // alternate sizes 1 and 2
		return r.Workers
	}
	var got []int
	for range 1 + 4*c.Trials + 3 {
		got = append(got, run())
	}
	want := []int{8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 4, 4, 4}
	if !slices.Equal(got, want) || c.Chosen() != 4 {
		t.Fatalf("runs on %v, chose %d; want %v, then 4", got, c.Chosen(), want)
	}
	perUnit[4] = 50
	got = got[:0]
	for range c.SlowRun + 4*c.Trials + 2 {
		got = append(got, run())
	}
	if c.Chosen() != 2 || got[len(got)-1] != 2 || !slices.Equal(got[:c.SlowRun], []int{4, 4, 4, 4, 4}) {
		t.Fatalf("after 4 slowed down: runs on %v, chose %d; want 5 runs on 4, a trial, then 2", got, c.Chosen())
	}
}

// TestChoiceOneProc: with GOMAXPROCS 1 there is nothing to time.
func TestChoiceOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c := NewChoice()
	for range 10 {
		r := c.Next(1)
		if r.Workers != 1 {
			t.Fatalf("GOMAXPROCS 1: %d workers", r.Workers)
		}
		c.Done(r)
	}
}
