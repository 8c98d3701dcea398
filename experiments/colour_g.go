package experiments

import (
	"math/rand/v2"
)

// The coloured G of PAPER.md section 3: from an all-zero 16x16 grid with a
// zero boundary, paint the paper's four-colour G (targets/colour-g.txt) into
// channels 0 to 2 within 15 steps, with 64 channels of state.
// colour-g-drawn is the same experiment on the G this project drew before it
// had the paper's.
func init() {
	Register(colourGConfig("colour-g", "colour-g", "the paper's G"))
	Register(colourGConfig("colour-g-drawn", "colour-g-drawn", "this project's drawn G"))
}

func colourGConfig(name, target, what string) Config {
	c := Defaults()
	c.Name = name
	c.Description = "coloured G: 16x16, 64 channels, 15 steps from zeros, colour in channels 0-2; " + what
	c.Height, c.Width, c.Channels = GSize, GSize, 64
	c.Kernels, c.KernelLayers = 4, []int{9, 8, 4, 2}
	c.UpdateLayers = append(repeat(512, 8), 256, 128, 64)
	c.Batch, c.Steps, c.Iterations, c.LR = 1, 15, 3000, 0.06
	c.LossChannels = []int{0, 1, 2}
	c.Colour = true
	c.Init.Kind = "zeros"
	c.Target.Kind = target
	c.Checks = []CheckSpec{{Kind: "grow", Size: GSize, Steps: 15}}
	return c
}

// Zeros is the Init of an experiment that starts from an empty grid.
func Zeros(_ *rand.Rand, h, w, c int) []float32 { return make([]float32, h*w*c) }
