package toy

import (
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// TinyConfig is a small dlca model: 2 channels, 2 kernels, an update
// network of 8, 4 and 2 gates, trained on a 6x6 grid.
func TinyConfig() dlca.Config {
	return dlca.Config{
		Height: 6, Width: 6, Channels: 2, Boundary: circuit.Zero,
		Kernels: 2, KernelLayers: []int{9, 8, 4, 2}, UpdateLayers: []int{8, 4, 2},
		Seed: 5, PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate,
	}
}

// Model returns a TinyConfig model whose logits are drawn from N(0, 2^2)
// with rand.NewPCG(seed, 0), so that its soft and hard rules both change
// the state (a freshly initialised model mostly passes it through).
func Model(seed uint64) *dlca.Model {
	m, err := dlca.New(TinyConfig(), autograd.Float32)
	if err != nil {
		panic("toy: " + err.Error())
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, p := range m.Params() {
		for i := range p.Data32() {
			p.Data32()[i] = float32(rng.NormFloat64() * 2)
		}
	}
	return m
}
