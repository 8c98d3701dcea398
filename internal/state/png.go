package state

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"io"
)

// ReadPNG reads a state of spec.Channels channels from a PNG picture, one
// cell a pixel: with spec.Palette, each colour sets the channels the
// palette gives it; otherwise channel spec.Channel is 1 where the grey
// level is at least spec.Threshold and the other channels are 0. A transparent pixel
// counts as black.
func ReadPNG(r io.Reader, spec Spec) (*State, error) {
	// The header first, read as it streams in, so that a file that is no
	// picture (random bytes, /dev/zero) is refused by its first bytes and a
	// huge picture by its header, before anything is read whole or decoded.
	var header bytes.Buffer
	cfg, err := png.DecodeConfig(io.TeeReader(r, &header))
	if err != nil {
		return nil, fmt.Errorf("not a PNG picture: %w", err)
	}
	if err := spec.checkSize(cfg.Height, cfg.Width); err != nil {
		return nil, err
	}
	if spec.Palette != nil && spec.Palette.Channels() > spec.Channels {
		return nil, fmt.Errorf("the palette %s sets %d channels but the state has %d", spec.Palette, spec.Palette.Channels(), spec.Channels)
	}
	if spec.Threshold < 0 || spec.Threshold > 1 {
		return nil, fmt.Errorf("threshold %v: a grey level must be in [0, 1]", spec.Threshold)
	}
	if spec.Palette == nil && (spec.Channel < 0 || spec.Channel >= spec.Channels) {
		return nil, fmt.Errorf("channel %d: a grey picture sets one of the channels 0 to %d", spec.Channel, spec.Channels-1)
	}
	img, err := png.Decode(io.MultiReader(&header, r))
	if err != nil {
		return nil, fmt.Errorf("not a PNG picture: %w", err)
	}
	b := img.Bounds()
	s := &State{Height: b.Dy(), Width: b.Dx(), Channels: spec.Channels, Values: make([]float32, b.Dx()*b.Dy()*spec.Channels)}
	for y := range s.Height {
		for x := range s.Width {
			cell := s.Values[(y*s.Width+x)*s.Channels:][:s.Channels]
			px := img.At(b.Min.X+x, b.Min.Y+y)
			if spec.Palette == nil {
				if grey := color.GrayModel.Convert(px).(color.Gray).Y; float64(grey)/255 >= spec.Threshold {
					cell[spec.Channel] = 1
				}
				continue
			}
			if err := spec.Palette.set(cell, px, spec.Threshold); err != nil {
				return nil, fmt.Errorf("pixel (x %d, y %d): %w", x, y, err)
			}
		}
	}
	return s, nil
}
