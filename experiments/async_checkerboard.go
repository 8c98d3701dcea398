package experiments

import (
	"fmt"

	"github.com/dlca/dlca/dlca"
)

// The asynchronous checkerboard of PAPER.md section 3: the checkerboard
// grown from random bits when each cell fires with probability 0.6 per step,
// on a 14x14 grid in 50 steps, with four more update layers than the
// synchronous one.
func init() {
	c := Defaults()
	c.Name = "checkerboard-async"
	c.Description = "asynchronous checkerboard: 14x14, 8 channels, 50 steps, fire rate 0.6"
	c.Height, c.Width, c.Channels = 14, 14, 8
	c.Kernels, c.KernelLayers = 16, []int{9, 8, 4, 2}
	c.UpdateLayers = append(repeat(256, 14), 128, 64, 32, 16, 8, 8)
	c.Batch, c.Steps, c.Iterations, c.LR, c.Async = 1, 50, 800, 0.05, true
	c.LossChannels = []int{0}
	c.Target.Kind = "checkerboard"
	c.Checks = append(checkerboardChecks(56, 200, 20, 100), CheckSpec{Kind: "robustness", Size: 64, Steps: 4000, Square: 10, Allow: PaperRobustnessAsyncHigh})
	for i := range c.Checks {
		c.Checks[i].EitherPhase = true
	}
	Register(c)
}

// eitherPhase returns checks that run each of cs against the checkerboard
// and against its inverse and keep the result with fewer wrong cells. A rule
// grown on 14x14 cells (7 squares a side, the same phase at every edge) may
// anchor the pattern at any edge; on a grid with an even number of squares a
// side, the phase seen from the bottom-right edge is the inverse of the one
// seen from the top-left. Both are the pattern.
func eitherPhase(cs ...Check) []Check {
	out := make([]Check, len(cs))
	for i, c := range cs {
		out[i] = Check{Name: c.Name, Description: c.Description + " (either phase)", Side: c.Side, Steps: c.Steps, Frames: c.Frames, Runs: 2 * max(c.Runs, 1), Run: func(e *Experiment, m *dlca.Model) CheckResult {
			r := c.Run(e, m)
			inv := *e
			inv.Target = func(h, w int) []float32 {
				t := e.Target(h, w)
				for j := range t {
					t[j] = 1 - t[j]
				}
				return t
			}
			if ri := c.Run(&inv, m); ri.Wrong < r.Wrong {
				ri.Detail += " (against the inverted checkerboard)"
				return ri
			}
			return r
		}}
	}
	return out
}

// AsyncCheck runs a model trained synchronously asynchronously (each cell
// firing with the model's fire rate) on a size x size grid for steps steps:
// the paper's observation that a synchronous rule still forms the pattern.
func AsyncCheck(size, steps int) Check {
	name := "async-run"
	desc := fmt.Sprintf("%dx%d grid, %d asynchronous steps (fire rate 0.6)", size, size, steps)
	return Check{Name: name, Description: desc, Side: size, Steps: steps, Frames: keptFrames(steps), Run: func(e *Experiment, m *dlca.Model) CheckResult {
		async := *e
		async.Async = true
		frames, _ := checkRollout(&async, m, size, steps, 0, 0)
		wrong := WrongCells(e, &frames[len(frames)-1], 0)
		return CheckResult{Name: name, Passed: wrong == 0, Wrong: wrong, Frames: frames, Detail: fmt.Sprintf("%s: %d wrong cells", desc, wrong)}
	}}
}
