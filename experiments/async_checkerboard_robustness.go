package experiments

import (
	"fmt"
	"image/color"
	"io"
	"math/rand/v2"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/safefile"
)

// robustnessTolerance is the share of the grid's cells that may be wrong, on
// average over the second half of the robustness run, for the check to pass.
// A rule that does not heal ends with about half the cells wrong (every
// square ever reset stays 0), so 5% separates healing from not healing.
const robustnessTolerance = 0.05

// robustnessFrameEvery is the stride of the states kept as frames.
const robustnessFrameEvery = 40

// robustnessCheck is the paper's robustness run: a size x size grid run
// asynchronously for steps steps from random bits, a random square x square
// patch zeroed (every channel) after every step. Its Curve is the error after
// each step, sum |y - target| over the loss channels (the number of wrong
// bits, since the circuit's y is 0 or 1).
func robustnessCheck(size, steps, square int) Check {
	name := "robustness"
	desc := fmt.Sprintf("%dx%d, %d asynchronous steps, a random %dx%d square zeroed every step", size, size, steps, square, square)
	return Check{Name: name, Description: desc, Run: func(e *Experiment, m *dlca.Model) CheckResult {
		curve, frames := RobustnessRun(e, m, size, steps, square)
		half := curve[len(curve)/2:]
		mean := 0.0
		for _, v := range half {
			mean += v
		}
		mean /= float64(len(half))
		limit := robustnessTolerance * float64(size*size*len(e.LossChannels))
		return CheckResult{Name: name, Passed: mean <= limit, Wrong: int(curve[len(curve)-1]), Frames: frames, Curve: curve,
			Detail: fmt.Sprintf("%s: mean error %.1f over the last %d steps (limit %.0f), %.0f at the end", desc, mean, len(half), limit, curve[len(curve)-1])}
	}}
}

// RobustnessRun runs the hard circuit of m asynchronously on a size x size
// grid from e's initial state for steps steps, zeroing a random square x
// square patch after every step (positions drawn from a fixed seed). It
// returns the error against e's target after every step and every
// robustnessFrameEvery-th state (the initial one first).
func RobustnessRun(e *Experiment, m *dlca.Model, size, steps, square int) ([]float64, []dlca.Bits) {
	rng := rand.New(rand.NewPCG(checkSeed, 0))
	c := m.Config.Channels
	init := dlca.BitsOf(autograd.New(e.Init(rng, size, size, c), 1, size, size, c))
	frames := []dlca.Bits{*init.Clone()}
	curve := make([]float64, 0, steps)
	m.Circuit().Rollout(init, steps, dlca.HardOptions{Async: true, Seed: checkSeed, After: func(t int, s *dlca.Bits) {
		y0, x0 := rng.IntN(size-square+1), rng.IntN(size-square+1)
		for y := y0; y < y0+square; y++ {
			for x := x0; x < x0+square; x++ {
				for k := range c {
					s.Set(0, y, x, k, 0)
				}
			}
		}
		curve = append(curve, float64(wrongBits(e, s)))
		if t%robustnessFrameEvery == 0 {
			frames = append(frames, *s.Clone())
		}
	}})
	return curve, frames
}

// wrongBits counts the loss-channel bits of s (image 0) that differ from e's
// target: sum |y - target| for a hard state.
func wrongBits(e *Experiment, s *dlca.Bits) int {
	target := e.Target(s.Height, s.Width)
	n := len(e.LossChannels)
	wrong := 0
	for y := range s.Height {
		for x := range s.Width {
			for j, k := range e.LossChannels {
				if float32(s.Get(0, y, x, k)) != target[(y*s.Width+x)*n+j] {
					wrong++
				}
			}
		}
	}
	return wrong
}

// PlotCurve draws ys against the step 1, 2, ... as a PNG at path, written
// atomically.
func PlotCurve(path, title, ylabel string, ys []float64) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "step"
	p.Y.Label.Text = ylabel
	xy := make(plotter.XYs, len(ys))
	for i, v := range ys {
		xy[i] = plotter.XY{X: float64(i + 1), Y: v}
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	l.Color = color.RGBA{R: 200, A: 255}
	p.Add(l, plotter.NewGrid())
	p.Y.Min = 0
	wt, err := p.WriterTo(16*vg.Centimeter, 8*vg.Centimeter, "png")
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return safefile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
