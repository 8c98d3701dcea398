package gates

import "github.com/dlca/dlca/internal/parallel"

// workers returns how many goroutines forChunks uses for n chunks.
func workers(n int) int { return parallel.Workers(n, 0) }

// forChunks calls f(w, c) for every chunk c in [0, n), spread over
// workers(n) goroutines numbered w = 0, 1, ... (so that f can keep scratch
// space per worker), each taking a fixed contiguous run of chunks. Each
// chunk must write only its own outputs; which worker runs it does not
// matter.
func forChunks(n int, f func(w, c int)) {
	parallel.For(n, 0, func(w, lo, hi int) {
		for c := lo; c < hi; c++ {
			f(w, c)
		}
	})
}
