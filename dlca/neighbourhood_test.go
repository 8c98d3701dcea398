package dlca

import (
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// TestNeighbourhoodMatchesReference: the feature-major gather gives the
// composed reference's values and, for a random upstream gradient, the same
// state gradient, on grids that are not square, for both boundaries.
func TestNeighbourhoodMatchesReference(t *testing.T) {
	for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		t.Run(b.String(), func(t *testing.T) {
			g := Grid{Batch: 2, Height: 3, Width: 5, Channels: 2, Boundary: b}
			s := randomState(autograd.Float64, 3, g.Batch, g.Height, g.Width, g.Channels).SetRequiresGrad(true)
			want := referenceNeighbourhood(s, b) // [cells*C, 9], row (cell, channel)
			nb := make([]float64, 9*g.Len())
			GatherNeighbourhood(nb, s.Data64(), g)
			seed := randomState(autograd.Float64, 4, g.Len(), 9, 1, 1).Data64()
			dnb := make([]float64, len(seed)) // seed, feature-major
			for row := range g.Len() {        // row = cell*C + ch
				cell, ch := row/g.Channels, row%g.Channels
				for n := range 9 {
					fm := (n*g.Channels+ch)*g.Cells() + cell
					if got, w := nb[fm], want.Data64()[row*9+n]; got != w {
						t.Fatalf("cell %d channel %d position %d: %v, reference %v", cell, ch, n, got, w)
					}
					dnb[fm] = seed[row*9+n]
				}
			}
			if err := want.BackwardWith(autograd.New64(seed, g.Len(), 9)); err != nil {
				t.Fatal(err)
			}
			ds := make([]float64, g.Len())
			AddNeighbourhoodGrad(ds, dnb, g)
			assertClose(t, "gradient", autograd.New64(ds, s.Shape()...), s.Grad(), 1e-12)
		})
	}
}

// The centre of the neighbourhood is the cell itself; beyond a zero
// boundary the corner cell sees zeros.
func TestNeighbourhoodLayout(t *testing.T) {
	g := Grid{Batch: 1, Height: 2, Width: 2, Channels: 1}
	state := []float32{1, 2, 3, 4} // cells (0,0)=1 (0,1)=2 (1,0)=3 (1,1)=4
	nb := make([]float32, 9*g.Len())
	for _, tc := range []struct {
		b    circuit.Boundary
		want []float32 // cell (0,0), row-major 3x3
	}{
		{circuit.Zero, []float32{0, 0, 0, 0, 1, 2, 0, 3, 4}},
		{circuit.Periodic, []float32{4, 3, 4, 2, 1, 2, 4, 3, 4}},
	} {
		g.Boundary = tc.b
		GatherNeighbourhood(nb, state, g)
		for n, v := range tc.want {
			if got := nb[n*g.Cells()]; got != v { // feature n, row (channel 0, cell 0)
				t.Fatalf("%v: position %d of cell (0,0): %v, want %v", tc.b, n, got, v)
			}
		}
	}
}

// TestGatherRowsInPieces: gathering the rows in pieces that cross channels
// (as the step's tiles do when the cells are not a multiple of 128), each
// into a buffer of its own rows, gives GatherNeighbourhood's values.
func TestGatherRowsInPieces(t *testing.T) {
	for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		g := Grid{Batch: 2, Height: 3, Width: 5, Channels: 3, Boundary: b}
		s := randomState(autograd.Float64, 5, g.Batch, g.Height, g.Width, g.Channels).Data64()
		want := make([]float64, 9*g.Len())
		GatherNeighbourhood(want, s, g)
		fm := make([]float64, len(s))
		gates.Transpose(fm, s, g.Cells(), g.Channels)
		for _, step := range []int{1, 7, 29, g.Len()} {
			got := make([]float64, len(want))
			for lo := 0; lo < g.Len(); lo += step {
				hi := min(g.Len(), lo+step)
				piece := make([]float64, 9*(hi-lo))
				gatherRows(piece, fm, g.runs(), g, lo, hi)
				for n := range 9 {
					copy(got[n*g.Len()+lo:n*g.Len()+hi], piece[n*(hi-lo):(n+1)*(hi-lo)])
				}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%v, pieces of %d rows: nb[%d] = %v, want %v", b, step, i, got[i], want[i])
				}
			}
		}
	}
}
