package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

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

// saveBitsGIF draws a hard rollout of experiment e (image 0 of each state)
// with o as an animated GIF at path, painting one frame at a time
// (saveRolloutGIF), and its last state as the PNG finalPNG(path). A rollout
// longer than maxGIFFrames keeps every k-th state, the first and the last.
func saveBitsGIF(path string, e *experiments.Experiment, states []dlca.Bits, o painter.Options) error {
	_, err := saveRolloutGIF(path, finalPNG(path), e, o, false, func(frame frameFunc) (*dlca.Bits, error) {
		for _, i := range gifFrames(len(states), maxGIFFrames) {
			s := &states[i]
			if err := frame(shownState{step: i, frame: frameOf(s, 0, drawnChannels(o, s.Channels)), bits: s}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	return err
}

// finalPNG names the picture of an animation's last frame: NAME-final.png
// beside NAME.gif.
func finalPNG(gifPath string) string {
	return strings.TrimSuffix(gifPath, filepath.Ext(gifPath)) + "-final.png"
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

// saveLossPlot draws the soft and hard loss of every iteration as a PNG
// (lossPlot).
func saveLossPlot(path, title string, metrics []bptt.Metrics, changes ...methodChange) error {
	p, err := lossPlot(title, metrics, changes...)
	if err != nil {
		return fmt.Errorf("loss plot: %w", err)
	}
	return savePlot(path, p, 16*vg.Centimeter, 10*vg.Centimeter)
}

// lossPlot plots the soft and hard loss of every iteration on a
// logarithmic loss axis (lossTicks), and marks the first iteration whose
// hard loss is 0 with a vertical line, and each change to the method
// with a dotted one. A loss of 0 has no place on a logarithmic axis: the
// hard loss's line breaks where it is 0. With no loss above 0 at all the
// axis is linear.
func lossPlot(title string, metrics []bptt.Metrics, changes ...methodChange) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = "loss (log scale)"
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range []struct {
		name string
		loss func(bptt.Metrics) float64
		col  color.RGBA
	}{
		{"soft loss", func(m bptt.Metrics) float64 { return m.SoftLoss }, color.RGBA{B: 200, A: 255}},
		{"hard loss", func(m bptt.Metrics) float64 { return m.HardLoss }, color.RGBA{R: 220, A: 255}},
	} {
		for i, run := range positiveRuns(metrics, s.loss) {
			l, err := plotter.NewLine(run)
			if err != nil {
				return nil, err
			}
			l.Color = s.col
			l.Width = vg.Points(1.5)
			p.Add(l)
			if i == 0 {
				p.Legend.Add(s.name, l)
			}
			for _, xy := range run {
				lo, hi = min(lo, xy.Y), max(hi, xy.Y)
			}
		}
	}
	if lo > hi {
		return p, nil // no loss above 0: nothing for a logarithmic axis
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = lossTicks{}
	if first := firstHardZero(metrics); first > 0 {
		mark, err := plotter.NewLine(plotter.XYs{{X: float64(first), Y: lo}, {X: float64(first), Y: hi}})
		if err != nil {
			return nil, err
		}
		mark.Color = color.RGBA{G: 140, A: 255}
		mark.Width = vg.Points(1.5)
		mark.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(mark)
		p.Legend.Add(fmt.Sprintf("hard loss first 0 (iteration %d)", first), mark)
	}
	for _, c := range changes {
		mark, err := plotter.NewLine(plotter.XYs{{X: float64(c.iteration), Y: lo}, {X: float64(c.iteration), Y: hi}})
		if err != nil {
			return nil, err
		}
		mark.Color = color.RGBA{R: 110, G: 110, B: 110, A: 255}
		mark.Width = vg.Points(1)
		mark.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(mark)
		p.Legend.Add(fmt.Sprintf("%s from iteration %d", c.what, c.iteration), mark)
	}
	p.Add(plotter.NewGrid())
	p.Legend.Left = true // losses fall: the bottom left stays empty
	return p, nil
}

// positiveRuns returns the points (iteration, loss) of metrics as runs of
// consecutive iterations whose loss is above 0, so that a line drawn along
// each run never crosses an iteration where the loss was 0.
func positiveRuns(metrics []bptt.Metrics, loss func(bptt.Metrics) float64) []plotter.XYs {
	var runs []plotter.XYs
	var run plotter.XYs
	for _, m := range metrics {
		if v := loss(m); v > 0 {
			run = append(run, plotter.XY{X: float64(m.Iteration), Y: v})
			continue
		}
		if len(run) > 0 {
			runs, run = append(runs, run), nil
		}
	}
	if len(run) > 0 {
		runs = append(runs, run)
	}
	return runs
}

// firstHardZero returns the first iteration whose hard loss is 0, or 0 when
// there is none.
func firstHardZero(metrics []bptt.Metrics) int {
	for _, m := range metrics {
		if m.HardLoss == 0 {
			return m.Iteration
		}
	}
	return 0
}

// lossTicks marks a logarithmic axis: every power of ten labelled, and, on
// an axis that spans no more than three decades, 2 and 5 times each power
// labelled too, so that even a short range has labels; the other multiples
// get unlabelled minor ticks.
type lossTicks struct{}

// Ticks implements plot.Ticker.
func (lossTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	dense := last-first <= 3
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		for k := 1; k <= 9; k++ {
			v := float64(k) * math.Pow(10, float64(e))
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if k == 1 || dense && (k == 2 || k == 5) {
				t.Label = strconv.FormatFloat(v, 'g', 3, 64)
			}
			ticks = append(ticks, t)
		}
	}
	// A range inside one decade (30 to 60, say) would keep one label or
	// none: label every tick then.
	if countLabels(ticks) < 3 {
		for i := range ticks {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 3, 64)
		}
	}
	return ticks
}

// countLabels returns how many of ticks carry a label.
func countLabels(ticks []plot.Tick) int {
	n := 0
	for _, t := range ticks {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// saveCurvePlot draws ys against the step 1, 2, ... as a PNG at path (a
// check's error curve, such as the robustness run's), written atomically.
func saveCurvePlot(path, title, ylabel string, ys []float64) error {
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
	return savePlot(path, p, 16*vg.Centimeter, 8*vg.Centimeter)
}

// savePlot writes p as a w x h PNG with safefile.Write.
func savePlot(path string, p *plot.Plot, w, h vg.Length) error {
	wt, err := p.WriterTo(w, h, "png")
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return safefile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
