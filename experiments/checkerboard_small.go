package experiments

import (
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// A scaled-down synchronous checkerboard that trains in seconds: the test
// suite's real training run, and a quick demonstration. Same kernels as the
// paper's; an 8x8 grid, 10 steps and a 7-layer update network.
func init() {
	Register(&Experiment{
		Name:        "checkerboard-small",
		Description: "small synchronous checkerboard: 8x8, 8 channels, 10 steps, 7 update layers (trains in seconds)",
		Model: dlca.Config{
			Height: 8, Width: 8, Channels: 8, Boundary: circuit.Zero,
			Kernels: 16, KernelLayers: []int{9, 8, 4, 2},
			UpdateLayers: []int{256, 128, 128, 64, 32, 16, 8},
			Seed:         23, PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate,
		},
		Batch: 2, Steps: 10, Iterations: 300, LR: 0.05, Seed: 23,
		LossChannels: []int{0},
		Init:         RandomBits,
		Target:       Checkerboard,
		Checks:       checkerboardChecks(32, 40, 8, 20),
	})
}
