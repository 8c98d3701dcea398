package dlca

import (
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
)

// TestNeighbourhoodMatchesReference: the gather op gives the composed
// reference's values and, for a random upstream gradient, the same state
// gradient, on grids that are not square, for both boundaries.
func TestNeighbourhoodMatchesReference(t *testing.T) {
	for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		t.Run(b.String(), func(t *testing.T) {
			s1 := randomState(autograd.Float64, 3, 2, 3, 5, 2).SetRequiresGrad(true)
			s2 := s1.Clone().SetRequiresGrad(true)
			got, want := Neighbourhood(s1, b), referenceNeighbourhood(s2, b)
			assertClose(t, "neighbourhood", got, want, 0)
			seed := randomState(autograd.Float64, 4, 2*3*5*2, 9, 1, 1)
			g := autograd.Reshape(seed, 2*3*5*2, 9)
			if err := got.BackwardWith(g.Detach()); err != nil {
				t.Fatal(err)
			}
			if err := want.BackwardWith(g.Detach()); err != nil {
				t.Fatal(err)
			}
			assertClose(t, "gradient", s1.Grad(), s2.Grad(), 1e-12)
		})
	}
}

// The centre of the neighbourhood is the cell itself; beyond a zero
// boundary the corner cell sees zeros.
func TestNeighbourhoodLayout(t *testing.T) {
	s := autograd.New([]float32{1, 2, 3, 4}, 1, 2, 2, 1) // cells (0,0)=1 (0,1)=2 (1,0)=3 (1,1)=4
	nb := Neighbourhood(s, circuit.Zero)
	want := []float32{0, 0, 0, 0, 1, 2, 0, 3, 4} // cell (0,0), row-major 3x3
	for n, v := range want {
		if nb.Data32()[n] != v {
			t.Fatalf("position %d of cell (0,0): %v, want %v (got %v)", n, nb.Data32()[n], v, nb.Data32()[:9])
		}
	}
	per := Neighbourhood(s, circuit.Periodic)
	want = []float32{4, 3, 4, 2, 1, 2, 4, 3, 4}
	for n, v := range want {
		if per.Data32()[n] != v {
			t.Fatalf("periodic position %d of cell (0,0): %v, want %v", n, per.Data32()[n], v)
		}
	}
}
