package main

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/safefile"
	"github.com/dlca/dlca/viewer/painter"
)

// frameOf returns the first channels channels of image b of a hard state as
// a painter frame.
func frameOf(s *dlca.Bits, b, channels int) painter.Frame {
	f := painter.NewFrame(s.Height, s.Width, channels)
	for y := range s.Height {
		for x := range s.Width {
			for c := range channels {
				f.Cells[f.Index(y, x, c)] = float32(s.Get(b, y, x, c))
			}
		}
	}
	return f
}

// paintOptions draws channel 0 in grey, or channels 0-2 in colour for an
// experiment whose Colour is set, scale pixels per cell.
func paintOptions(e *experiments.Experiment, scale int) painter.Options {
	return painter.Options{Scale: scale, RGB: e.Colour}
}

// maxGIFFrames bounds the frames of a check's animation: a 200-step check
// on 64x64 cells would otherwise make a GIF of about half a megabyte, too big
// to sit beside RESULTS.md in the repository.
const maxGIFFrames = 60

// saveBitsGIF draws a hard rollout (image 0 of each state) with o as an
// animated GIF, painting one frame at a time (saveRolloutGIF). A rollout
// longer than maxGIFFrames keeps every k-th state, the first and the last.
func saveBitsGIF(path string, states []dlca.Bits, o painter.Options) error {
	_, err := saveRolloutGIF(path, o, false, func(frame frameFunc) (*dlca.Bits, error) {
		for _, i := range gifFrames(len(states), maxGIFFrames) {
			if err := frame(frameOf(&states[i], 0, drawnChannels(o, states[i].Channels))); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	return err
}

// gifFrames returns the indices of the states to draw out of n: all of
// them when n <= limit, otherwise every k-th with the smallest stride k
// that keeps at most limit frames (at least 2), the last state always
// included.
func gifFrames(n, limit int) []int {
	limit = max(limit, 2)
	stride := 1
	if n > limit {
		// Multiples of stride up to n-1 give at most limit-1 states, which
		// leaves room for the last one.
		stride = (n-2)/(limit-1) + 1
	}
	var idx []int
	for i := 0; i < n; i += stride {
		idx = append(idx, i)
	}
	if n > 0 && idx[len(idx)-1] != n-1 {
		idx = append(idx, n-1)
	}
	return idx
}

// saveLossPlot draws the soft and hard loss of every iteration as a PNG.
func saveLossPlot(path, title string, metrics []bptt.Metrics) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = "loss (sum of squared errors)"
	soft := make(plotter.XYs, len(metrics))
	hard := make(plotter.XYs, len(metrics))
	for i, m := range metrics {
		soft[i] = plotter.XY{X: float64(m.Iteration), Y: m.SoftLoss}
		hard[i] = plotter.XY{X: float64(m.Iteration), Y: m.HardLoss}
	}
	for _, s := range []struct {
		name string
		xy   plotter.XYs
		col  color.RGBA
	}{{"soft", soft, color.RGBA{B: 200, A: 255}}, {"hard", hard, color.RGBA{R: 220, A: 255}}} {
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return fmt.Errorf("loss plot: %w", err)
		}
		l.Color = s.col
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	wt, err := p.WriterTo(16*vg.Centimeter, 10*vg.Centimeter, "png")
	if err != nil {
		return fmt.Errorf("loss plot: %w", err)
	}
	return safefile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
