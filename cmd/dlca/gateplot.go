package main

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// gateCounts is how many gates of one network discretise to each op
// (gates.Op order).
type gateCounts [gates.NumOps]int

// networkGates returns the gate histograms of m's two networks: the
// perception kernels (every layer, every kernel) and the update network
// (every layer), counting each gate's most probable op (its hard op).
func networkGates(m *dlca.Model) (perception, update gateCounts) {
	count := func(c *gateCounts, layers []*gates.Layer) {
		for _, l := range layers {
			for _, op := range l.HardOps() {
				c[op]++
			}
		}
	}
	count(&perception, m.Perception)
	count(&update, m.Update)
	return perception, update
}

// saveGatePlot draws m's gate histograms as a PNG (gatePlot).
func saveGatePlot(path, title string, m *dlca.Model) error {
	p, err := gatePlot(title, m)
	if err != nil {
		return fmt.Errorf("gate plot: %w", err)
	}
	return savePlot(path, p, 20*vg.Centimeter, 11*vg.Centimeter)
}

// gatePlot plots, for each of the 16 ops (named as package gates names
// them), how many gates of the perception kernels and of the update
// network discretise to it, as two bars side by side: the picture of the
// paper's notebook. Pass-through gates (A, B) route a signal and compute
// nothing; the others are the active gates.
func gatePlot(title string, m *dlca.Model) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "gates"
	perception, update := networkGates(m)
	const barWidth = 8
	for i, n := range []struct {
		name   string
		counts gateCounts
		col    color.RGBA
	}{
		{fmt.Sprintf("perception (%d kernels)", m.Config.Kernels), perception, color.RGBA{R: 60, G: 120, B: 200, A: 255}},
		{"update", update, color.RGBA{R: 230, G: 130, B: 40, A: 255}},
	} {
		vals := make(plotter.Values, gates.NumOps)
		for op, c := range n.counts {
			vals[op] = float64(c)
		}
		b, err := plotter.NewBarChart(vals, vg.Points(barWidth))
		if err != nil {
			return nil, err
		}
		b.Color = n.col
		b.LineStyle.Width = 0
		b.Offset = vg.Points(barWidth * (float64(i) - 0.5))
		p.Add(b)
		p.Legend.Add(n.name, b)
		// Each count written over its bar: a few active gates beside
		// hundreds of pass-throughs would otherwise be invisible.
		var at plotter.XYLabels
		for op, c := range n.counts {
			if c > 0 {
				at.XYs = append(at.XYs, plotter.XY{X: float64(op), Y: float64(c)})
				at.Labels = append(at.Labels, fmt.Sprint(c))
			}
		}
		if len(at.Labels) > 0 {
			l, err := plotter.NewLabels(at)
			if err != nil {
				return nil, err
			}
			for j := range l.TextStyle {
				l.TextStyle[j].Font.Size = vg.Points(8)
				l.TextStyle[j].Color = n.col
				l.TextStyle[j].XAlign = -0.5
			}
			l.Offset = vg.Point{X: b.Offset, Y: vg.Points(2)}
			p.Add(l)
		}
	}
	names := make([]string, gates.NumOps)
	for op := range gates.NumOps {
		names[op] = gates.Op(op).String()
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = -1 // text ends under its bar
	p.X.Tick.Label.YAlign = 0
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p, nil
}
