package gpu_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gpu"
)

// TestEngineWrapsEveryEdge runs the engine's step (perception gather, gate
// layers, update, fire masks) and its backward pass on periodic grids so
// small that every cell lies on an edge or a corner (2x3 and 3x2) or wraps
// onto itself (a side of 1), synchronous and asynchronous, against bptt's
// CPU engine: every step's state, the loss and every logit gradient. The
// model has trained 30 iterations (random logits reach a fixed point after
// one step, where a wrong neighbour changes nothing; see
// engine_trained_test.go), and the test requires that its rollouts keep
// changing. Three steps, so that a wrong wrap in one step's perception
// reaches the next step's. Bounds: TestTrainedEngineMatchesCPU's, whose
// measured errors on lavapipe are 1.0e-6 (a state value), 9e-8 (the loss,
// relative) and 8.2e-5 (a gradient, of the layer's largest); a neighbour read
// from the wrong cell changes a gate's input by up to 1.
func TestEngineWrapsEveryEdge(t *testing.T) {
	trained, _ := trainedCheckerboard(t, 6, 7, 3, 30)
	for _, c := range []struct{ h, w int }{{2, 3}, {3, 2}, {1, 4}, {4, 1}} {
		for _, async := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d async=%v", c.h, c.w, async), func(t *testing.T) {
				s, _, b := checkerboard(t, c.h, c.w, 3, 0)
				for i, p := range s.Model.Params() {
					copy(p.Data32(), trained.Model.Params()[i].Data32())
				}
				s.Async = async
				s.Model.Config.Boundary = circuit.Periodic
				want := cpuStates(s, b)
				requireVariety(t, want, s.Model.Config.Channels, 0.05)
				wantLoss, wantGrads, _ := cpuIteration(t, s, b)
				e := newEngine(t, s)
				loss, err := e.Iterate(b)
				if err != nil {
					t.Fatal(err)
				}
				got, err := gpu.States(e)
				if err != nil {
					t.Fatal(err)
				}
				compareStates(t, got, want, s.Model.Config.Channels, 1e-4)
				if math.Abs(loss-wantLoss) > 1e-5*math.Max(1, wantLoss) {
					t.Errorf("loss: gpu %v, cpu %v", loss, wantLoss)
				}
				compareGradients(t, e, layerNames(s.Model), wantGrads, 1e-3)
			})
		}
	}
}
