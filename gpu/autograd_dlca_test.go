package gpu_test

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
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
	g := newGraphTraining(t, dev, s)
	loss := g.gradients(t, b)
	params := g.params
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
	if err := g.opt.Step(); err != nil {
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

// graphTraining trains a copy of a setup's model through autograd's
// general graph on a device: dlca.Model.GraphRollout, bptt.Loss,
// ClipGradValue and AdamW, as the engine's iteration does.
type graphTraining struct {
	s      bptt.Setup
	m      *dlca.Model
	params []*autograd.Tensor
	opt    *optim.Adam // AdamW
	dev    autograd.Device
}

func newGraphTraining(t testing.TB, dev autograd.Device, s bptt.Setup) *graphTraining {
	t.Helper()
	m := s.Model.Clone()
	params := m.Params()
	for _, p := range params {
		p.SetRequiresGrad(true)
		if err := p.MoveTo(dev); err != nil {
			t.Fatal(err)
		}
	}
	o := s.Optimizer
	opt := optim.NewAdamW(params, optim.AdamWConfig{LR: o.LR, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, WeightDecay: o.WeightDecay})
	return &graphTraining{s: s, m: m, params: params, opt: opt, dev: dev}
}

// gradients runs the rollout of batch b and its backward pass, clips the
// gradients and returns the loss (on the device).
func (g *graphTraining) gradients(t testing.TB, b *bptt.Batch) *autograd.Tensor {
	t.Helper()
	s := g.s
	state, err := autograd.New(append([]float32(nil), b.Init...), s.Batch, b.Height, b.Width, g.m.Config.Channels).To(g.dev)
	if err != nil {
		t.Fatal(err)
	}
	target, err := autograd.New(append([]float32(nil), b.Target...), s.Batch, b.Height, b.Width, len(s.LossChannels)).To(g.dev)
	if err != nil {
		t.Fatal(err)
	}
	loss := bptt.Loss(g.m.GraphRollout(state, s.Steps), target, s.LossChannels)
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	optim.ClipGradValue(g.params, s.Optimizer.Clip)
	return loss
}

// iterate is one training iteration: gradients, then the AdamW step.
func (g *graphTraining) iterate(t testing.TB, b *bptt.Batch) {
	t.Helper()
	g.opt.ZeroGrad()
	g.gradients(t, b)
	if err := g.opt.Step(); err != nil {
		t.Fatal(err)
	}
}

// TestDispatchesPerDLCAIteration counts the kernel dispatches and command
// submissions of one training iteration of the checkerboard experiment
// (its steps and batch, on a 4x4 grid: the counts do not depend on the
// grid's size) on both GPU paths, the recorded engine and autograd's
// general graph, and, for the graph, the writes into storage buffers, their
// bytes and the buffers created; it prints them (go test ./gpu -run
// DispatchesPerDLCAIteration -v; docs/gpu.md and docs/PERFORMANCE.md record
// them). The engine submits twice (forward, backward with the step), and
// dispatches T-1 more while the state penalty is on (one per intermediate
// state), one more straight-through (gate_hard_coeffs), whose step it
// submits apart, after the loss; the graph's
// dispatches must be the same from one iteration to the next after the
// first (which also creates AdamW's moments). Its submissions vary a
// little: besides every 256 dispatches and the step's end, the pool submits
// when it runs short of buffers, which depends on the garbage collector.
// The periodic boundary adds the gathers and scatters of the wrap.
func TestDispatchesPerDLCAIteration(t *testing.T) {
	e, err := experiments.Get("checkerboard")
	if err != nil {
		t.Fatal(err)
	}
	for _, boundary := range []circuit.Boundary{circuit.Zero, circuit.Periodic} {
		t.Run(boundary.String(), func(t *testing.T) {
			s, _, b := checkerboard(t, 4, 4, e.Steps, 1)
			s.Model.Config.Boundary = boundary
			checkDispatchesPerIteration(t, s, b)
		})
	}
}

// iterationCounts is what one training iteration on an AutogradDevice
// recorded and sent (see AutogradDevice.Counts and Uploaded).
type iterationCounts struct {
	dispatches, submissions, writes int
	bytes                           int64
	created                         int
}

func checkDispatchesPerIteration(t *testing.T, s bptt.Setup, b *bptt.Batch) {
	eng := newEngine(t, s)
	if _, err := eng.Iterate(b); err != nil {
		t.Fatal(err)
	}
	engDispatches, engSubmissions := eng.Dispatches()
	if engDispatches == 0 || engSubmissions != 2 {
		t.Fatalf("engine: %d dispatches in %d submissions per iteration, want some in 2", engDispatches, engSubmissions)
	}
	// The state penalty adds one dispatch per intermediate state while on.
	for _, w := range []float64{0.01, 0} {
		eng.SetStatePenalty(w)
		if _, err := eng.Iterate(b); err != nil {
			t.Fatal(err)
		}
		want := engDispatches
		if w > 0 {
			want += s.Steps - 1
		}
		if got, subs := eng.Dispatches(); got != want || subs != 2 {
			t.Fatalf("engine with the state penalty %v: %d dispatches in %d submissions, want %d in 2", w, got, subs, want)
		}
	}
	// Straight-through adds gate_hard_coeffs and submits the step apart.
	for _, on := range []bool{true, false} {
		eng.SetStraightThrough(on)
		if _, err := eng.Iterate(b); err != nil {
			t.Fatal(err)
		}
		want, wantSubs := engDispatches, 2
		if on {
			want, wantSubs = engDispatches+1, 3
		}
		if got, subs := eng.Dispatches(); got != want || subs != wantSubs {
			t.Fatalf("engine with straight-through %v: %d dispatches in %d submissions, want %d in %d", on, got, subs, want, wantSubs)
		}
	}

	dev := gpu.TestDevice(t).Autograd()
	defer dev.Close()
	g := newGraphTraining(t, dev, s)
	var per [3]iterationCounts // the first iteration also makes AdamW's state
	for i := range per {
		d0, s0 := dev.Counts()
		w0, b0, c0 := dev.Uploaded()
		g.iterate(t, b)
		if err := dev.Sync(); err != nil {
			t.Fatal(err)
		}
		d1, s1 := dev.Counts()
		w1, b1, c1 := dev.Uploaded()
		per[i] = iterationCounts{d1 - d0, s1 - s0, w1 - w0, b1 - b0, c1 - c0}
	}
	if per[1].dispatches != per[2].dispatches || per[1].dispatches == 0 {
		t.Fatalf("autograd graph: %+v, %+v then %+v per iteration, want the same dispatches after the first, not none", per[0], per[1], per[2])
	}
	// After the first iteration only the batch goes to the device: the
	// wirings and the wrap's gather offsets are uploaded once (indexCache).
	inputs := int64(4 * (len(b.Init) + len(b.Target)))
	for i, c := range per[1:] {
		if c.writes != 2 || c.bytes != inputs {
			t.Errorf("autograd graph, iteration %d: %d writes of %d bytes into storage buffers, want 2 of %d (the batch's state and target; the index data was uploaded again)", i+2, c.writes, c.bytes, inputs)
		}
	}
	t.Logf("checkerboard, %d steps, batch %d, %d logit tensors, %v boundary: engine %d dispatches in %d submissions per iteration (%d with the state penalty, %d in 3 straight-through); autograd graph (GraphRollout) %d dispatches in %d and %d submissions (two iterations)",
		s.Steps, s.Batch, len(s.Model.Params()), s.Model.Config.Boundary, engDispatches, engSubmissions, engDispatches+s.Steps-1, engDispatches+1, per[1].dispatches, per[1].submissions, per[2].submissions)
	for i, c := range per {
		t.Logf("autograd graph, iteration %d: %d writes of %d bytes into storage buffers, %d buffers created", i+1, c.writes, c.bytes, c.created)
	}
}
