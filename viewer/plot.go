package viewer

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/dlca/dlca/viewer/painter"
)

const plotHeight = 150

var axisColour = painter.PlotAxisColour

// drawLossPlot draws the soft and hard loss per iteration into r on a log
// scale (losses reach 0 when training succeeds, so values are floored at a
// thousandth of the largest).
//
// NOTE: drawn by hand rather than with gonum/plot (which draws dlca train's
// loss.png) because the panel is redrawn every frame, 60 a second, beside
// training on the same cores: for 1000 iterations in 300x150 pixels this
// takes 0.76 ms, gonum/plot into a vgimg canvas of the same size 11.9 ms,
// 71% of a frame's 16.7 ms (BenchmarkLossPlot, BenchmarkLossPlotGonum; 2
// cores, AMD EPYC).
func drawLossPlot(dst *image.RGBA, r image.Rectangle, soft, hard []float64) {
	fill(dst, r, backgroundColour)
	outline(dst, r, axisColour)
	drawText(dst, r.Min.Add(image.Pt(4, 2)), softColour, "soft")
	drawText(dst, r.Min.Add(image.Pt(40, 2)), hardColour, "hard")
	hi := math.Inf(-1)
	for _, v := range append(append([]float64(nil), soft...), hard...) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			hi = max(hi, v)
		}
	}
	if len(soft) == 0 || !(hi > 0) {
		return
	}
	lo := hi / 1000
	drawText(dst, image.Pt(r.Max.X-charWidth*len(fmtLoss(hi))-4, r.Min.Y+2), dimColour, fmtLoss(hi))
	drawText(dst, image.Pt(r.Max.X-charWidth*len(fmtLoss(lo))-4, r.Max.Y-lineHeight-1), dimColour, fmtLoss(lo))
	in := r.Inset(3)
	in.Min.Y += lineHeight
	for _, s := range []struct {
		vals []float64
		c    color.RGBA
	}{{soft, softColour}, {hard, hardColour}} {
		polyline(dst, curve(s.vals, in, lo, hi), s.c)
	}
}

// curve maps loss i to a point of r: iterations across, log loss upwards.
func curve(vals []float64, r image.Rectangle, lo, hi float64) []image.Point {
	pts := make([]image.Point, 0, len(vals))
	span := math.Log(hi / lo)
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		v = math.Min(math.Max(v, lo), hi)
		x := r.Min.X
		if len(vals) > 1 {
			x += i * (r.Dx() - 1) / (len(vals) - 1)
		}
		y := r.Max.Y - 1 - int(math.Round(math.Log(v/lo)/span*float64(r.Dy()-1)))
		pts = append(pts, image.Pt(x, y))
	}
	return pts
}

func polyline(dst *image.RGBA, pts []image.Point, c color.RGBA) {
	for i := range pts {
		from := pts[max(i-1, 0)]
		for _, p := range line(from, pts[i]) {
			if p.In(dst.Rect) {
				dst.SetRGBA(p.X, p.Y, c)
			}
		}
	}
}

func outline(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	corners := []image.Point{r.Min, {r.Max.X - 1, r.Min.Y}, r.Max.Sub(image.Pt(1, 1)), {r.Min.X, r.Max.Y - 1}, r.Min}
	polyline(dst, corners, c)
}

func fmtLoss(v float64) string { return fmt.Sprintf("%.3g", v) }
