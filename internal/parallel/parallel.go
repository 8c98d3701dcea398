// Package parallel is the project's one parallel for loop: it splits a
// range of indices into fixed contiguous parts, one per goroutine.
//
// The parts depend only on the range's length and the number of workers,
// and each is a contiguous run of indices, so a caller that writes each
// index's own outputs, or keeps partial results per part or per fixed chunk
// and combines them in index order, gets the same bits however many
// goroutines run.
package parallel

import (
	"runtime"
	"sync"
)

// Workers returns how many goroutines For uses for n indices when asked for
// workers: GOMAXPROCS when workers <= 0, never more than n, at least 1.
func Workers(n, workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, min(n, workers))
}

// For calls body(w, lo, hi) for each part w of [0, n), with k = Workers(n,
// workers) parts, part w being [n*w/k, n*(w+1)/k), and returns when all
// have returned. Each part runs on a goroutine of its own, except when there
// is only one part: then it runs on the calling goroutine. w numbers the
// parts 0 .. k-1, so that body can keep scratch space per part. Nothing is
// called when n <= 0.
func For(n, workers int, body func(w, lo, hi int)) {
	if n <= 0 {
		return
	}
	k := Workers(n, workers)
	if k == 1 {
		body(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range k {
		wg.Go(func() { body(w, n*w/k, n*(w+1)/k) })
	}
	wg.Wait()
}
