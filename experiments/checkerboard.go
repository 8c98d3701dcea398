package experiments

import (
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// The synchronous checkerboard of PAPER.md section 3: from random bits, grow
// a checkerboard of 2x2-cell squares in channel 0 within 20 steps.
func init() {
	Register(&Experiment{
		Name:        "checkerboard",
		Description: "synchronous checkerboard: 16x16, 8 channels, 20 steps, squares of 2x2 cells in channel 0",
		Model: dlca.Config{
			Height: 16, Width: 16, Channels: 8, Boundary: circuit.Zero,
			Kernels: 16, KernelLayers: []int{9, 8, 4, 2},
			UpdateLayers: append(repeat(256, 10), 128, 64, 32, 16, 8, 8),
			Seed:         23, PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate,
		},
		Batch: 2, Steps: 20, Iterations: 500, LR: 0.05, Seed: 23,
		LossChannels: []int{0},
		Init:         RandomBits,
		Target:       Checkerboard,
		Checks:       append(checkerboardChecks(64, 80, 20, 40), AsyncCheck(64, 200)),
	})
}

// Checkerboard is the target: cell (y, x) is ((y/2) + (x/2)) mod 2, squares
// of 2x2 cells with a 0-square in the top-left corner (the notebook's
// create_checkerboard with shape_size 2).
func Checkerboard(h, w int) []float32 {
	t := make([]float32, h*w)
	for y := range h {
		for x := range w {
			t[y*w+x] = float32((y/2 + x/2) % 2)
		}
	}
	return t
}
