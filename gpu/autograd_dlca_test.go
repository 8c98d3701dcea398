package gpu_test

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gpu"
)

// graphStep is one synchronous step of m written with autograd's general
// ops, as dlca's ReferenceRollout, but with each gate layer as the fused op
// (gates.Layer.Forward): on a device, every op of it runs there.
func graphStep(m *dlca.Model, state *autograd.Tensor) *autograd.Tensor {
	cfg := m.Config
	s := state.Shape()
	bsz, h, w, c := s[0], s[1], s[2], s[3]
	n := bsz * h * w
	var padded *autograd.Tensor
	if cfg.Boundary == circuit.Periodic { // rows n-1, 0, ..., n-1, 0
		wrap := func(n int) []int { return append(append([]int{n - 1}, seq(n)...), 0) }
		padded = autograd.IndexSelect(autograd.IndexSelect(state, 1, wrap(h)), 2, wrap(w))
	} else {
		padded = autograd.Pad(state, 0, 0, 0, 1, 1, 1, 1, 0, 0)
	}
	var views []*autograd.Tensor
	for k := range dlca.NeighbourhoodSize {
		dy, dx := k/3-1, k%3-1 // row-major 3x3, 4 = the cell itself
		views = append(views, autograd.Narrow(autograd.Narrow(padded, 1, 1+dy, h), 2, 1+dx, w))
	}
	x := autograd.Reshape(autograd.Stack(4, views...), n*c, dlca.NeighbourhoodSize)
	for _, l := range m.Perception {
		x = l.Forward(x)
	}
	bits := cfg.PerceptionBits()
	percep := autograd.Reshape(autograd.Permute(autograd.Reshape(x, n, c, cfg.Kernels, bits), 0, 1, 3, 2), n, c*bits*cfg.Kernels)
	x = autograd.Cat(1, autograd.Reshape(state, n, c), percep)
	for _, l := range m.Update {
		x = autograd.Reshape(l.Forward(x), n, l.Out)
	}
	return autograd.Reshape(x, bsz, h, w, c)
}

// seq returns 0, 1, ..., n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestDLCAThroughAutogradOnGPU trains the checkerboard architecture through
// autograd's general graph on the GPU (gpu.AutogradDevice: pad, slices,
// stack, permute, cat, the fused gate op, bptt's loss, clipping and AdamW)
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
	for range s.Steps {
		state = graphStep(m, state)
	}
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
