package painter

import (
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/png"
	"io"

	"github.com/dlca/dlca/internal/safefile"
)

// WritePNG encodes img as PNG to w.
func WritePNG(w io.Writer, img image.Image) error {
	return png.Encode(w, img)
}

// WriteGIF encodes frames as an animated GIF that loops forever, showing
// each frame for delay hundredths of a second. When all frames together use
// at most 256 colours (hard rollouts, grey levels of a few values) the
// palette holds exactly those colours, so the GIF is lossless; otherwise the
// colours are mapped to the nearest of the Plan 9 palette.
func WriteGIF(w io.Writer, frames []image.Image, delay int) error {
	if len(frames) == 0 {
		return fmt.Errorf("painter: WriteGIF: no frames to write")
	}
	pal := exactPalette(frames)
	if pal == nil {
		pal = palette.Plan9
	}
	anim := &gif.GIF{}
	for _, f := range frames {
		p := image.NewPaletted(f.Bounds(), pal)
		draw.Draw(p, p.Rect, f, f.Bounds().Min, draw.Src)
		anim.Image = append(anim.Image, p)
		anim.Delay = append(anim.Delay, delay)
	}
	return gif.EncodeAll(w, anim)
}

// exactPalette returns the colours used by frames, in order of first use,
// or nil when there are more than 256.
func exactPalette(frames []image.Image) color.Palette {
	seen := map[color.RGBA]bool{}
	var pal color.Palette
	for _, f := range frames {
		b := f.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := color.RGBAModel.Convert(f.At(x, y)).(color.RGBA)
				if seen[c] {
					continue
				}
				if len(pal) == 256 {
					return nil
				}
				seen[c] = true
				pal = append(pal, c)
			}
		}
	}
	return pal
}

// SavePNG writes img to the PNG file path with safefile.Write: atomically
// for a regular file, so readers never see a half-written image.
func SavePNG(path string, img image.Image) error {
	return safefile.Write(path, func(w io.Writer) error { return WritePNG(w, img) })
}

// SaveGIF writes frames to the animated GIF file path with safefile.Write
// (atomically for a regular file); see WriteGIF.
func SaveGIF(path string, frames []image.Image, delay int) error {
	return safefile.Write(path, func(w io.Writer) error { return WriteGIF(w, frames, delay) })
}
