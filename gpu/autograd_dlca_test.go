package gpu_test

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gpu"
)

// TestDLCAThroughAutogradOnGPU trains the checkerboard architecture through
// autograd's general graph on the GPU (dlca.Model.GraphRollout on
// gpu.AutogradDevice: pad or wrap, slices, stack, permute, cat, the fused
// gate op; bptt's loss, clipping and AdamW)
// and holds its loss, clipped logit gradients and updated logits to the
// recorded engine's iteration on the same model and batch, and so, through
// TestEngineMatchesCPU, to the CPU.
func TestDLCAThroughAutogradOnGPU(t *testing.T) {
	for _, boundary := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		t.Run(boundary.String(), func(t *testing.T) { checkDLCAThroughAutograd(t, boundary) })
	}
}

func checkDLCAThroughAutograd(t *testing.T, boundary circuit.Boundary) {
	s, _, b := checkerboard(t, 5, 6, 3, 1)
	s.Model.Config.Boundary = boundary
	e := newEngine(t, s)
	wantLoss, err := e.Iterate(b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := e.LogitGrads()
	if err != nil {
		t.Fatal(err)
	}
	updated, err := e.Model()
	if err != nil {
		t.Fatal(err)
	}

	dev := gpu.TestDevice(t).Autograd()
	defer dev.Close()
	m := s.Model.Clone()
	params := m.Params()
	for _, p := range params {
		p.SetRequiresGrad(true)
		if err := p.MoveTo(dev); err != nil {
			t.Fatal(err)
		}
	}
	c := m.Config.Channels
	state, err := autograd.New(append([]float32(nil), b.Init...), s.Batch, b.Height, b.Width, c).To(dev)
	if err != nil {
		t.Fatal(err)
	}
	target, err := autograd.New(append([]float32(nil), b.Target...), s.Batch, b.Height, b.Width, len(s.LossChannels)).To(dev)
	if err != nil {
		t.Fatal(err)
	}
	state = m.GraphRollout(state, s.Steps)
	loss := bptt.Loss(state, target, s.LossChannels)
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	optim.ClipGradValue(params, s.Optimizer.Clip)
	got, err := loss.To(autograd.CPU)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Item()-wantLoss) > 1e-4*math.Max(1, wantLoss) {
		t.Errorf("loss: autograd on the GPU %v, engine %v", got.Item(), wantLoss)
	}
	names := layerNames(s.Model)
	for li, p := range params {
		g, err := p.Grad().To(autograd.CPU)
		if err != nil {
			t.Fatal(err)
		}
		scale, worst, at := 0.0, 0.0, 0
		for _, v := range want[li] {
			scale = math.Max(scale, math.Abs(float64(v)))
		}
		for i, v := range want[li] {
			if d := math.Abs(g.At(i) - float64(v)); d > worst || math.IsNaN(d) {
				worst, at = d, i
			}
		}
		if rel := worst / math.Max(scale, 1e-30); rel > 1e-3 || math.IsNaN(rel) {
			t.Errorf("layer %s: logit gradient %d: autograd on the GPU %v, engine %v (error %.3g of the layer's scale %.3g)",
				names[li], at, g.At(at), want[li][at], rel, scale)
		}
	}
	o := s.Optimizer
	opt := optim.NewAdamW(params, optim.AdamWConfig{LR: o.LR, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, WeightDecay: o.WeightDecay})
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	for li, p := range params {
		got, err := p.To(autograd.CPU)
		if err != nil {
			t.Fatal(err)
		}
		w := updated.Params()[li]
		for i := range w.Len() {
			if d := math.Abs(got.At(i) - w.At(i)); d > 1e-5*math.Max(1, math.Abs(w.At(i))) {
				t.Fatalf("layer %s: logit %d after AdamW: autograd on the GPU %v, engine %v", names[li], i, got.At(i), w.At(i))
			}
		}
	}
}
