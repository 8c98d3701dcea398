package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// Second-order checks (autograd.CheckGradGrad) for every loss option and
// layer of this package: each is a composition of autograd ops (BCELoss has
// a recorded rule built from ops), so its gradient must be differentiable
// again.

func checkGradGrad(t *testing.T, name string, f func([]*autograd.Tensor) *autograd.Tensor, in ...*autograd.Tensor) {
	t.Helper()
	if err := autograd.CheckGradGrad(f, in, 1e-6, 1e-5); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestGradGradClassLosses covers cross-entropy, NLL and soft-target
// cross-entropy under every option, with each reduction.
func TestGradGradClassLosses(t *testing.T) {
	forClassLosses(40, func(name string, f func([]*autograd.Tensor) *autograd.Tensor, in ...*autograd.Tensor) {
		checkGradGrad(t, name, f, in...)
	})
	// NLL is linear in its input, so its second derivative is zero; squared,
	// it is not, which exercises Gather's backward (ScatterAdd) again.
	checkGradGrad(t, "NLL squared", func(in []*autograd.Tensor) *autograd.Tensor {
		return autograd.Square(NLLLossWith(in[0], []int{2, 0, 1, 1}, ClassOptions{Weight: vec(0.5, 2, 1.5), Ignore: true, IgnoreIndex: 1, Reduction: ReduceNone}))
	}, uniform(rand.New(rand.NewPCG(40, 41)), -3, 0, 4, 3))
}

// TestGradGradOtherLosses covers the regression and binary losses
// (lossCases).
func TestGradGradOtherLosses(t *testing.T) {
	for _, c := range lossCases(41) {
		for _, r := range reductions() {
			checkGradGrad(t, c.name, func(x []*autograd.Tensor) *autograd.Tensor { return c.f(x, r) }, c.in...)
		}
	}
}

// TestGradGradLayers covers the normalisation layers (input, weight and
// bias) and Embedding.
func TestGradGradLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	for _, c := range normCases(rng) {
		checkGradGrad(t, c.name, c.f, c.in...)
	}
	e := NewEmbedding(4, 2, autograd.Float64, rng).WithPadding(0)
	checkGradGrad(t, "Embedding", func(in []*autograd.Tensor) *autograd.Tensor {
		e.Weight = in[0]
		return autograd.Square(e.Lookup([]int{3, 0, 3, 1}))
	}, e.Weight)
}
