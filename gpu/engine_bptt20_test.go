package gpu_test

import (
	"math"
	"testing"

	"github.com/dlca/dlca/circuit"
)

// worstGradientError is compareLayerGradients' measure, for a test to
// report: the largest |gpu - cpu| of any layer's logit gradient as a
// fraction of that layer's largest CPU gradient, and the layer.
func worstGradientError(names []string, got [][]float32, want [][]float64) (float64, string) {
	worst, layer := 0.0, ""
	for li, w := range want {
		scale, d := 0.0, 0.0
		for i, v := range w {
			scale = math.Max(scale, math.Abs(v))
			d = math.Max(d, math.Abs(float64(got[li][i])-v))
		}
		if rel := d / math.Max(scale, 1e-30); rel > worst || math.IsNaN(rel) {
			worst, layer = rel, names[li]
		}
	}
	return worst, layer
}

// TestEngineBPTT20MatchesCPU holds a 20-step BPTT of the checkerboard (the
// paper's number of steps) on the GPU to bptt's CPU engine: every logit
// gradient within 1e-4 of its layer's largest, the loss within 1e-5
// (relative). The model is engine_trained_test.go's, trained 50 iterations
// on 6-step rollouts, so that its rollouts keep changing for the first 6
// steps (checked; later steps may settle, as they do for a model in
// training). What is
// measured: the GPU sums in float32 in its own order, the CPU in float64;
// the difference grows with the steps the gradient flows back through. On
// lavapipe the worst layer is within 5.6e-5 of its scale (asynchronous,
// periodic; 3.0e-5 synchronous) and the loss is the CPU's to the last bit.
// The bound is the seed's figure for this comparison, 1e-4 of the layer's
// scale, and it is tight: a device that rounds differently (a GPU that
// contracts a·b + c into one FMA rounds once less per gate) may need more,
// and should show by how much here before the bound moves. A wrong step
// (the previous step's state read, an edge lost) changes the gradients by
// far more.
func TestEngineBPTT20MatchesCPU(t *testing.T) {
	const h, w, steps = 6, 7, 20
	trained, src := trainedCheckerboard(t, h, w, 6, 50)
	for _, c := range []struct {
		async    bool
		boundary circuit.Boundary
	}{{false, circuit.Zero}, {true, circuit.Periodic}} {
		t.Run(caseName(c.async, c.boundary), func(t *testing.T) {
			s := trained
			s.Model = trained.Model.Clone()
			s.Steps = steps
			s.Async, s.Model.Config.Boundary = c.async, c.boundary
			b := src(rngFor(7))
			b.FireSeed = 5
			// Its first 6 steps keep changing, as in training; later
			// ones may settle (the model trained on 6-step rollouts).
			requireVariety(t, cpuStates(s, b)[:7], s.Model.Config.Channels, 0.05)
			wantLoss, want, _ := cpuIteration(t, s, b)
			e := newEngine(t, s)
			loss, err := e.Iterate(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.LogitGrads()
			if err != nil {
				t.Fatal(err)
			}
			names := layerNames(s.Model)
			worst, layer := worstGradientError(names, got, want)
			lossErr := math.Abs(loss-wantLoss) / math.Max(1, wantLoss)
			t.Logf("%d steps: loss gpu %v, cpu %v (%.2g relative); worst gradient error %.2g of its layer's scale (%s)",
				steps, loss, wantLoss, lossErr, worst, layer)
			if !(lossErr <= 1e-5) {
				t.Errorf("loss: gpu %v, cpu %v: %.2g relative, over 1e-5", loss, wantLoss, lossErr)
			}
			compareLayerGradients(t, "gpu", names, got, want, 1e-4)
		})
	}
}
