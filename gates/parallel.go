package gates

import "github.com/dlca/dlca/internal/parallel"

// chunkWork is the number of gate evaluations a kernel hands to one worker at
// a time: large enough that scheduling costs nothing, small enough that a
// 512-row layer still splits across the cores.
const chunkWork = 1 << 14

// chunkRows returns how many rows make one chunk of a layer with gatesPerRow
// gate evaluations per row. It depends only on the layer's shape, never on
// the number of workers, so reductions over chunks come out bit for bit the
// same however many goroutines run them.
func chunkRows(gatesPerRow int) int {
	return max(1, chunkWork/max(1, gatesPerRow))
}

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
