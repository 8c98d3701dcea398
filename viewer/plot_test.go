package viewer

import (
	"image"
	"math"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// lossCurves are 1000 iterations of a loss falling to 0, as the viewer's
// side panel shows them.
func lossCurves() (soft, hard []float64) {
	for i := range 1000 {
		soft = append(soft, 20*math.Exp(-float64(i)/200)+0.1*math.Sin(float64(i)))
		hard = append(hard, math.Floor(30*math.Exp(-float64(i)/150)))
	}
	return soft, hard
}

// BenchmarkLossPlot times the viewer's loss plot, drawn every frame into the
// 300x150-pixel side panel (docs/viewer.md: why it is not gonum/plot).
func BenchmarkLossPlot(b *testing.B) {
	soft, hard := lossCurves()
	dst := image.NewRGBA(image.Rect(0, 0, 300, plotHeight))
	for b.Loop() {
		drawLossPlot(dst, dst.Bounds(), soft, hard)
	}
}

// BenchmarkLossPlotGonum times the same plot drawn by gonum/plot (log
// scale, two lines, axes with tick labels) into an image of the same size
// with vgimg: the measurement behind keeping drawLossPlot.
func BenchmarkLossPlotGonum(b *testing.B) {
	soft, hard := lossCurves()
	xys := func(vals []float64) plotter.XYs {
		xy := make(plotter.XYs, len(vals))
		for i, v := range vals {
			xy[i] = plotter.XY{X: float64(i + 1), Y: max(v, 0.02)}
		}
		return xy
	}
	dst := image.NewRGBA(image.Rect(0, 0, 300, plotHeight))
	for b.Loop() {
		p := plot.New()
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		for _, vals := range [][]float64{soft, hard} {
			l, err := plotter.NewLine(xys(vals))
			if err != nil {
				b.Fatal(err)
			}
			p.Add(l)
		}
		c := vgimg.NewWith(vgimg.UseImage(dst), vgimg.UseDPI(96))
		p.Draw(draw.New(c))
	}
}
