package experiments

import (
	"math/rand/v2"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// The coloured G of PAPER.md section 3: from an all-zero 16x16 grid with a
// zero boundary, paint a four-colour G (ColourG) into channels 0 to 2 within
// 15 steps, with 64 channels of state.
func init() {
	Register(&Experiment{
		Name:        "colour-g",
		Description: "coloured G: 16x16, 64 channels, 15 steps from zeros, colour in channels 0-2",
		Model: dlca.Config{
			Height: GSize, Width: GSize, Channels: 64, Boundary: circuit.Zero,
			Kernels: 4, KernelLayers: []int{9, 8, 4, 2},
			UpdateLayers: append(repeat(512, 8), 256, 128, 64),
			Seed:         23, PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate,
		},
		Batch: 1, Steps: 15, Iterations: 3000, LR: 0.06, Seed: 23,
		LossChannels: []int{0, 1, 2},
		Colour:       true,
		Init:         Zeros,
		Target:       ColourG,
		Checks:       []Check{growCheck(GSize, 15)},
	})
}

// Zeros is the Init of an experiment that starts from an empty grid.
func Zeros(_ *rand.Rand, h, w, c int) []float32 { return make([]float32, h*w*c) }
