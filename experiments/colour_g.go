package experiments

import (
	"math/rand/v2"
)

// The coloured G of PAPER.md section 3: from an all-zero 16x16 grid with a
// zero boundary, paint a four-colour G (ColourG) into channels 0 to 2 within
// 15 steps, with 64 channels of state.
func init() {
	c := Defaults()
	c.Name = "colour-g"
	c.Description = "coloured G: 16x16, 64 channels, 15 steps from zeros, colour in channels 0-2"
	c.Height, c.Width, c.Channels = GSize, GSize, 64
	c.Kernels, c.KernelLayers = 4, []int{9, 8, 4, 2}
	c.UpdateLayers = append(repeat(512, 8), 256, 128, 64)
	c.Batch, c.Steps, c.Iterations, c.LR = 1, 15, 3000, 0.06
	c.LossChannels = []int{0, 1, 2}
	c.Colour = true
	c.Init.Kind = "zeros"
	c.Target.Kind = "colour-g"
	c.Checks = []CheckSpec{{Kind: "grow", Size: GSize, Steps: 15}}
	Register(c)
}

// Zeros is the Init of an experiment that starts from an empty grid.
func Zeros(_ *rand.Rand, h, w, c int) []float32 { return make([]float32, h*w*c) }
