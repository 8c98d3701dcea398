package gpu_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/gpu"
)

// checkerboard returns the paper's checkerboard architecture (16 kernels
// [9 8 4 2], update [256]x10, 128 ... 8) on an h x w grid with steps steps,
// its logits random normal with deviation std (0: the paper's
// initialisation) so that every gradient is non-trivial, the experiment's
// own batch source on that grid, and one batch from it.
func checkerboard(t *testing.T, h, w, steps int, std float64) (bptt.Setup, bptt.Source, *bptt.Batch) {
	t.Helper()
	e, err := experiments.Get("checkerboard")
	if err != nil {
		t.Fatal(err)
	}
	e.Model.Height, e.Model.Width = h, w
	e.Steps = steps
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 1))
	for _, p := range m.Params() {
		for i := range p.Len() {
			if std > 0 {
				p.SetAt(i, std*rng.NormFloat64())
			}
		}
	}
	src := e.Source()
	b := src(rand.New(rand.NewPCG(12, 1)))
	b.FireSeed = 99
	return e.Setup(m), src, b
}

// cpuGradients is what bptt's CPU engine computes before its optimiser
// step: the loss and the clipped logit gradients, in Layers order.
func cpuGradients(t *testing.T, s bptt.Setup, b *bptt.Batch) (float64, [][]float64) {
	t.Helper()
	loss, grads, _ := cpuIteration(t, s, b)
	return loss, grads
}

// cpuIteration is cpuGradients with the final state of the rollout.
func cpuIteration(t *testing.T, s bptt.Setup, b *bptt.Batch) (float64, [][]float64, []float32) {
	t.Helper()
	m := s.Model.Clone()
	params := m.Params()
	for _, p := range params {
		p.SetRequiresGrad(true)
	}
	c := m.Config.Channels
	init := autograd.New(append([]float32(nil), b.Init...), s.Batch, b.Height, b.Width, c)
	target := autograd.New(append([]float32(nil), b.Target...), s.Batch, b.Height, b.Width, len(s.LossChannels))
	final := m.Rollout(init, s.Steps, dlca.RolloutOptions{Async: s.Async, Seed: b.FireSeed})
	loss := bptt.Loss(final, target, s.LossChannels)
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	optim.ClipGradValue(params, s.Optimizer.Clip)
	var grads [][]float64
	for _, p := range params {
		g := make([]float64, p.Len())
		for i := range g {
			g[i] = p.Grad().At(i)
		}
		grads = append(grads, g)
	}
	return loss.Item(), grads, final.Data32()
}

func newEngine(t *testing.T, s bptt.Setup) *gpu.Engine {
	t.Helper()
	e, err := gpu.NewEngine(s, gpu.Options{Device: gpu.TestDevice(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// compareGradients checks every layer's logit gradient against the CPU's:
// max |gpu - cpu| over the layer within tol of the layer's largest CPU
// gradient (and of 1 when all are smaller), so that float32 rounding in
// elements near zero is judged against the layer's scale.
func compareGradients(t *testing.T, e *gpu.Engine, names []string, want [][]float64, tol float64) {
	t.Helper()
	got, err := e.LogitGrads()
	if err != nil {
		t.Fatal(err)
	}
	compareLayerGradients(t, "gpu", names, got, want, tol)
}

// compareLayerGradients is compareGradients on gradients already read
// back, which who computed.
func compareLayerGradients(t *testing.T, who string, names []string, got [][]float32, want [][]float64, tol float64) {
	t.Helper()
	for li, w := range want {
		scale, worst, at := 0.0, 0.0, 0
		for _, v := range w {
			scale = math.Max(scale, math.Abs(v))
		}
		for i, v := range w {
			if d := math.Abs(float64(got[li][i]) - v); d > worst || math.IsNaN(d) {
				worst, at = d, i
			}
		}
		rel := worst / math.Max(scale, 1e-30)
		if rel > tol || math.IsNaN(rel) {
			t.Errorf("layer %s: logit gradient %d: %s %v, cpu %v (error %.3g of the layer's scale %.3g)",
				names[li], at, who, got[li][at], w[at], rel, scale)
		}
	}
}

func layerNames(m *dlca.Model) []string {
	var n []string
	for _, l := range m.Layers() {
		n = append(n, l.Name)
	}
	return n
}

func TestEngineMatchesCPU(t *testing.T) {
	for _, c := range []struct {
		name            string
		h, w, steps     int
		std             float64
		async           bool
		boundary        circuit.Boundary
		tolForward, tol float64 // loss (relative) and final state; gradients
	}{
		{"one step", 5, 6, 1, 1, false, circuit.Zero, 1e-4, 1e-4},
		{"bptt 6 steps", 5, 6, 6, 1, false, circuit.Zero, 1e-3, 1e-3},
		{"bptt 6 steps paper init", 5, 6, 6, 0, false, circuit.Zero, 1e-3, 1e-3},
		{"bptt 6 steps async periodic", 5, 6, 6, 1, true, circuit.Periodic, 1e-3, 1e-3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _, b := checkerboard(t, c.h, c.w, c.steps, c.std)
			s.Async = c.async
			s.Model.Config.Boundary = c.boundary
			wantLoss, want, wantState := cpuIteration(t, s, b)
			e := newEngine(t, s)
			loss, err := e.Iterate(b)
			if err != nil {
				t.Fatal(err)
			}
			compareForward(t, e, loss, wantLoss, wantState, c.tolForward)
			compareGradients(t, e, layerNames(s.Model), want, c.tol)
		})
	}
}

// compareForward checks the last iteration of e, whose loss was loss,
// against the CPU's: every value of the final state (every channel, not
// only the loss's) within tol of wantState's, the loss within tol of
// wantLoss, relative above 1.
func compareForward(t *testing.T, e *gpu.Engine, loss, wantLoss float64, wantState []float32, tol float64) {
	t.Helper()
	state, err := gpu.FinalState(e)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range wantState {
		if d := math.Abs(float64(state[i] - w)); d > tol {
			t.Fatalf("final state %d: gpu %v, cpu %v", i, state[i], w)
		}
	}
	if math.Abs(loss-wantLoss) > tol*math.Max(1, wantLoss) {
		t.Errorf("loss: gpu %v, cpu %v", loss, wantLoss)
	}
}

// TestEngineClipping sets the clip limit below most gradients: every
// clipped element must be exactly ±limit, the others the CPU's gradient.
func TestEngineClipping(t *testing.T) {
	s, _, b := checkerboard(t, 5, 6, 2, 1)
	const limit = 1e-3
	_, raw := cpuGradients(t, s, b) // the paper's limit 100 clips nothing here
	s.Optimizer.Clip = limit
	e := newEngine(t, s)
	if _, err := e.Iterate(b); err != nil {
		t.Fatal(err)
	}
	got, err := e.LogitGrads()
	if err != nil {
		t.Fatal(err)
	}
	clipped := 0
	for li, w := range raw {
		for i, v := range w {
			g := got[li][i]
			switch {
			case v > limit*(1+1e-3):
				clipped++
				if g != float32(limit) {
					t.Fatalf("layer %d gradient %d: cpu %v clips to %v, gpu gives %v", li, i, v, float32(limit), g)
				}
			case v < -limit*(1+1e-3):
				clipped++
				if g != -float32(limit) {
					t.Fatalf("layer %d gradient %d: cpu %v clips to %v, gpu gives %v", li, i, v, -float32(limit), g)
				}
			case math.Abs(float64(g)) > limit:
				t.Fatalf("layer %d gradient %d: gpu %v beyond the limit %v", li, i, g, limit)
			}
		}
	}
	if clipped == 0 {
		t.Fatal("no gradient exceeded the limit: the test clips nothing")
	}
}

// TestEngineAdamWMatchesCPU trains both engines a few iterations from the
// same model on the same batches: the logits must agree.
func TestEngineAdamWMatchesCPU(t *testing.T) {
	s, src, _ := checkerboard(t, 5, 6, 3, 1)
	cpu, err := bptt.NewCPU(s)
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	g := newEngine(t, s)
	rng := rand.New(rand.NewPCG(5, 1))
	for it := range 4 {
		b := src(rng)
		b.FireSeed = uint64(it)
		lc, err := cpu.Iterate(b)
		if err != nil {
			t.Fatal(err)
		}
		lg, err := g.Iterate(b)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lc-lg) > 1e-3*math.Max(1, lc) {
			t.Errorf("iteration %d: loss gpu %v, cpu %v", it, lg, lc)
		}
	}
	mc, _ := cpu.Model()
	mg, err := g.Model()
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for li, lc := range mc.Params() {
		lg := mg.Params()[li]
		for i := range lc.Len() {
			want, got := lc.At(i), lg.At(i)
			if math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
				t.Fatalf("layer %d logit %d after 4 iterations: gpu %v, cpu %v", li, i, got, want)
			}
			moved = moved || want != s.Model.Params()[li].At(i)
		}
	}
	if !moved {
		t.Fatal("no logit changed: the optimiser did nothing")
	}
}

func TestEngineRefusesOverBudget(t *testing.T) {
	s, _, _ := checkerboard(t, 5, 6, 2, 0)
	_, err := gpu.NewEngine(s, gpu.Options{Device: gpu.TestDevice(t), MemoryLimit: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "smaller grid") || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("1 MiB limit: got %v, want a refusal naming the budget and suggesting a smaller grid", err)
	}
	big, _, _ := checkerboard(t, 5, 6, 20, 0)
	big.Model.Config.Height, big.Model.Config.Width = 1024, 1024 // neighbourhoods of 288 MiB per step
	_, err = gpu.NewEngine(big, gpu.Options{Device: gpu.TestDevice(t)})
	if err == nil || !strings.Contains(err.Error(), "per buffer") {
		t.Errorf("1024x1024 grid: got %v, want a refusal over the per-buffer limit", err)
	}
}

func TestEngineReportsBudget(t *testing.T) {
	s, _, _ := checkerboard(t, 5, 6, 2, 0)
	var log strings.Builder
	e, err := gpu.NewEngine(s, gpu.Options{Device: gpu.TestDevice(t), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, want := range []string{"device memory budget", "activations", "gradients", e.Budget().String()} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, log.String())
		}
	}
	if e.Budget().Total() < 4*int64(2*30*8*9*2) { // two steps' neighbourhoods alone
		t.Errorf("budget %d bytes is implausibly small", e.Budget().Total())
	}
}

// TestEngineReshapes feeds batches of two grid sizes: the engine rebuilds
// its buffers for the new shape and still matches the CPU.
// TestEngineBudgetIsWhatItAllocates holds the budget the engine plans to
// the device memory it allocates, and the engine to giving it all back.
func TestEngineBudgetIsWhatItAllocates(t *testing.T) {
	s, _, _ := checkerboard(t, 5, 6, 2, 0)
	d := gpu.TestDevice(t)
	before := d.Allocated()
	e, err := gpu.NewEngine(s, gpu.Options{Device: d})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Allocated()-before, e.Budget().Total(); got != want {
		t.Errorf("the engine allocated %d bytes, its budget says %d", got, want)
	}
	e.Close()
	if got := d.Allocated(); got != before {
		t.Errorf("after Close the device holds %d bytes, %d before the engine", got, before)
	}
}

func TestEngineReshapes(t *testing.T) {
	s, _, b := checkerboard(t, 5, 6, 2, 1)
	e := newEngine(t, s)
	if _, err := e.Iterate(b); err != nil {
		t.Fatal(err)
	}
	small, _, b2 := checkerboard(t, 3, 4, 2, 1)
	m, err := e.Model()
	if err != nil {
		t.Fatal(err)
	}
	small.Model = m // continue from the trained logits
	wantLoss, want := cpuGradients(t, small, b2)
	loss, err := e.Iterate(b2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(loss-wantLoss) > 1e-4*math.Max(1, wantLoss) {
		t.Errorf("loss on the 3x4 grid: gpu %v, cpu %v", loss, wantLoss)
	}
	compareGradients(t, e, layerNames(small.Model), want, 1e-3)
}

// TestEngineDeterministic runs the same iteration on two fresh engines: the
// fixed-order reductions must give the same bits.
func TestEngineDeterministic(t *testing.T) {
	s, _, b := checkerboard(t, 5, 6, 3, 1)
	var losses []float64
	var grads [][][]float32
	for range 2 {
		e := newEngine(t, s)
		loss, err := e.Iterate(b)
		if err != nil {
			t.Fatal(err)
		}
		g, err := e.LogitGrads()
		if err != nil {
			t.Fatal(err)
		}
		losses, grads = append(losses, loss), append(grads, g)
	}
	if losses[0] != losses[1] {
		t.Errorf("loss differs between runs: %v then %v", losses[0], losses[1])
	}
	for l := range grads[0] {
		for i := range grads[0][l] {
			if math.Float32bits(grads[0][l][i]) != math.Float32bits(grads[1][l][i]) {
				t.Fatalf("layer %d gradient %d differs between runs: %v then %v", l, i, grads[0][l][i], grads[1][l][i])
			}
		}
	}
}

// TestEngineOnePerceptionLayer covers a kernel of a single layer, whose
// output feeds the update network directly, and a 3-step async rollout.
func TestEngineOnePerceptionLayer(t *testing.T) {
	cfg := dlca.Config{
		Height: 4, Width: 5, Channels: 2, Boundary: circuit.Periodic, Kernels: 3,
		KernelLayers: []int{9, 8}, UpdateLayers: []int{26, 13, 7, 4, 2},
		Seed: 5, PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate,
	}
	m, err := dlca.New(cfg, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 1))
	for _, p := range m.Params() {
		for i := range p.Len() {
			p.SetAt(i, rng.NormFloat64())
		}
	}
	s := bptt.Setup{Model: m, Batch: 2, Steps: 3, LossChannels: []int{1, 0}, Async: true, Optimizer: bptt.PaperOptimizer(0.05)}
	b := &bptt.Batch{Height: 4, Width: 5, FireSeed: 17}
	for range 2 * 4 * 5 {
		b.Init = append(b.Init, float32(rng.IntN(2)), float32(rng.IntN(2)))
		b.Target = append(b.Target, float32(rng.IntN(2)), float32(rng.IntN(2)))
	}
	wantLoss, want := cpuGradients(t, s, b)
	e := newEngine(t, s)
	loss, err := e.Iterate(b)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(loss-wantLoss) > 1e-4*math.Max(1, wantLoss) {
		t.Errorf("loss: gpu %v, cpu %v", loss, wantLoss)
	}
	compareGradients(t, e, layerNames(m), want, 1e-3)
}
