package state

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"
)

// Palette maps a picture's colours to the bits of a cell's leading
// channels. ParsePalette reads it from text.
type Palette struct {
	rgb     bool              // channels 0-2 are red, green and blue, each at least half on
	colours map[rgb][]float32 // otherwise, each colour's channel bits
	order   []rgb             // the colours as given, for String
}

// rgb is an opaque colour.
type rgb [3]uint8

// ParsePalette reads a palette, as dlca eval's -palette flag and experiment
// files give it:
//
//   - "rgb": channels 0, 1 and 2 are the pixel's red, green and blue, each 1
//     where it is at least the threshold (a colour experiment's pictures);
//   - a comma-separated list of COLOUR=BITS entries: COLOUR is #rrggbb in
//     hexadecimal and BITS the values of channels 0, 1, 2, ... in order,
//     for example "#000000=00,#ffffff=10,#ff0000=01" (channels beyond BITS
//     are 0). A pixel of a colour not listed is an error.
func ParsePalette(s string) (*Palette, error) {
	if strings.TrimSpace(s) == "rgb" {
		return &Palette{rgb: true}, nil
	}
	p := &Palette{colours: map[rgb][]float32{}}
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		hex, bits, ok := strings.Cut(entry, "=")
		col, okCol := parseColour(hex)
		if !ok || !okCol || bits == "" || strings.Trim(bits, "01") != "" {
			return nil, fmt.Errorf("palette entry %q: want #rrggbb=BITS, such as #ff0000=01 (channel 0 off, channel 1 on), or the palette rgb", entry)
		}
		if _, dup := p.colours[col]; dup {
			return nil, fmt.Errorf("palette entry %q: colour %s is given twice", entry, col)
		}
		v := make([]float32, len(bits))
		for i, b := range bits {
			v[i] = float32(b - '0')
		}
		p.colours[col] = v
		p.order = append(p.order, col)
	}
	return p, nil
}

// parseColour reads #rrggbb.
func parseColour(s string) (rgb, bool) {
	hex, ok := strings.CutPrefix(strings.TrimSpace(s), "#")
	if !ok || len(hex) != 6 {
		return rgb{}, false
	}
	n, err := strconv.ParseUint(hex, 16, 32)
	if err != nil {
		return rgb{}, false
	}
	return rgb{uint8(n >> 16), uint8(n >> 8), uint8(n)}, true
}

func (c rgb) String() string { return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]) }

// String returns the palette as ParsePalette reads it.
func (p *Palette) String() string {
	if p.rgb {
		return "rgb"
	}
	entries := make([]string, len(p.order))
	for i, c := range p.order {
		bits := make([]byte, len(p.colours[c]))
		for j, v := range p.colours[c] {
			bits[j] = '0' + byte(v)
		}
		entries[i] = c.String() + "=" + string(bits)
	}
	return strings.Join(entries, ",")
}

// Channels returns how many leading channels the palette sets.
func (p *Palette) Channels() int {
	if p.rgb {
		return 3
	}
	n := 0
	for _, v := range p.colours {
		n = max(n, len(v))
	}
	return n
}

// set sets the leading channels of cell from the colour px, composed over
// black; threshold (0 to 1) splits the components of the palette rgb.
func (p *Palette) set(cell []float32, px color.Color, threshold float64) error {
	r, g, b, _ := px.RGBA()
	c := rgb{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
	if p.rgb {
		for i, v := range c {
			if float64(v)/255 >= threshold {
				cell[i] = 1
			}
		}
		return nil
	}
	bits, ok := p.colours[c]
	if !ok {
		known := make([]string, len(p.order))
		for i, k := range p.order {
			known[i] = k.String()
		}
		slices.Sort(known)
		return fmt.Errorf("colour %s is not in the palette (%s); a smoothed or resized picture has colours between them", c, strings.Join(known, " "))
	}
	copy(cell, bits)
	return nil
}
