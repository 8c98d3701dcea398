package gpu_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gpu"
)

// newCPU returns a CPU engine training a copy of s.Model, closed when the
// test ends.
func newCPU(t *testing.T, s bptt.Setup) *bptt.CPUEngine {
	t.Helper()
	c, err := bptt.NewCPU(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// cpuPenalised is the CPU engine's iteration with the state penalty of
// weight w: the paper's loss it reports and the logit gradients it steps
// with (clipped as the GPU engine's are), in Layers order.
func cpuPenalised(t *testing.T, s bptt.Setup, b *bptt.Batch, w float64) (float64, [][]float64) {
	t.Helper()
	eng := newCPU(t, s)
	eng.SetStatePenalty(w)
	loss, grads, err := eng.IterateGradients(b)
	if err != nil {
		t.Fatal(err)
	}
	clip := s.Optimizer.Clip
	var out [][]float64
	for _, g := range grads {
		v := make([]float64, g.Len())
		for i := range v {
			v[i] = math.Max(-clip, math.Min(clip, g.At(i)))
		}
		out = append(out, v)
	}
	return loss, out
}

// checkPenalised runs one iteration of e, a GPU engine training s.Model, on
// b with the penalty of weight w and checks its loss (the paper's) and its
// logit gradients against the CPU engine's, which it returns, within the
// tolerances of TestEngineMatchesCPU's six steps.
func checkPenalised(t *testing.T, e *gpu.Engine, s bptt.Setup, b *bptt.Batch, w float64) [][]float64 {
	t.Helper()
	wantLoss, want := cpuPenalised(t, s, b, w)
	e.SetStatePenalty(w)
	loss, err := e.Iterate(b)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(loss-wantLoss) > 1e-3*math.Max(1, wantLoss) {
		t.Errorf("%dx%d grid: loss gpu %v, cpu %v (the paper's loss, without the penalty)", b.Height, b.Width, loss, wantLoss)
	}
	compareGradients(t, e, layerNames(s.Model), want, 1e-3)
	return want
}

// TestEnginePenaltyMatchesCPU: with the state penalty on (weight 0.3), the
// GPU engine reports the CPU engine's loss (the paper's) and steps with its
// logit gradients, synchronous and asynchronous, within the tolerance of
// TestEngineMatchesCPU; those gradients are not the paper's. With weight 0
// it computes the paper's gradients bit for bit. The paper's initialisation
// (see TestEnginePenaltyAdamWMatchesCPU) makes every intermediate state
// another, so the penalty's gradient must go to the right one.
func TestEnginePenaltyMatchesCPU(t *testing.T) {
	const weight = 0.3
	for _, c := range []struct {
		name     string
		async    bool
		boundary circuit.Boundary
	}{
		{"bptt 6 steps", false, circuit.Zero},
		{"bptt 6 steps async periodic", true, circuit.Periodic},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _, b := checkerboard(t, 5, 6, 6, 0)
			s.Async = c.async
			s.Model.Config.Boundary = c.boundary
			want := checkPenalised(t, newEngine(t, s), s, b, weight)
			_, paper := cpuPenalised(t, s, b, 0)
			if !differ(want, paper, 1e-2) {
				t.Fatal("the CPU's penalised gradients are within 1% of the paper's: the penalty is too small to test")
			}

			plain, off := newEngine(t, s), newEngine(t, s)
			off.SetStatePenalty(0)
			for _, e := range []*gpu.Engine{plain, off} {
				if _, err := e.Iterate(b); err != nil {
					t.Fatal(err)
				}
			}
			a, err := plain.LogitGrads()
			if err != nil {
				t.Fatal(err)
			}
			z, err := off.LogitGrads()
			if err != nil {
				t.Fatal(err)
			}
			for l := range a {
				for i := range a[l] {
					if math.Float32bits(a[l][i]) != math.Float32bits(z[l][i]) {
						t.Fatalf("weight 0: layer %d gradient %d is %v, without the penalty %v", l, i, z[l][i], a[l][i])
					}
				}
			}
		})
	}
}

// differ reports whether some layer's gradients a and b differ by more than
// tol of the layer's largest |b|.
func differ(a, b [][]float64, tol float64) bool {
	for l := range a {
		scale, worst := 0.0, 0.0
		for i := range a[l] {
			scale = math.Max(scale, math.Abs(b[l][i]))
			worst = math.Max(worst, math.Abs(a[l][i]-b[l][i]))
		}
		if worst > tol*scale {
			return true
		}
	}
	return false
}

// TestEnginePenaltyAdamWMatchesCPU trains both engines four asynchronous
// iterations with the weight changing between them (0.3, 0.1, 0, 0.3: its
// uniforms rewritten, the penalty's dispatches dropped and recorded again):
// the logits must agree as in TestEngineAdamWMatchesCPU, and differ from
// the paper's method's.
//
// The paper's initialisation keeps the rollout moving from step to step
// (random logits reach a fixed point after one step, where every
// intermediate state is the same and the penalty's gradient cannot tell
// them apart). The penalty's terms, ±weight per value, cancel in some
// logits' gradients down to 1e-8 and below, where AdamW's step g/(|g|+eps)
// turns float32 rounding into differences of 1e-4 with the paper's eps
// (1e-8); eps 1e-5 keeps those steps proportional to their gradients. A
// weight left unwritten or a penalty left out still moves some logit by
// 2e-3 or more.
func TestEnginePenaltyAdamWMatchesCPU(t *testing.T) {
	s, src, _ := checkerboard(t, 5, 6, 3, 0)
	s.Async = true
	s.Optimizer.Eps = 1e-5
	weights := []float64{0.3, 0.1, 0, 0.3}
	train := func(eng bptt.StatePenaltyEngine, weights []float64) [][]float64 {
		rng := rand.New(rand.NewPCG(5, 1))
		for it, w := range weights {
			b := src(rng)
			b.FireSeed = uint64(it)
			eng.SetStatePenalty(w)
			if _, err := eng.Iterate(b); err != nil {
				t.Fatal(err)
			}
		}
		m, err := eng.Model()
		if err != nil {
			t.Fatal(err)
		}
		return logitsOf(m) // straight_test.go
	}
	want := train(newCPU(t, s), weights)
	paper := train(newCPU(t, s), make([]float64, len(weights)))
	if !differ(want, paper, 1e-3) {
		t.Fatal("the CPU engine trained the paper's logits with the penalty on")
	}
	got := train(newEngine(t, s), weights)
	for l := range want {
		for i, w := range want[l] {
			if math.Abs(got[l][i]-w) > 1e-4*math.Max(1, math.Abs(w)) {
				t.Fatalf("layer %d logit %d after %d iterations: gpu %v, cpu %v", l, i, len(weights), got[l][i], w)
			}
		}
	}
}

// TestTrainStatePenaltyOnGPU trains through bptt.Train with the penalty
// from iteration 3 (Run.StatePenalty): bptt accepts the GPU engine, and its
// soft losses follow the CPU engine's, which leave the paper's method's
// after the first penalised step.
func TestTrainStatePenaltyOnGPU(t *testing.T) {
	s, src, _ := checkerboard(t, 5, 6, 3, 0)
	run := bptt.Run{Iterations: 5, Seed: 3, Source: src, StatePenalty: 0.3, StatePenaltyFrom: 3}
	train := func(eng bptt.Engine, run bptt.Run) []bptt.Metrics {
		ms, _, err := bptt.Train(context.Background(), eng, s, run)
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	want := train(newCPU(t, s), run)
	paperRun := run
	paperRun.StatePenalty, paperRun.StatePenaltyFrom = 0, 0
	paper := train(newCPU(t, s), paperRun)
	if want[3].SoftLoss == paper[3].SoftLoss {
		t.Fatal("iteration 4: the CPU engine's soft loss is the paper's method's after a penalised step")
	}
	got := train(newEngine(t, s), run)
	for i := range want {
		if w, g := want[i].SoftLoss, got[i].SoftLoss; math.Abs(w-g) > 1e-3*math.Max(1, w) {
			t.Errorf("iteration %d: soft loss gpu %v, cpu %v", i+1, g, w)
		}
	}
}

// TestEnginePenaltyReshapes: a batch of another grid size rebuilds the
// engine's programs, the penalty's dispatches and uniforms with them, and
// the penalised gradients still match the CPU's.
func TestEnginePenaltyReshapes(t *testing.T) {
	s, _, b := checkerboard(t, 5, 6, 3, 0)
	e := newEngine(t, s)
	e.SetStatePenalty(0.3)
	if _, err := e.Iterate(b); err != nil {
		t.Fatal(err)
	}
	small, _, b2 := checkerboard(t, 3, 4, 3, 0)
	m, err := e.Model()
	if err != nil {
		t.Fatal(err)
	}
	small.Model = m // continue from the trained logits
	checkPenalised(t, e, small, b2, 0.1)
}
