package gates

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// workers returns how many goroutines forChunks uses for n chunks.
func workers(n int) int { return max(1, min(n, runtime.GOMAXPROCS(0))) }

// forChunks calls f(w, c) for every chunk c in [0, n), spread over
// workers(n) goroutines numbered w = 0, 1, ... (so that f can keep scratch
// space per worker). Each chunk must write only its own outputs; which
// worker runs it does not matter.
func forChunks(n int, f func(w, c int)) {
	nw := workers(n)
	if nw == 1 {
		for c := range n {
			f(0, c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range nw {
		wg.Go(func() {
			for c := int(next.Add(1) - 1); c < n; c = int(next.Add(1) - 1) {
				f(w, c)
			}
		})
	}
	wg.Wait()
}
