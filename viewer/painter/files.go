package painter

import (
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
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
	enc := NewGIFEncoder(w, pal, delay)
	for _, f := range frames {
		if err := enc.Add(f); err != nil {
			return err
		}
	}
	return enc.Close()
}

// exactPalette returns the colours used by frames, in order of first use,
// or nil when there are more than 256.
func exactPalette(frames []image.Image) color.Palette {
	var c Colours
	for _, f := range frames {
		c.Add(f)
	}
	return c.Palette()
}

// Colours collects the colours of images, in order of first use, up to
// 256: a GIF palette that draws them exactly. The zero value is empty.
type Colours struct {
	seen map[color.RGBA]bool
	pal  color.Palette
	over bool // more than 256 colours
}

// Add adds the colours of img.
func (c *Colours) Add(img image.Image) {
	if c.seen == nil {
		c.seen = map[color.RGBA]bool{}
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && !c.over; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			col := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c.seen[col] {
				continue
			}
			if len(c.pal) == 256 {
				c.over = true
				break
			}
			c.seen[col] = true
			c.pal = append(c.pal, col)
		}
	}
}

// Palette returns the colours seen, or nil when there were more than 256.
func (c *Colours) Palette() color.Palette {
	if c.over {
		return nil
	}
	return c.pal
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

// SaveGIFStream writes an animated GIF to path with safefile.Write, frame by
// frame: frames calls add for each frame in turn (see GIFEncoder), so that
// only one is held at a time. pal is the palette (GIFPalette gives the exact
// one of a rollout whose colours are known in advance).
func SaveGIFStream(path string, pal color.Palette, delay int, frames func(add func(image.Image) error) error) error {
	return safefile.Write(path, func(w io.Writer) error {
		enc := NewGIFEncoder(w, pal, delay)
		if err := frames(enc.Add); err != nil {
			return err
		}
		return enc.Close()
	})
}
