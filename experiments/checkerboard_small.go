package experiments

import ()

// A scaled-down synchronous checkerboard that trains in seconds: the test
// suite's real training run, and a quick demonstration. Same kernels as the
// paper's; an 8x8 grid, 10 steps and a 7-layer update network.
func init() {
	c := Defaults()
	c.Name = "checkerboard-small"
	c.Description = "small synchronous checkerboard: 8x8, 8 channels, 10 steps, 7 update layers (trains in seconds)"
	c.Height, c.Width, c.Channels = 8, 8, 8
	c.Kernels, c.KernelLayers = 16, []int{9, 8, 4, 2}
	c.UpdateLayers = []int{256, 128, 128, 64, 32, 16, 8}
	c.Batch, c.Steps, c.Iterations, c.LR = 2, 10, 300, 0.05
	c.LossChannels = []int{0}
	c.Target.Kind = "checkerboard"
	c.Checks = checkerboardChecks(32, 40, 8, 20)
	Register(c)
}
