package experiments

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// The lizard of PAPER.md section 3: from one live cell in the centre (every
// channel 1 at (10, 10), as the notebook seeds it), grow the paper's 20x20
// lizard mask (targets/lizard.txt) in channel 0 within 12 steps on a
// periodic grid, with 128 channels of state. lizard-drawn is the same
// experiment on the lizard this project drew before it had the paper's.
func init() {
	Register(lizardConfig("lizard", "lizard", "the paper's lizard mask"))
	Register(lizardConfig("lizard-drawn", "lizard-drawn", "this project's drawn lizard"))
}

func lizardConfig(name, target, what string) Config {
	c := Defaults()
	c.Name = name
	c.Description = "lizard: 20x20 periodic, 128 channels, 12 steps, grown from one centre cell; " + what
	c.Height, c.Width, c.Channels, c.Boundary = LizardSize, LizardSize, 128, circuit.Periodic
	c.Kernels, c.KernelLayers = 4, []int{9, 8, 4, 2, 1}
	c.UpdateLayers = append(repeat(512, 8), 256, 128)
	c.Batch, c.Steps, c.Iterations, c.LR = 1, 12, 3500, 0.06
	c.LossChannels = []int{0}
	c.Init.Kind = "centre"
	c.Target.Kind = target
	c.Checks = []CheckSpec{{Kind: "grow", Size: 2 * LizardSize, Steps: 12}}
	return c
}

// CentreSeed is the Init of the growing experiments: every channel 0 except
// the centre cell (h/2, w/2), whose channels are all 1.
func CentreSeed(_ *rand.Rand, h, w, c int) []float32 {
	s := make([]float32, h*w*c)
	centre := (h/2*w + w/2) * c
	for k := range c {
		s[centre+k] = 1
	}
	return s
}

// growCheck grows the pattern from e's initial state on a size x size grid
// for steps steps: with the target centred on a grid larger than the
// training one, the pattern must form without the border to lean on.
func growCheck(size, steps int) Check {
	name := "grow"
	desc := fmt.Sprintf("%dx%d grid, %d steps from the initial state", size, size, steps)
	return Check{Name: name, Description: desc, Side: size, Steps: steps, Frames: keptFrames(steps), Run: func(e *Experiment, m *dlca.Model) CheckResult {
		frames, _ := checkRollout(e, m, size, steps, 0, 0)
		last := &frames[len(frames)-1]
		wrong := WrongCells(e, last, 0)
		detail := fmt.Sprintf("%s: %d wrong cells", desc, wrong)
		// On a grid larger than the training one, say how many of the
		// wrong cells lie outside the centred training square: growth there
		// would be the rule leaning on the wrap-around it was trained with.
		if th := e.Model.Height; size > th {
			outside := 0
			lo := (size - th) / 2
			forWrongCells(e, last, 0, func(y, x int) {
				if y < lo || y >= lo+th || x < lo || x >= lo+th {
					outside++
				}
			})
			detail += fmt.Sprintf(", %d of them outside the centred %dx%d training square", outside, th, th)
		}
		return CheckResult{Name: name, Passed: wrong == 0, Wrong: wrong, Frames: frames, Detail: detail}
	}}
}
