package dlca

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// Grid is the shape of a batch of states [Batch, Height, Width, Channels]
// and its boundary.
type Grid struct {
	Batch, Height, Width, Channels int
	Boundary                       circuit.Boundary
}

// Cells returns the number of cells of the whole batch.
func (g Grid) Cells() int { return g.Batch * g.Height * g.Width }

// Len returns the number of values of a state, Cells*Channels.
func (g Grid) Len() int { return g.Cells() * g.Channels }

// gridOf reads the shape of a state tensor. It panics, naming op, unless the
// tensor is [B, H, W, C] with C = channels.
func gridOf(op string, state *autograd.Tensor, channels int, b circuit.Boundary) Grid {
	s := state.Shape()
	if len(s) != 4 || s[3] != channels || s[0] < 1 || s[1] < 1 || s[2] < 1 {
		panic(fmt.Sprintf("dlca: %s: state of shape %v, want [batch height width %d]", op, s, channels))
	}
	return Grid{Batch: s[0], Height: s[1], Width: s[2], Channels: s[3], Boundary: b}
}

// source returns the index within its image of the cell at (y+dy, x+dx), or
// -1 when that lies outside a zero-padded grid.
func (g Grid) source(y, x, dy, dx int) int {
	y, x = y+dy, x+dx
	if g.Boundary == circuit.Periodic {
		y = (y%g.Height + g.Height) % g.Height
		x = (x%g.Width + g.Width) % g.Width
	} else if y < 0 || y >= g.Height || x < 0 || x >= g.Width {
		return -1
	}
	return y*g.Width + x
}

// offset returns the row and column offsets of neighbourhood position n
// (row-major 3x3, n = Centre is (0, 0)).
func offset(n int) (dy, dx int) { return n/3 - 1, n%3 - 1 }

// GatherNeighbourhood writes every cell's 3x3 neighbourhood of state
// ([cells, C]) into nb feature-major, [9][C][cells]: nb[(n*C + c)*cells +
// cell] is channel c of the cell at position n (row-major 3x3, 4 = the cell
// itself; 0 beyond a zero boundary). The first perception layer reads it as
// its shared input: 9 features over C*cells rows. It is the fused step's
// gather; executors that keep their own buffers (the GPU's CPU twin) call
// it too. It panics if the lengths disagree with g.
func GatherNeighbourhood[F gates.Float](nb, state []F, g Grid) {
	g.checkLens("GatherNeighbourhood", len(nb), len(state))
	fm := make([]F, len(state))
	gates.Transpose(fm, state, g.Cells(), g.Channels)
	gatherRows(nb, fm, g.runs(), g, 0, g.Len())
}

// gatherRows is GatherNeighbourhood on the rows [lo, hi) only (row
// ch*cells + cell is channel ch of a cell), from the state transposed,
// fm ([C][cells]), runs being g.runs(): it writes nb [9][hi-lo], the
// neighbourhoods of those rows. The fused step gathers each tile's rows as
// the tile starts.
//
// NOTE: a row of cells sees a row of cells, so the gather is a few
// copies per row of the grid (runs); cell by cell, from [cells, C], each
// read was a cache line of its own (128 channels apart on the lizard),
// and the gather took 9% of an iteration.
func gatherRows[F gates.Float](nb, fm []F, runs [][]run, g Grid, lo, hi int) {
	cells, rows := g.Cells(), hi-lo
	for n := range NeighbourhoodSize {
		out := nb[n*rows : (n+1)*rows]
		for r := lo; r < hi; {
			ch, first := r/cells, r%cells
			last := min(cells, first+hi-r) // the rest of the tile in this channel
			o, st := out[r-lo:r-lo+last-first], fm[ch*cells:(ch+1)*cells]
			for _, ru := range runs[n] {
				a, b := max(first, ru.cell), min(last, ru.cell+ru.n)
				switch {
				case a >= b:
					continue
				case ru.src < 0:
					clear(o[a-first : b-first])
				default:
					copy(o[a-first:b-first], st[ru.src+a-ru.cell:])
				}
			}
			r += last - first
		}
	}
}

// AddNeighbourhoodGrad is GatherNeighbourhood's backward pass: it adds to
// dstate ([cells, C]) the gradient dnb ([9][C][cells]) of the gathered
// values, as a gather (each cell sums, in increasing position n, what the
// cells that see it received for it), so it writes each element once. It
// panics if the lengths disagree with g.
func AddNeighbourhoodGrad[F gates.Float](dstate, dnb []F, g Grid) {
	g.checkLens("AddNeighbourhoodGrad", len(dnb), len(dstate))
	fm := make([]F, len(dstate))
	gates.Transpose(fm, dstate, g.Cells(), g.Channels)
	addNeighbourhoodGrad(fm, dnb, g.runs(), g)
	gates.Transpose(dstate, fm, g.Channels, g.Cells())
}

// addNeighbourhoodGrad is AddNeighbourhoodGrad with runs = g.runs() on
// the state's gradient transposed, dfm ([C][cells]).
//
// NOTE: feature-major, a run of cells adds a run of gradients; on
// [cells, C] the gradient was read a row of cells apart. Each element
// still sums its terms in increasing n, so the bits are the same.
func addNeighbourhoodGrad[F gates.Float](dfm, dnb []F, runs [][]run, g Grid) {
	addNeighbourhoodGradChannels(dfm, dnb, runs, g, 0, g.Channels)
}

// addNeighbourhoodGradChannels is addNeighbourhoodGrad on the channels
// [c0, c1) only: the channels are independent, so the step spreads them
// over its workers.
func addNeighbourhoodGradChannels[F gates.Float](dfm, dnb []F, runs [][]run, g Grid, c0, c1 int) {
	c, cells := g.Channels, g.Cells()
	for ch := c0; ch < c1; ch++ {
		ds := dfm[ch*cells : (ch+1)*cells]
		for n := range NeighbourhoodSize {
			// The cells that see a run of cells at position n are those
			// that run sees at the opposite position, 8 - n.
			d := dnb[(n*c+ch)*cells : (n*c+ch+1)*cells]
			for _, ru := range runs[NeighbourhoodSize-1-n] {
				if ru.src < 0 {
					continue
				}
				to, from := ds[ru.cell:ru.cell+ru.n], d[ru.src:ru.src+ru.n]
				for i := range to {
					to[i] += from[i]
				}
			}
		}
	}
}

// run is a run of n cells of the batch, from cell on, that see at some
// position the n cells from src on, or nothing (zeros) when src < 0.
type run struct{ cell, src, n int }

// runs returns, for every position n, the runs of cells that cover the
// batch in order: g.sources() in pieces.
func (g Grid) runs() [][]run {
	src, cells := g.sources(), g.Cells()
	runs := make([][]run, NeighbourhoodSize)
	for n := range runs {
		seen := src[n*cells : (n+1)*cells]
		for cell, s := range seen {
			last := len(runs[n]) - 1
			if cell > 0 {
				prev := runs[n][last]
				if s < 0 && prev.src < 0 || s >= 0 && prev.src >= 0 && int(s) == prev.src+prev.n {
					runs[n][last].n++
					continue
				}
			}
			runs[n] = append(runs[n], run{cell: cell, src: int(s), n: 1})
		}
	}
	return runs
}

// sources returns, for every position n and cell of the batch, the cell
// it sees at n, or -1 beyond a zero boundary: sources[n*cells + cell].
func (g Grid) sources() []int32 {
	cells, hw := g.Cells(), g.Height*g.Width
	src := make([]int32, NeighbourhoodSize*cells)
	cols := make([]int, g.Width)
	for n := range NeighbourhoodSize {
		dy, dx := offset(n)
		for x := range g.Width {
			cols[x] = g.source(0, x, 0, dx) // the column seen, or -1
		}
		for y := range g.Height {
			row := g.source(y, 0, dy, 0) // the row seen times Width, or -1
			out := src[n*cells+y*g.Width : n*cells+(y+1)*g.Width]
			for x, col := range cols {
				out[x] = -1
				if row >= 0 && col >= 0 {
					out[x] = int32(row + col)
				}
			}
		}
		for b := 1; b < g.Batch; b++ {
			first, img := src[n*cells:n*cells+hw], src[n*cells+b*hw:n*cells+(b+1)*hw]
			for i, s := range first {
				img[i] = s
				if s >= 0 {
					img[i] = s + int32(b*hw)
				}
			}
		}
	}
	return src
}

// checkLens panics, naming op, unless state has g.Len() values and nb 9
// per state value.
func (g Grid) checkLens(op string, nb, state int) {
	if state != g.Len() || nb != NeighbourhoodSize*g.Len() {
		panic(fmt.Sprintf("dlca: %s: %d neighbourhood values and %d state values for %+v", op, nb, state, g))
	}
}
