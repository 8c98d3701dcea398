package dlca

import (
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
)

// TestGraphRolloutMatchesReference holds GraphRollout (general ops, fused
// gate layers) to ReferenceRollout (general ops, composed gate layers):
// the same final state and gradients, in both boundaries.
func TestGraphRolloutMatchesReference(t *testing.T) {
	for _, b := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		t.Run(b.String(), func(t *testing.T) {
			graph := tinyModel(t, tinyConfig(b), 12)
			ref := graph.Clone()
			target := randomState(autograd.Float64, 5, 2, 4, 4, 1)
			s1 := randomState(autograd.Float64, 7, 2, 4, 4, 2).SetRequiresGrad(true)
			s2 := s1.Clone().SetRequiresGrad(true)
			got, want := graph.GraphRollout(s1, 3), ref.ReferenceRollout(s2, 3)
			assertClose(t, "final state", got, want, 1e-12)
			for _, final := range []*autograd.Tensor{got, want} {
				if err := sse(final, target).Backward(); err != nil {
					t.Fatal(err)
				}
			}
			for i, p := range graph.Params() {
				assertClose(t, "gradient of "+graph.Layers()[i].Name, p.Grad(), ref.Params()[i].Grad(), 1e-10)
			}
			assertClose(t, "gradient of the state", s1.Grad(), s2.Grad(), 1e-10)
		})
	}
}
