package dlca

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// grid is the shape of a batch of states [Batch, Height, Width, Channels]
// and its boundary.
type grid struct {
	Batch, Height, Width, Channels int
	Boundary                       circuit.Boundary
}

// cells returns the number of cells of the whole batch.
func (g grid) cells() int { return g.Batch * g.Height * g.Width }

// gridOf reads the shape of a state tensor. It panics, naming op, unless the
// tensor is [B, H, W, C] with C = channels.
func gridOf(op string, state *autograd.Tensor, channels int, b circuit.Boundary) grid {
	s := state.Shape()
	if len(s) != 4 || s[3] != channels || s[0] < 1 || s[1] < 1 || s[2] < 1 {
		panic(fmt.Sprintf("dlca: %s: state of shape %v, want [batch height width %d]", op, s, channels))
	}
	return grid{Batch: s[0], Height: s[1], Width: s[2], Channels: s[3], Boundary: b}
}

// source returns the index within its image of the cell at (y+dy, x+dx), or
// -1 when that lies outside a zero-padded grid.
func (g grid) source(y, x, dy, dx int) int {
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

// nbLayout says where the gathered neighbourhood value (cell, channel,
// position) goes: at cell*Cell + channel*Channel + position*Pos.
type nbLayout struct{ Cell, Channel, Pos int }

// rowMajor is the layout [cells, C, 9] of the Neighbourhood op.
func (g grid) rowMajor() nbLayout {
	return nbLayout{Cell: g.Channels * NeighbourhoodSize, Channel: NeighbourhoodSize, Pos: 1}
}

// featureMajor is the fused step's layout [9][C][cells].
func (g grid) featureMajor() nbLayout {
	return nbLayout{Cell: 1, Channel: g.cells(), Pos: g.cells() * g.Channels}
}

// gatherNeighbourhood writes into nb, laid out as lay says, the value of
// channel c of the cell at position n of each cell's 3x3 neighbourhood (0
// beyond a zero boundary). state is [cells, C].
func gatherNeighbourhood[F gates.Float](nb, state []F, g grid, lay nbLayout) {
	c := g.Channels
	hw := g.Height * g.Width
	for b := range g.Batch {
		for y := range g.Height {
			for x := range g.Width {
				cell := b*hw + y*g.Width + x
				for n := range NeighbourhoodSize {
					dy, dx := offset(n)
					src := g.source(y, x, dy, dx)
					for ch := range c {
						v := F(0)
						if src >= 0 {
							v = state[(b*hw+src)*c+ch]
						}
						nb[cell*lay.Cell+ch*lay.Channel+n*lay.Pos] = v
					}
				}
			}
		}
	}
}

// addNeighbourhoodGrad is gatherNeighbourhood's backward pass: it adds to
// dstate the gradient dnb of the gathered values, as a gather (each cell sums
// what the cells that see it received for it), so it writes each element once.
func addNeighbourhoodGrad[F gates.Float](dstate, dnb []F, g grid, lay nbLayout) {
	c := g.Channels
	hw := g.Height * g.Width
	for b := range g.Batch {
		for y := range g.Height {
			for x := range g.Width {
				cell := b*hw + y*g.Width + x
				for n := range NeighbourhoodSize {
					dy, dx := offset(n)
					// The cell that sees this one at position n.
					viewer := g.source(y, x, -dy, -dx)
					if viewer < 0 {
						continue
					}
					viewer += b * hw
					for ch := range c {
						dstate[cell*c+ch] += dnb[viewer*lay.Cell+ch*lay.Channel+n*lay.Pos]
					}
				}
			}
		}
	}
}

// Neighbourhood returns each cell's 3x3 neighbourhood, channel by channel:
// state [B, H, W, C] becomes [B*H*W*C, 9] with row (cell, channel) holding
// the channel's values at the 9 positions (row-major, 4 = the cell itself;
// zeros beyond a zero boundary). It is one autograd op. Neighbourhood panics
// if state is not 4-D.
func Neighbourhood(state *autograd.Tensor, b circuit.Boundary) *autograd.Tensor {
	s := state.Shape()
	if len(s) != 4 {
		panic(fmt.Sprintf("dlca: Neighbourhood: state of shape %v, want [batch height width channels]", s))
	}
	return autograd.Apply(neighbourhoodOp{gridOf("Neighbourhood", state, s[3], b)}, state)
}

type neighbourhoodOp struct{ g grid }

func (neighbourhoodOp) Name() string { return "dlca.Neighbourhood" }

func (op neighbourhoodOp) Forward(in []*autograd.Tensor) *autograd.Tensor {
	out := autograd.Zeros(in[0].DType(), op.g.cells()*op.g.Channels, NeighbourhoodSize)
	if in[0].DType() == autograd.Float64 {
		gatherNeighbourhood(out.Data64(), in[0].Data64(), op.g, op.g.rowMajor())
	} else {
		gatherNeighbourhood(out.Data32(), in[0].Data32(), op.g, op.g.rowMajor())
	}
	return out
}

func (op neighbourhoodOp) Backward(grad *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	d := autograd.ZerosLike(in[0])
	if d.DType() == autograd.Float64 {
		addNeighbourhoodGrad(d.Data64(), grad.Data64(), op.g, op.g.rowMajor())
	} else {
		addNeighbourhoodGrad(d.Data32(), grad.Data32(), op.g, op.g.rowMajor())
	}
	return []*autograd.Tensor{d}
}
