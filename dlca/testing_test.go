package dlca

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
)

// tinyConfig is a CA small enough for finite differences: 4x4 cells of 2
// channels, 2 kernels [9 8 4 2], update [8 4 2] over 2*(1+2*2) = 10 inputs.
func tinyConfig(b circuit.Boundary) Config {
	return Config{
		Height: 4, Width: 4, Channels: 2, Boundary: b, Kernels: 2,
		KernelLayers: []int{9, 8, 4, 2}, UpdateLayers: []int{8, 4, 2},
		Seed: 7, PassThrough: DefaultPassThrough, FireRate: DefaultFireRate,
	}
}

// tinyModel returns a float64 model of cfg whose logits are random normal, so
// that no gate is saturated and every gradient is non-trivial.
func tinyModel(t testing.TB, cfg Config, seed uint64) *Model {
	t.Helper()
	m, err := New(cfg, autograd.Float64)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, p := range m.Params() {
		for i := range p.Len() {
			p.SetAt(i, rng.NormFloat64())
		}
	}
	return m
}

// randomState returns a [b, h, w, c] state of values uniform in [0, 1].
func randomState(dtype autograd.DType, seed uint64, b, h, w, c int) *autograd.Tensor {
	rng := rand.New(rand.NewPCG(seed, 2))
	s := autograd.Zeros(dtype, b, h, w, c)
	for i := range s.Len() {
		s.SetAt(i, rng.Float64())
	}
	return s
}

// sse is the loss of the tests: the sum of squared differences between
// channel 0 of the final state and target [b, h, w, 1].
func sse(final, target *autograd.Tensor) *autograd.Tensor {
	return autograd.Sum(autograd.Square(autograd.Sub(autograd.Narrow(final, 3, 0, 1), target)), false)
}
