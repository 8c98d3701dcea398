package experiments

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// The paper's own targets, read from the masks in targets/ (see
// targets/README.md for where they come from).
var (
	//go:embed targets/lizard.txt
	lizardText string
	//go:embed targets/colour-g.txt
	colourGText string
)

// The legends of the mask files: the channels each character sets.
var (
	lizardLegend  = map[byte][]int{'.': nil, '#': {0}}
	colourGLegend = map[byte][]int{'.': nil, 'R': {0}, 'Y': {0, 1}, 'G': {1}, 'B': {2}}
)

// paperLizard and paperColourG parse the files once.
var (
	paperLizard  = sync.OnceValue(func() []float32 { return mustMask("lizard.txt", lizardText, LizardSize, 1, lizardLegend) })
	paperColourG = sync.OnceValue(func() []float32 { return mustMask("colour-g.txt", colourGText, GSize, 3, colourGLegend) })
)

// Lizard is the lizard experiment's target: the paper's 20x20 lizard mask
// (1 inside, 0 outside) centred on an h x w grid.
func Lizard(h, w int) []float32 { return centre(paperLizard(), LizardSize, 1, h, w) }

// ColourG is the coloured G experiment's target: the paper's 16x16 G, three
// channels per cell (red or yellow, green or yellow, blue), centred on an h x
// w grid, zero outside it.
func ColourG(h, w int) []float32 { return centre(paperColourG(), GSize, 3, h, w) }

// mustMask parses a side x side mask file into [side, side, channels]
// values; the file is part of the program, so a bad one panics.
func mustMask(name, text string, side, channels int, legend map[byte][]int) []float32 {
	m, err := parseMask(text, side, channels, legend)
	if err != nil {
		panic(fmt.Sprintf("experiments: targets/%s: %v", name, err))
	}
	return m
}

// parseMask reads side lines of side characters, each character setting the
// channels legend gives it.
func parseMask(text string, side, channels int, legend map[byte][]int) ([]float32, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) != side {
		return nil, fmt.Errorf("%d lines, want %d", len(lines), side)
	}
	m := make([]float32, side*side*channels)
	for y, line := range lines {
		if len(line) != side {
			return nil, fmt.Errorf("line %d has %d characters, want %d", y+1, len(line), side)
		}
		for x := range side {
			chans, ok := legend[line[x]]
			if !ok {
				return nil, fmt.Errorf("line %d, column %d: unknown character %q", y+1, x+1, line[x])
			}
			for _, k := range chans {
				m[(y*side+x)*channels+k] = 1
			}
		}
	}
	return m, nil
}

// centre places a side x side picture of channels values per cell in the
// middle of an h x w grid (offset (h-side)/2, (w-side)/2), cropping what
// falls outside.
func centre(pic []float32, side, channels, h, w int) []float32 {
	t := make([]float32, h*w*channels)
	oy, ox := (h-side)/2, (w-side)/2
	for y := range side {
		for x := range side {
			ty, tx := y+oy, x+ox
			if ty < 0 || ty >= h || tx < 0 || tx >= w {
				continue
			}
			copy(t[(ty*w+tx)*channels:(ty*w+tx+1)*channels], pic[(y*side+x)*channels:])
		}
	}
	return t
}
