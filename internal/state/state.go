// Package state reads grids of cell bits from files: a PNG picture, whose
// pixels become bits through a grey-level threshold (one channel) or a
// palette (each colour names the bits of its cell), or a NumPy .npy array
// [H, W, C] of 0s and 1s. Experiment files (package experiments) read their
// initial states and targets here; any command that reads a state from a
// file should too, so that every command takes the same formats.
package state

import (
	"fmt"
	"image"
	"image/color"
	_ "image/png" // the format Load reads pictures in
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Grid is a state read from a file: Height x Width cells of Channels bits,
// row-major [H, W, C], every value 0 or 1.
type Grid struct {
	Height, Width, Channels int
	Values                  []float32
}

// Mapping says how a picture's pixels become bits.
type Mapping struct {
	// Palette, when not empty, maps colours ("#rrggbb") to the bits of
	// channels 0, 1, ...; a pixel of a colour it does not name is an error.
	Palette map[string][]int
	// Without a palette, a pixel whose grey level (0 black to 1 white) is
	// above Threshold is 1 in channel Channel; every other bit is 0.
	Threshold float64
	Channel   int
}

// Load reads the grid of channels channels in path: a .png through m, or a
// .npy array [H, W, C] with C <= channels (its channels first, the rest 0).
func Load(path string, m Mapping, channels int) (*Grid, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return loadPNG(path, m, channels)
	case ".npy":
		return loadNPY(path, channels)
	}
	return nil, fmt.Errorf("%s: not a state file: give a .png picture or a NumPy .npy array [H, W, C] of 0/1", path)
}

// CheckMapping reports what is wrong with m for a grid of channels
// channels, before any file is read.
func CheckMapping(m Mapping, channels int) error {
	if len(m.Palette) == 0 {
		if !(m.Threshold >= 0 && m.Threshold < 1) {
			return fmt.Errorf("threshold %v: must be in [0, 1) (grey levels run from 0, black, to 1, white)", m.Threshold)
		}
		if m.Channel < 0 || m.Channel >= channels {
			return fmt.Errorf("channel %d: must be in [0, %d)", m.Channel, channels)
		}
		return nil
	}
	if m.Threshold != 0 || m.Channel != 0 {
		return fmt.Errorf("a palette gives every bit: leave threshold and channel out")
	}
	for _, key := range slices.Sorted(maps.Keys(m.Palette)) {
		if _, err := parseColour(key); err != nil {
			return fmt.Errorf("palette: %w", err)
		}
		bits := m.Palette[key]
		if len(bits) == 0 || len(bits) > channels {
			return fmt.Errorf("palette colour %s has %d bits: give 1 to %d (channels 0, 1, ...)", key, len(bits), channels)
		}
		for _, b := range bits {
			if b != 0 && b != 1 {
				return fmt.Errorf("palette colour %s: bit %d is not 0 or 1", key, b)
			}
		}
	}
	return nil
}

// parseColour reads "#rrggbb".
func parseColour(s string) (color.RGBA, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	if !strings.HasPrefix(s, "#") || len(s) != 7 || err != nil {
		return color.RGBA{}, fmt.Errorf("colour %q: write colours as \"#rrggbb\" (hexadecimal), e.g. \"#ff0000\"", s)
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}, nil
}

func loadPNG(path string, m Mapping, channels int) (*Grid, error) {
	if err := CheckMapping(m, channels); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the state file: %w", err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a PNG picture: %w", path, err)
	}
	palette := map[color.RGBA][]int{}
	for key, bits := range m.Palette {
		c, _ := parseColour(key)
		palette[c] = bits
	}
	b := img.Bounds()
	g := &Grid{Height: b.Dy(), Width: b.Dx(), Channels: channels, Values: make([]float32, b.Dx()*b.Dy()*channels)}
	for y := range g.Height {
		for x := range g.Width {
			px := img.At(b.Min.X+x, b.Min.Y+y)
			cell := g.Values[(y*g.Width+x)*channels:][:channels]
			if len(palette) == 0 {
				if float64(color.GrayModel.Convert(px).(color.Gray).Y)/255 > m.Threshold {
					cell[m.Channel] = 1
				}
				continue
			}
			// Transparent parts count as drawn over black.
			r, gr, bl, _ := px.RGBA()
			c := color.RGBA{R: uint8(r >> 8), G: uint8(gr >> 8), B: uint8(bl >> 8), A: 255}
			bits, ok := palette[c]
			if !ok {
				return nil, fmt.Errorf("%s: pixel (%d, %d) is #%02x%02x%02x, a colour the palette does not name (it names %s)",
					path, x, y, c.R, c.G, c.B, strings.Join(slices.Sorted(maps.Keys(m.Palette)), ", "))
			}
			for k, v := range bits {
				cell[k] = float32(v)
			}
		}
	}
	return g, nil
}

// Centred returns g centred on an h x w grid of zeros, [h, w, Channels]:
// offset (h-Height)/2, (w-Width)/2, cells that fall outside cut off.
func (g *Grid) Centred(h, w int) []float32 {
	c := g.Channels
	out := make([]float32, h*w*c)
	oy, ox := (h-g.Height)/2, (w-g.Width)/2
	for y := range g.Height {
		for x := range g.Width {
			if ty, tx := y+oy, x+ox; ty >= 0 && ty < h && tx >= 0 && tx < w {
				copy(out[(ty*w+tx)*c:][:c], g.Values[(y*g.Width+x)*c:][:c])
			}
		}
	}
	return out
}
