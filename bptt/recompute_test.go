package bptt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// randomSetup is a CA of 5x4 cells, 3 channels, with random logits so that
// every gate has a gradient, rolled out for steps steps.
func randomSetup(t *testing.T, dtype autograd.DType, steps int, async bool) Setup {
	t.Helper()
	cfg := dlca.Config{
		Height: 5, Width: 4, Channels: 3, Boundary: circuit.Zero, Kernels: 2,
		KernelLayers: []int{9, 8, 4, 2}, UpdateLayers: []int{16, 8, 4, 3},
		Seed: 7, PassThrough: 10, FireRate: 0.6,
	}
	m, err := dlca.New(cfg, dtype)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 1))
	for _, p := range m.Params() {
		for i := range p.Len() {
			p.SetAt(i, rng.NormFloat64())
		}
	}
	return Setup{Model: m, Batch: 2, Steps: steps, LossChannels: []int{0, 2}, Async: async, Optimizer: PaperOptimizer(0.05)}
}

func randomBatch(seed uint64) *Batch {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := &Batch{Height: 5, Width: 4, FireSeed: rng.Uint64()}
	for range 2 * 5 * 4 * 3 {
		b.Init = append(b.Init, float32(rng.IntN(2)))
	}
	for range 2 * 5 * 4 * 2 {
		b.Target = append(b.Target, float32(rng.IntN(2)))
	}
	return b
}

// gradients runs the engine's rollout, loss and backward pass on b (no
// optimiser step) and returns the loss and every logit's gradient.
func gradients(t *testing.T, s Setup, b *Batch) (float64, [][]float64) {
	t.Helper()
	e, err := NewCPU(s)
	if err != nil {
		t.Fatal(err)
	}
	c := e.m.Config.Channels
	init := toTensor(e.m.DType(), b.Init, s.Batch, b.Height, b.Width, c)
	target := toTensor(e.m.DType(), b.Target, s.Batch, b.Height, b.Width, len(s.LossChannels))
	var loss *autograd.Tensor
	if s.Recompute > 0 {
		loss, err = e.recomputedLoss(init, target, b.FireSeed, s.Recompute, 0)
	} else {
		loss = Loss(e.m.Rollout(init, s.Steps, dlca.RolloutOptions{Async: s.Async, Seed: b.FireSeed}), target, s.LossChannels)
		err = loss.Backward()
	}
	if err != nil {
		t.Fatal(err)
	}
	var grads [][]float64
	for _, p := range e.params {
		if p.Grad() == nil {
			t.Fatal("a layer got no gradient")
		}
		grads = append(grads, p.Grad().Float64s())
	}
	return loss.Item(), grads
}

// TestRecomputeGivesTheSameGradients: gradient checkpointing over time gives
// the plain rollout's loss and gradients bit for bit, for every segment
// length (1, one that does not divide the steps, sqrt, all steps), in
// float32 and float64, synchronous and asynchronous.
func TestRecomputeGivesTheSameGradients(t *testing.T) {
	const steps = 7
	for _, dtype := range []autograd.DType{autograd.Float32, autograd.Float64} {
		for _, async := range []bool{false, true} {
			s := randomSetup(t, dtype, steps, async)
			b := randomBatch(11)
			wantLoss, want := gradients(t, s, b)
			for _, k := range []int{1, 2, 3, steps} {
				t.Run(fmt.Sprintf("%v/async=%v/k=%d", dtype, async, k), func(t *testing.T) {
					r := s
					r.Recompute = k
					loss, got := gradients(t, r, b)
					if math.Float64bits(loss) != math.Float64bits(wantLoss) {
						t.Fatalf("loss %v, plain rollout %v", loss, wantLoss)
					}
					for i := range want {
						for j := range want[i] {
							if math.Float64bits(got[i][j]) != math.Float64bits(want[i][j]) {
								t.Fatalf("layer %d logit %d: gradient %v, plain rollout %v", i, j, got[i][j], want[i][j])
							}
						}
					}
				})
			}
		}
	}
}

// TestRecomputeTrainsTheSameModel: three iterations of the CPU engine with
// Recompute 3 leave the logits of three plain iterations, bit for bit.
func TestRecomputeTrainsTheSameModel(t *testing.T) {
	s := randomSetup(t, autograd.Float32, 7, true)
	r := s
	r.Recompute = 3
	plain, _ := NewCPU(s)
	recomputed, _ := NewCPU(r)
	for it := range 3 {
		b := randomBatch(uint64(it))
		l1, err1 := plain.Iterate(b)
		l2, err2 := recomputed.Iterate(b)
		if err1 != nil || err2 != nil || l1 != l2 {
			t.Fatalf("iteration %d: losses %v, %v (errors %v, %v)", it, l1, l2, err1, err2)
		}
	}
	for i, p := range plain.m.Params() {
		q := recomputed.m.Params()[i]
		for j := range p.Len() {
			if math.Float64bits(p.At(j)) != math.Float64bits(q.At(j)) {
				t.Fatalf("layer %d logit %d: %v recomputed, %v plain", i, j, q.At(j), p.At(j))
			}
		}
	}
}
