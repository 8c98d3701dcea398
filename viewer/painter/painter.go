package painter

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Frame is one grid state: H x W cells of C channels, row-major [H][W][C].
type Frame struct {
	H, W, C int
	Cells   []float32
}

// NewFrame returns an all-zero frame of the given size.
func NewFrame(h, w, c int) Frame {
	return Frame{H: h, W: w, C: c, Cells: make([]float32, h*w*c)}
}

// Index returns the position of channel c of cell (y, x) in f.Cells.
func (f Frame) Index(y, x, c int) int { return (y*f.W+x)*f.C + c }

// At returns channel c of cell (y, x).
func (f Frame) At(y, x, c int) float32 { return f.Cells[f.Index(y, x, c)] }

// Clone returns a deep copy of f.
func (f Frame) Clone() Frame {
	f.Cells = append([]float32(nil), f.Cells...)
	return f
}

// check panics when f is not a well-formed frame.
func (f Frame) check(op string) {
	if f.H < 0 || f.W < 0 || f.C < 1 || len(f.Cells) != f.H*f.W*f.C {
		panic(fmt.Sprintf("painter: %s: frame %dx%dx%d holds %d values", op, f.H, f.W, f.C, len(f.Cells)))
	}
}

// GridColour is the colour of the optional lines between cells.
var GridColour = color.RGBA{R: 64, G: 64, B: 64, A: 255}

// Options chooses how a frame is drawn. The zero value draws channel 0 in
// black and white, one pixel per cell.
type Options struct {
	Channel   int  // the channel drawn as grey levels when RGB is false
	RGB       bool // draw channels 0, 1, 2 as red, green, blue
	Scale     int  // pixels per cell side; 0 means 1
	GridLines bool // darken the last pixel row and column of each cell
}

func (o Options) scale() int {
	if o.Scale < 1 {
		return 1
	}
	return o.Scale
}

// Size returns the size in pixels of a painted frame of h x w cells.
func (o Options) Size(h, w int) image.Point {
	s := o.scale()
	return image.Pt(w*s, h*s)
}

// level maps a channel value to a colour intensity: round(255*v), clamped.
func level(v float32) uint8 {
	switch {
	case !(v > 0): // also catches NaN
		return 0
	case v >= 1:
		return 255
	}
	return uint8(math.Round(float64(v) * 255))
}

// Colour returns the colour of cell (y, x) of f.
func Colour(f Frame, y, x int, o Options) color.RGBA {
	if o.RGB {
		var rgb [3]uint8
		for c := 0; c < 3 && c < f.C; c++ {
			rgb[c] = level(f.At(y, x, c))
		}
		return color.RGBA{R: rgb[0], G: rgb[1], B: rgb[2], A: 255}
	}
	g := level(f.At(y, x, o.Channel))
	return color.RGBA{R: g, G: g, B: g, A: 255}
}

// Paint draws f into a new image of o.Size(f.H, f.W) pixels.
// It panics when o.Channel is not a channel of f.
func Paint(f Frame, o Options) *image.RGBA {
	sz := o.Size(f.H, f.W)
	dst := image.NewRGBA(image.Rect(0, 0, sz.X, sz.Y))
	PaintAt(dst, image.Point{}, f, o)
	return dst
}

// PaintAt draws f into dst with the top-left corner of cell (0, 0) at at.
// Pixels that fall outside dst are skipped. It panics when o.Channel is not
// a channel of f.
func PaintAt(dst *image.RGBA, at image.Point, f Frame, o Options) {
	f.check("PaintAt")
	if !o.RGB && (o.Channel < 0 || o.Channel >= f.C) {
		panic(fmt.Sprintf("painter: PaintAt: channel %d of a frame with %d channels", o.Channel, f.C))
	}
	s := o.scale()
	lines := o.GridLines && s >= 3
	for y := 0; y < f.H; y++ {
		for x := 0; x < f.W; x++ {
			fillCell(dst, image.Rect(0, 0, s, s).Add(at).Add(image.Pt(x*s, y*s)), Colour(f, y, x, o), lines)
		}
	}
}

// fillCell fills block r of dst with c, clipped to dst; with lines, the last
// row and column of r get GridColour.
func fillCell(dst *image.RGBA, r image.Rectangle, c color.RGBA, lines bool) {
	inner := r
	if lines {
		inner.Max = inner.Max.Sub(image.Pt(1, 1))
	}
	vis := r.Intersect(dst.Rect)
	for py := vis.Min.Y; py < vis.Max.Y; py++ {
		row := dst.Pix[dst.PixOffset(vis.Min.X, py):]
		for px := vis.Min.X; px < vis.Max.X; px++ {
			col := c
			if !image.Pt(px, py).In(inner) {
				col = GridColour
			}
			i := 4 * (px - vis.Min.X)
			row[i], row[i+1], row[i+2], row[i+3] = col.R, col.G, col.B, col.A
		}
	}
}

// KnownPalette returns every colour Paint can draw under o, in a fixed
// order: for frames whose values are all 0 or 1 when binary (a hard
// rollout: black and white, or the 8 corners of the RGB cube), for any
// values otherwise (the 256 grey levels). It returns nil for soft values
// in RGB, which can take more colours than a GIF palette holds. GridColour
// comes last when o draws grid lines.
func KnownPalette(o Options, binary bool) color.Palette {
	var pal color.Palette
	switch {
	case o.RGB && binary:
		for i := range 8 {
			pal = append(pal, color.RGBA{R: 255 * uint8(i&1), G: 255 * uint8(i>>1&1), B: 255 * uint8(i>>2), A: 255})
		}
	case o.RGB:
		return nil
	case binary:
		pal = color.Palette{color.RGBA{A: 255}, color.RGBA{R: 255, G: 255, B: 255, A: 255}}
	default:
		for g := range 256 {
			pal = append(pal, color.RGBA{R: uint8(g), G: uint8(g), B: uint8(g), A: 255})
		}
	}
	if o.GridLines && o.scale() >= 3 {
		pal = append(pal, GridColour)
	}
	return pal
}
