package experiments

import ()

// The synchronous checkerboard of PAPER.md section 3: from random bits, grow
// a checkerboard of 2x2-cell squares in channel 0 within 20 steps.
func init() {
	c := Defaults()
	c.Name = "checkerboard"
	c.Description = "synchronous checkerboard: 16x16, 8 channels, 20 steps, squares of 2x2 cells in channel 0"
	c.Height, c.Width, c.Channels = 16, 16, 8
	c.Kernels, c.KernelLayers = 16, []int{9, 8, 4, 2}
	c.UpdateLayers = append(repeat(256, 10), 128, 64, 32, 16, 8, 8)
	c.Batch, c.Steps, c.Iterations, c.LR = 2, 20, 500, 0.05
	c.LossChannels = []int{0}
	c.Target.Kind = "checkerboard"
	c.Checks = append(checkerboardChecks(64, 80, 20, 40), CheckSpec{Kind: "async-run", Size: 64, Steps: 200})
	Register(c)
}

// checkerboardChecks are the paper's checks of a pattern-growing model: on a
// size x size grid for steps steps it forms the pattern; with the centre hole
// x hole square zeroed at every step the rest stays right; with that damage
// only during the first healAfter steps it heals completely.
func checkerboardChecks(size, steps, hole, healAfter int) []CheckSpec {
	return []CheckSpec{
		{Kind: "generalise", Size: size, Steps: steps},
		{Kind: "fault-tolerance", Size: size, Steps: steps, Hole: hole},
		{Kind: "self-healing", Size: size, Steps: steps, Hole: hole, HealAfter: healAfter},
	}
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
