package experiments

import (
	"image"
	"image/color"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The targets of the lizard-drawn and colour-g-drawn experiments, drawn by
// this code before the paper's own masks were here (paper_targets.go). Both
// are drawn once at their training size and centred on larger grids.

// LizardSize is the side of the lizard silhouette's square.
const LizardSize = 20

// lizardMask draws a lizard seen from above, head up, as a LizardSize x
// LizardSize mask: head, neck and body as ellipses along the spine, four
// bent legs, and a tail that narrows as it curls to one side. A pixel is in
// the silhouette when its centre lies inside one of the parts.
func lizardMask() []bool {
	type ellipse struct{ cx, cy, rx, ry float64 }
	parts := []ellipse{
		{9.5, 2.8, 2.3, 2.2}, // head
		{9.5, 5.0, 1.1, 1.3}, // neck
		{9.5, 8.3, 2.6, 3.6}, // body
	}
	// A limb is a line of round dots from the body to the foot.
	limb := func(x0, y0, x1, y1, r float64) {
		for i := 0; i <= 8; i++ {
			f := float64(i) / 8
			// NOTE: products are rounded (explicit conversions) so that no
			// build fuses a multiply-add and moves a pixel of the target.
			parts = append(parts, ellipse{x0 + float64(f*(x1-x0)), y0 + float64(f*(y1-y0)), r, r})
		}
	}
	limb(8.0, 6.0, 5.0, 4.5, 0.75) // front left: out, then forward
	limb(5.0, 4.5, 4.2, 2.8, 0.65)
	limb(11.0, 6.0, 14.0, 4.5, 0.75) // front right
	limb(14.0, 4.5, 14.8, 2.8, 0.65)
	limb(8.0, 10.5, 5.0, 12.0, 0.75) // hind left: out, then back
	limb(5.0, 12.0, 4.4, 14.0, 0.65)
	limb(11.0, 10.5, 14.0, 12.0, 0.75) // hind right
	limb(14.0, 12.0, 14.6, 14.0, 0.65)
	// Tail: from the body's end down, curling right, radius shrinking.
	for i := 0; i <= 24; i++ {
		f := float64(i) / 24
		a := f * 0.6 * math.Pi
		x := 9.5 + float64(4.0*(1-math.Cos(a)))
		y := 11.5 + float64(6.5*math.Sin(a)/math.Sin(0.6*math.Pi))
		r := 1.3 - float64(0.85*f)
		parts = append(parts, ellipse{x, y, r, r})
	}
	mask := make([]bool, LizardSize*LizardSize)
	for py := range LizardSize {
		for px := range LizardSize {
			x, y := float64(px)+0.5, float64(py)+0.5
			for _, e := range parts {
				dx, dy := (x-e.cx)/e.rx, (y-e.cy)/e.ry
				if float64(dx*dx)+float64(dy*dy) <= 1 {
					mask[py*LizardSize+px] = true
					break
				}
			}
		}
	}
	return mask
}

// DrawnLizard is the lizard-drawn experiment's target: the silhouette (1
// inside, 0 outside) centred on an h x w grid.
func DrawnLizard(h, w int) []float32 {
	mask := lizardMask()
	t := make([]float32, h*w)
	oy, ox := (h-LizardSize)/2, (w-LizardSize)/2
	for y := range LizardSize {
		for x := range LizardSize {
			if mask[y*LizardSize+x] && y+oy >= 0 && y+oy < h && x+ox >= 0 && x+ox < w {
				t[(y+oy)*w+x+ox] = 1
			}
		}
	}
	return t
}

// GSize is the side of the coloured G's square.
const GSize = 16

// The four colours of the G and their masks (ch0 = red or yellow, ch1 =
// green or yellow, ch2 = blue).
var (
	gRed    = [3]float32{1, 0, 0}
	gYellow = [3]float32{1, 1, 0}
	gGreen  = [3]float32{0, 1, 0}
	gBlue   = [3]float32{0, 0, 1}
)

// glyphG returns the letter G of the Go Bold font rendered GSize pixels
// high into a GSize x GSize coverage mask (anti-aliased coverage at least
// one half counts as ink), centred.
var glyphG = sync.OnceValue(func() []bool {
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		panic("experiments: the Go Bold font does not parse: " + err.Error())
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 17, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic("experiments: Go Bold face: " + err.Error())
	}
	defer face.Close()
	bounds, _ := font.BoundString(face, "G")
	w := (bounds.Max.X - bounds.Min.X).Ceil()
	h := (bounds.Max.Y - bounds.Min.Y).Ceil()
	img := image.NewAlpha(image.Rect(0, 0, GSize, GSize))
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Alpha{A: 255}), Face: face}
	d.Dot = fixed.Point26_6{
		X: fixed.I((GSize-w)/2) - bounds.Min.X,
		Y: fixed.I((GSize-h)/2) - bounds.Min.Y,
	}
	d.DrawString("G")
	mask := make([]bool, GSize*GSize)
	for i := range mask {
		mask[i] = img.Pix[i] >= 128
	}
	return mask
})

// gColour returns the colour of an ink pixel of the G at (x, y) from its
// angle around the letter's centre, like the four-colour logo: blue for the
// right side and the bar, green at the bottom, yellow on the lower left, red
// across the top.
func gColour(x, y float64) [3]float32 {
	c := float64(GSize) / 2
	deg := math.Atan2(c-y, x-c) * 180 / math.Pi // counter-clockwise from the right, y up
	switch {
	case deg >= -35 && deg < 15:
		return gBlue
	case deg >= -120 && deg < -35:
		return gGreen
	case deg >= -180 && deg < -120 || deg >= 160:
		return gYellow
	}
	return gRed
}

// DrawnColourG is the colour-g-drawn experiment's target: three channels per
// cell (red or yellow, green or yellow, blue) of the G centred on an h x w
// grid, zero outside it.
func DrawnColourG(h, w int) []float32 {
	mask := glyphG()
	t := make([]float32, h*w*3)
	oy, ox := (h-GSize)/2, (w-GSize)/2
	for y := range GSize {
		for x := range GSize {
			ty, tx := y+oy, x+ox
			if !mask[y*GSize+x] || ty < 0 || ty >= h || tx < 0 || tx >= w {
				continue
			}
			col := gColour(float64(x)+0.5, float64(y)+0.5)
			copy(t[(ty*w+tx)*3:], col[:])
		}
	}
	return t
}
