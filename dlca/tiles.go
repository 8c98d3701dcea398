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
//
// The perception phase keeps nothing: a tile gathers its rows of the
// neighbourhoods and runs them through the perception layers in its
// worker's own small buffers (a tileScratch), writing only the last
// layer's output, into the update network's input. Its backward pass does
// the same again before it backpropagates through the tile's layers. The
// perception's activations, more than half of what a step would keep on
// the lizard (128 channels), then never leave the core's cache, and a
// step keeps only the update network's input and outputs.

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

// forTiles calls f(w, b0, b1) for every tile of blocks [b0, b1) of the
// phase's rows, spread over the workers, each worker w taking a contiguous
// run of tiles (p.workers of them, GOMAXPROCS when 0). Which worker takes
// a tile changes nothing in the results.
func (p *plan) forTiles(ph phase, f func(w, b0, b1 int)) {
	blocks, tb := p.layers[ph.from].d.Blocks(), p.tileSize(ph)
	parallel.For(ceilDiv(blocks, tb), p.workers, func(w, t0, t1 int) {
		for t := t0; t < t1; t++ {
			f(w, t*tb, min(blocks, (t+1)*tb))
		}
	})
}

// tileSize returns the number of blocks of the phase's tiles.
func (p *plan) tileSize(ph phase) int {
	rows, _ := TileShape(p.layers[ph.from].d.Rows, p.workers)
	return rows / gates.BlockRows
}

// tileWorkers returns how many workers forTiles runs the phase on.
func (p *plan) tileWorkers(ph phase) int {
	_, workers := TileShape(p.layers[ph.from].d.Rows, p.workers)
	return workers
}

// TileShape returns the rows of the tiles (a whole number of blocks, the
// last tile possibly shorter) into which a step splits a phase of rows
// rows on workers goroutines (0: GOMAXPROCS), and how many goroutines then
// take tiles: the blocks shared evenly, at most tileBlocks per tile. Each
// of those goroutines keeps buffers for a perception tile of that many
// rows (package bptt counts them in its memory estimate).
func TileShape(rows, workers int) (tileRows, tileWorkers int) {
	blocks := ceilDiv(rows, gates.BlockRows)
	tb := max(1, min(tileBlocks, ceilDiv(blocks, parallel.Workers(blocks, workers))))
	return tb * gates.BlockRows, parallel.Workers(ceilDiv(blocks, tb), workers)
}

// tileScratch is one worker's buffers for a perception tile, each laid out
// like the step's arrays but over the tile's rows only: the
// neighbourhoods [9][rows], every perception layer's output
// [gates][rows], and two gradient buffers that take turns.
type tileScratch[F gates.Float] struct {
	nb     []F
	layers [][]F
	grad   [2][]F
}

// tileScratches returns s's tile buffers for the perception phase of p,
// one per worker, allocating what is missing or too small (the tiles of
// another grid, or of fewer workers, may be larger).
func (s *stepScratch[F]) tileScratches(p *plan) []*tileScratch[F] {
	percep, _ := p.phases()
	rows := p.tileSize(percep) * gates.BlockRows
	if len(s.tiles) > 0 && !s.tiles[0].fits(p, rows) {
		s.tiles = nil
	}
	for len(s.tiles) < p.tileWorkers(percep) {
		t := &tileScratch[F]{nb: make([]F, NeighbourhoodSize*rows)}
		largest := len(t.nb)
		for _, l := range p.layers[percep.from:percep.to] {
			t.layers = append(t.layers, make([]F, l.d.Gates()*rows))
			largest = max(largest, l.d.Gates()*rows)
		}
		t.grad = [2][]F{make([]F, largest), make([]F, largest)}
		s.tiles = append(s.tiles, t)
	}
	return s.tiles
}

// fits reports whether t holds p's perception tiles of rows rows.
func (t *tileScratch[F]) fits(p *plan, rows int) bool {
	percep, _ := p.phases()
	if len(t.nb) < NeighbourhoodSize*rows || len(t.layers) != percep.to-percep.from {
		return false
	}
	for i, l := range p.layers[percep.from:percep.to] {
		if len(t.layers[i]) < l.d.Gates()*rows || len(t.grad[0]) < l.d.Gates()*rows {
			return false
		}
	}
	return true
}

// tileDims returns layer l's dimensions over the rows [lo, hi) of a tile.
func tileDims(l fmLayer, lo, hi int) gates.Dims {
	d := l.d
	d.Rows = hi - lo
	return d
}

// rows returns the rows [lo, hi) of the phase's tile of blocks [b0, b1).
func (p *plan) rows(ph phase, b0, b1 int) (lo, hi int) {
	return b0 * gates.BlockRows, min(p.layers[ph.from].d.Rows, b1*gates.BlockRows)
}

// perceive runs a tile's rows [lo, hi) of fm, the state feature-major
// ([C][cells]), through the first upto perception layers into t (all of
// them for the update network's input; all but the last for the backward
// pass, which needs only their inputs). It returns the tile's
// neighbourhoods and those layers' outputs, each trimmed to the tile's
// rows.
func perceive[F gates.Float](p *plan, t *tileScratch[F], coeffs [][]F, fm []F, lo, hi, upto int) (nb []F, ys [][]F) {
	nb = t.nb[:NeighbourhoodSize*(hi-lo)]
	gatherRows(nb, fm, p.runs, p.g, lo, hi)
	in := nb
	ys = make([][]F, upto)
	for i := range upto {
		l := p.layers[i]
		d := tileDims(l, lo, hi)
		ys[i] = t.layers[i][:d.YLen()]
		gates.ForwardSoftFMRows(ys[i], in, coeffs[i], l.w, d, 0, d.Rows)
		in = ys[i]
	}
	return nb, ys
}

// forwardPerception runs the perception phase on fm, the state
// feature-major, tile by tile, and writes its output into the perception
// features of uin, the update network's input.
func forwardPerception[F gates.Float](p *plan, s *stepScratch[F], coeffs [][]F, fm, uin []F) {
	percep, _ := p.phases()
	cfg := p.m.Config
	tiles := s.tileScratches(p)
	p.forTiles(percep, func(w, b0, b1 int) {
		lo, hi := p.rows(percep, b0, b1)
		_, ys := perceive(p, tiles[w], coeffs, fm, lo, hi, percep.to)
		assembleUpdateInputRows(uin, ys[percep.to-1], lo, hi, p.g.Cells(), cfg.Channels, cfg.Kernels, cfg.PerceptionBits())
	})
}

// backwardPerception is forwardPerception's backward pass: from duin, the
// gradient of the update network's input, each tile recomputes its
// layers' inputs and backpropagates through them, writing its rows of the
// neighbourhoods' gradient dnb ([9][cells*C]) and partial[i], unless nil,
// with its blocks' sums of layer i. The recomputation steps with forward's
// coefficients (the forward pass's: the circuit's in a straight-through
// step), the backward pass with coeffs.
func backwardPerception[F gates.Float](p *plan, s *stepScratch[F], forward, coeffs [][]F, fm, duin, dnb []F, partial [][]float64) {
	percep, _ := p.phases()
	cfg := p.m.Config
	rows := p.g.Len()
	tiles := s.tileScratches(p)
	p.forTiles(percep, func(w, b0, b1 int) {
		t := tiles[w]
		lo, hi := p.rows(percep, b0, b1)
		nb, ys := perceive(p, t, forward, fm, lo, hi, percep.to-1)
		last := tileDims(p.layers[percep.to-1], lo, hi)
		g := t.grad[0][:last.YLen()]
		splitUpdateInputGradRows(g, duin, lo, hi, p.g.Cells(), cfg.Channels, cfg.Kernels, cfg.PerceptionBits())
		for i := percep.to - 1; i >= percep.from; i-- {
			l := p.layers[i]
			d := tileDims(l, lo, hi)
			x := nb
			if i > 0 {
				x = ys[i-1]
			}
			// The gradients take turns in the two buffers: layer i's
			// output gradient is in one, its input's goes to the other.
			dx := t.grad[(percep.to-i)%2][:d.XLen()]
			var pt []float64
			if partial[i] != nil {
				n := 4 * d.Gates()
				pt = partial[i][b0*n : b1*n]
			}
			gates.BackwardSoftFMBlocks(dx, pt, g, x, coeffs[i], l.w, d, 0, b1-b0)
			g = dx
		}
		for n := range NeighbourhoodSize {
			copy(dnb[n*rows+lo:n*rows+hi], g[n*(hi-lo):(n+1)*(hi-lo)])
		}
	})
}

// forwardUpdate runs the update phase's layers forward from act.uin,
// writing every layer's output into act.layers.
func forwardUpdate[F gates.Float](p *plan, act *activations[F], coeffs [][]F) {
	_, update := p.phases()
	p.forTiles(update, func(_, b0, b1 int) {
		lo, hi := p.rows(update, b0, b1)
		in := act.uin
		for i := update.from; i < update.to; i++ {
			l := p.layers[i]
			gates.ForwardSoftFMRows(act.layers[i-update.from], in, coeffs[i], l.w, l.d, lo, hi)
			in = act.layers[i-update.from]
		}
	})
}

// backwardUpdate runs the update phase's layers backward, last first:
// layer i reads its input xs[i] and its output's gradient gs[i], and
// overwrites dxs[i] with its input's gradient on each tile's rows (the
// next layer down reads it as its gs) and partial[i], unless nil, with the
// tile's per-block sums.
func backwardUpdate[F gates.Float](p *plan, dxs, gs, xs, coeffs [][]F, partial [][]float64) {
	_, update := p.phases()
	p.forTiles(update, func(_, b0, b1 int) {
		for i := update.to - 1; i >= update.from; i-- {
			l := p.layers[i]
			gates.BackwardSoftFMBlocks(dxs[i], partial[i], gs[i], xs[i], coeffs[i], l.w, l.d, b0, b1)
		}
	})
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
