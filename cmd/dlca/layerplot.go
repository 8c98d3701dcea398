package main

import (
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dlca/dlca/bptt"
)

// saveLayerPlots draws the layer statistics of a -layer-stats run into dir:
// layers-grad.png, each layer's gradient norm on a logarithmic axis,
// layers-undecided.png, each layer's share of undecided gates, and
// layers-nograd.png, each layer's share of gates without gradient. A run
// without layer statistics gets none of them.
func saveLayerPlots(dir, title string, metrics []bptt.Metrics) error {
	var recorded []bptt.Metrics
	for _, m := range metrics {
		if m.Layers != nil {
			recorded = append(recorded, m)
		}
	}
	if len(recorded) == 0 {
		return nil
	}
	for _, f := range []struct {
		file, what, ylabel string
		logY               bool
		value              func(bptt.LayerStats) float64
	}{
		{"layers-grad.png", "gradient norm per layer", "gradient norm of the logits (log scale)", true,
			func(s bptt.LayerStats) float64 { return s.GradNorm }},
		{"layers-undecided.png", "undecided gates per layer", "share of gates with top op below 0.9", false,
			func(s bptt.LayerStats) float64 { return float64(s.Undecided) / float64(s.Gates) }},
		{"layers-nograd.png", "gates the loss does not reach", "share of gates whose gradient is 0", false,
			func(s bptt.LayerStats) float64 { return float64(s.NoGradient) / float64(s.Gates) }},
	} {
		p, err := layerPlot(title+": "+f.what, f.ylabel, recorded, f.logY, f.value)
		if err != nil {
			return err
		}
		if f.logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = lossTicks{}
		} else {
			p.Y.Min = 0
		}
		if err := savePlot(filepath.Join(dir, f.file), p, 20*vg.Centimeter, 12*vg.Centimeter); err != nil {
			return err
		}
	}
	return nil
}

// layerPlot draws value of every layer over the recorded iterations, one
// line a layer coloured by its depth, the perception layers dashed. For a
// logarithmic axis (logY) a value of 0 breaks the line: it has no place
// there.
func layerPlot(title, ylabel string, recorded []bptt.Metrics, logY bool, value func(bptt.LayerStats) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	layers := len(recorded[0].Layers)
	for i := range layers {
		var lines []plotter.XYs
		var line plotter.XYs
		for _, m := range recorded {
			if v := value(m.Layers[i]); v > 0 || !logY {
				line = append(line, plotter.XY{X: float64(m.Iteration), Y: v})
			} else if len(line) > 0 {
				lines, line = append(lines, line), nil
			}
		}
		if len(line) > 0 {
			lines = append(lines, line)
		}
		name := recorded[0].Layers[i].Layer
		for k, xy := range lines {
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.Color = depthColour(i, layers)
			l.Width = vg.Points(1)
			if strings.HasPrefix(name, "perception/") {
				l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			}
			p.Add(l)
			if k == 0 {
				p.Legend.Add(name, l)
			}
		}
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// depthColour is layer i of n's colour: blue for the first, through green
// and yellow, to red for the last.
func depthColour(i, n int) color.Color {
	h := 240 * (1 - float64(i)/float64(max(n-1, 1))) // hue in degrees
	x := 1 - math.Abs(math.Mod(h/60, 2)-1)
	var r, g, b float64
	switch {
	case h < 60:
		r, g = 1, x
	case h < 120:
		r, g = x, 1
	case h < 180:
		g, b = 1, x
	default:
		g, b = x, 1
	}
	const v = 200 // darker than full brightness, to read on white
	return color.RGBA{R: uint8(v * r), G: uint8(v * g), B: uint8(v * b), A: 255}
}
