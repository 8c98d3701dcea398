package dlca

import (
	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/parallel"
)

// A step's gate layers fall into two phases, each a run of layers over the
// same rows: the perception layers over cells*C rows, the update layers
// over cells rows. Within a phase every row is independent of the others
// (a gate reads only its own row's inputs), so the step splits a phase's
// rows into tiles of whole blocks of gates.BlockRows rows and each worker
// takes its tiles through every layer of the phase, one tile at a time:
// one fork and join per phase instead of one per layer, and a tile's
// activations pass from layer to layer in the core's cache instead of
// memory. The results are bit for bit those of the layer-by-layer kernels:
// the forward pass is row by row, each input gradient is summed in gate
// order within its row, and the four per-gate sums are kept per block and
// added in block order afterwards (gates.AddPartialSums).

// tileBlocks is the most blocks of rows in a tile. Measured on the
// checkerboard (docs/perf/dlca.md), tiles of 1 or 2 blocks, whose layers
// would stay in L2, cost 15-25% more CPU time than 8: the gates' loops
// stream their vectors better over longer runs of rows, and the layers of
// a 256-row tile stay in L2 anyway.
const tileBlocks = 8

// phase is a run of the plan's layers [from, to) over the same rows.
type phase struct{ from, to int }

// phases returns the plan's perception and update phases.
func (p *plan) phases() (perception, update phase) {
	np := len(p.m.Perception)
	return phase{0, np}, phase{np, len(p.layers)}
}

// forTiles calls f(b0, b1) for every tile of blocks [b0, b1) of the phase's
// rows, spread over the workers, each worker taking a contiguous run of
// tiles (p.workers of them, GOMAXPROCS when 0). Which worker takes a tile
// changes nothing in the results.
func (p *plan) forTiles(ph phase, f func(b0, b1 int)) {
	blocks := p.layers[ph.from].d.Blocks()
	tb := max(1, min(tileBlocks, ceilDiv(blocks, parallel.Workers(blocks, p.workers))))
	parallel.For(ceilDiv(blocks, tb), p.workers, func(_, t0, t1 int) {
		for t := t0; t < t1; t++ {
			f(t*tb, min(blocks, (t+1)*tb))
		}
	})
}

// forwardPhase runs the phase's layers forward from x, the first layer's
// input, writing every layer's output into act.layers. prepare, if not
// nil, is called first on each tile's rows [lo, hi) (to fill x there).
func forwardPhase[F gates.Float](p *plan, act *activations[F], coeffs [][]F, ph phase, x []F, prepare func(lo, hi int)) {
	p.forTiles(ph, func(b0, b1 int) {
		if prepare != nil {
			prepare(b0*gates.BlockRows, min(p.layers[ph.from].d.Rows, b1*gates.BlockRows))
		}
		in := x
		for i := ph.from; i < ph.to; i++ {
			l := p.layers[i]
			lo, hi := b0*gates.BlockRows, min(l.d.Rows, b1*gates.BlockRows)
			gates.ForwardSoftFMRows(act.layers[i], in, coeffs[i], l.w, l.d, lo, hi)
			in = act.layers[i]
		}
	})
}

// backwardPhase runs the phase's layers backward, last first: layer i
// reads its input xs[i] and its output's gradient gs[i], and overwrites
// dxs[i] with its input's gradient on each tile's rows (the next layer
// down reads it as its gs) and partial[i], unless nil, with the tile's
// per-block sums.
func backwardPhase[F gates.Float](p *plan, ph phase, dxs, gs, xs, coeffs [][]F, partial [][]float64) {
	p.forTiles(ph, func(b0, b1 int) {
		for i := ph.to - 1; i >= ph.from; i-- {
			l := p.layers[i]
			gates.BackwardSoftFMBlocks(dxs[i], partial[i], gs[i], xs[i], coeffs[i], l.w, l.d, b0, b1)
		}
	})
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
