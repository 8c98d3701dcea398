package painter

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Notes are what a picture of a rollout says beside its cells: the step it
// shows and, where the target is known, which cells differ from it.
type Notes struct {
	Step int
	// Wrong holds, for each cell in row-major order [H][W], whether it
	// differs from the target; nil when there is no target to compare with.
	Wrong []bool
}

// Caption returns the caption's text: "step 12", and ", 3 wrong" when the
// target is known.
func (n Notes) Caption() string {
	s := fmt.Sprintf("step %d", n.Step)
	if n.Wrong != nil {
		s += fmt.Sprintf(", %d wrong", CountWrong(n.Wrong))
	}
	return s
}

// CountWrong returns how many cells of wrong are marked.
func CountWrong(wrong []bool) int {
	n := 0
	for _, w := range wrong {
		if w {
			n++
		}
	}
	return n
}

// CaptionHeight is the height in pixels of the strip above the grid that
// PaintNoted writes the caption in (basicfont.Face7x13, one line).
const CaptionHeight = 16

var (
	// WrongColour marks the cells that differ from the target: a frame
	// around each, or the whole cell when cells are under 3 pixels wide. It
	// is none of the colours the cells themselves are drawn in.
	WrongColour = color.RGBA{R: 255, G: 40, B: 160, A: 255}
	// CaptionBackground and CaptionColour are the caption strip's colours.
	CaptionBackground = color.RGBA{R: 48, G: 48, B: 48, A: 255}
	CaptionColour     = color.RGBA{R: 255, G: 255, B: 255, A: 255}
)

// NotedSize returns the size in pixels of a picture of h x w cells painted
// by PaintNoted: the grid with the caption strip above it.
func (o Options) NotedSize(h, w int) image.Point {
	return o.Size(h, w).Add(image.Pt(0, CaptionHeight))
}

// PaintNoted draws f into dst (of o.NotedSize(f.H, f.W) pixels, origin
// (0, 0)): the caption of n in a strip at the top, the cells below it as
// PaintAt draws them, and the cells n marks wrong framed in WrongColour
// (MarkWrong).
func PaintNoted(dst *image.RGBA, f Frame, o Options, n Notes) {
	strip := image.Rect(0, 0, dst.Rect.Dx(), CaptionHeight)
	draw.Draw(dst, strip, image.NewUniform(CaptionBackground), image.Point{}, draw.Src)
	WriteText(dst, image.Pt(3, 1), CaptionColour, n.Caption())
	at := image.Pt(0, CaptionHeight)
	PaintAt(dst, at, f, o)
	MarkWrong(dst, at, f.H, f.W, n.Wrong, o)
}

// MarkWrong marks the cells of an h x w grid drawn at at (as PaintAt draws
// it under o) for which wrong is true: a frame in WrongColour inside the
// cell, a ninth of its side thick (at least a pixel), or the whole cell
// when it is under 3 pixels wide. A nil wrong marks nothing; otherwise it
// must hold h*w values, or MarkWrong panics.
func MarkWrong(dst *image.RGBA, at image.Point, h, w int, wrong []bool, o Options) {
	if wrong == nil {
		return
	}
	if len(wrong) != h*w {
		panic(fmt.Sprintf("painter: MarkWrong: %d marks for %dx%d cells", len(wrong), h, w))
	}
	s := o.scale()
	side := s
	if o.GridLines && s >= 3 {
		side-- // inside the grid lines
	}
	thick := max(1, side/9)
	mark := image.NewUniform(WrongColour)
	for y := range h {
		for x := range w {
			if !wrong[y*w+x] {
				continue
			}
			cell := image.Rect(0, 0, side, side).Add(at).Add(image.Pt(x*s, y*s))
			if s < 3 {
				draw.Draw(dst, cell.Intersect(dst.Rect), mark, image.Point{}, draw.Src)
				continue
			}
			for _, edge := range []image.Rectangle{
				{cell.Min, image.Pt(cell.Max.X, cell.Min.Y+thick)},
				{image.Pt(cell.Min.X, cell.Max.Y-thick), cell.Max},
				{cell.Min, image.Pt(cell.Min.X+thick, cell.Max.Y)},
				{image.Pt(cell.Max.X-thick, cell.Min.Y), cell.Max},
			} {
				draw.Draw(dst, edge.Intersect(dst.Rect), mark, image.Point{}, draw.Src)
			}
		}
	}
}

// WriteText writes s in c with basicfont.Face7x13 (7 pixels a character,
// 13 a line), the top-left corner of its first character at p, clipped to
// dst. Every pixel it touches gets exactly c: the font has no shades.
func WriteText(dst *image.RGBA, p image.Point, c color.RGBA, s string) {
	d := font.Drawer{
		Dst:  dst,
		Src:  image.NewUniform(c),
		Face: basicfont.Face7x13,
		Dot:  fixed.P(p.X, p.Y+basicfont.Face7x13.Ascent),
	}
	d.DrawString(s)
}

// NotedPalette returns every colour PaintNoted can draw under o, as
// KnownPalette does for Paint, with the caption's colours added and, for
// binary frames, WrongColour: only hard states are compared with a target
// (soft values would fill a GIF palette with their 256 grey levels). It
// returns nil where KnownPalette does.
func NotedPalette(o Options, binary bool) color.Palette {
	known := KnownPalette(o, binary)
	if known == nil {
		return nil
	}
	var pal color.Palette // known and the caption's colours, each once
	for _, c := range append(known, CaptionBackground, CaptionColour) {
		if c := color.RGBAModel.Convert(c).(color.RGBA); !inPalette(pal, c) {
			pal = append(pal, c)
		}
	}
	if binary {
		pal = append(pal, WrongColour)
	}
	return pal
}

func inPalette(pal color.Palette, c color.RGBA) bool {
	for _, p := range pal {
		if color.RGBAModel.Convert(p) == c {
			return true
		}
	}
	return false
}
