package parallel

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// For covers [0, n) exactly once with the documented contiguous parts, one
// per worker number, whatever n and the number of workers.
func TestForParts(t *testing.T) {
	for _, tc := range []struct {
		n, workers int
		want       [][2]int // [lo, hi) of each part, by worker number
	}{
		{n: 0, workers: 4, want: nil},
		{n: 1, workers: 4, want: [][2]int{{0, 1}}},
		{n: 10, workers: 1, want: [][2]int{{0, 10}}},
		{n: 10, workers: 3, want: [][2]int{{0, 3}, {3, 6}, {6, 10}}},
		{n: 10, workers: 4, want: [][2]int{{0, 2}, {2, 5}, {5, 7}, {7, 10}}},
		{n: 3, workers: 8, want: [][2]int{{0, 1}, {1, 2}, {2, 3}}},
	} {
		t.Run(fmt.Sprintf("n=%d,workers=%d", tc.n, tc.workers), func(t *testing.T) {
			var mu sync.Mutex
			got := make([][2]int, len(tc.want))
			calls := 0
			seen := make([]int, tc.n)
			For(tc.n, tc.workers, func(w, lo, hi int) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				got[w] = [2]int{lo, hi}
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			if calls != len(tc.want) {
				t.Fatalf("%d calls, want %d", calls, len(tc.want))
			}
			for w := range tc.want {
				if got[w] != tc.want[w] {
					t.Errorf("part %d = %v, want %v", w, got[w], tc.want[w])
				}
			}
			for i, s := range seen {
				if s != 1 {
					t.Errorf("index %d covered %d times", i, s)
				}
			}
		})
	}
}

func TestWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, tc := range []struct{ n, workers, want int }{
		{100, 3, 3}, {2, 3, 2}, {0, 3, 1}, {100, 0, procs}, {100, -1, procs},
	} {
		if got := Workers(tc.n, tc.workers); got != tc.want {
			t.Errorf("Workers(%d, %d) = %d, want %d", tc.n, tc.workers, got, tc.want)
		}
	}
}

// Parts run at the same time: two parts that each wait for the other finish
// only if For gives them goroutines of their own.
func TestForRunsPartsConcurrently(t *testing.T) {
	var both sync.WaitGroup
	both.Add(2)
	For(2, 2, func(_, _, _ int) {
		both.Done()
		both.Wait()
	})
}
