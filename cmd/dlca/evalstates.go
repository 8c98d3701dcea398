package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/state"
)

// maxSide bounds eval's grid: 4096 cells a side.
const maxSide = state.LargestSide

// grid is the size of eval's grid and how the command line gave it.
type grid struct {
	h, w     int
	by       string // "-size", "-height" (with -width) or "-init"
	init     string // the -init file
	explicit bool   // given by a flag, not the default
	// batch is the number of states of an -init batch [B, H, W, C] (one
	// rollout each); 0 for one state [H, W, C] or none.
	batch int
}

// states is the number of rollouts eval runs on g: the batch's, or one.
func (g grid) states() int { return max(g.batch, 1) }

// String names the flags that gave the grid, for messages.
func (g grid) String() string {
	switch g.by {
	case "-size":
		return fmt.Sprintf("-size %d", g.h)
	case "-height":
		return fmt.Sprintf("-height %d -width %d", g.h, g.w)
	}
	return "-init " + g.init
}

// gridOf reads eval's grid from -size (the square shorthand) or -height
// and -width (each 64 unless given); -size with either of the others is a
// conflict.
func gridOf(fs *flag.FlagSet, size, height, width int) (grid, error) {
	sizeSet, sidesSet := flagSet(fs, "size"), flagSet(fs, "height") || flagSet(fs, "width")
	g := grid{h: size, w: size, by: "-size", explicit: sizeSet}
	switch {
	case sizeSet && sidesSet:
		return grid{}, fmt.Errorf("-size is the shorthand for a square -height and -width: give -size or -height/-width, not both")
	case sidesSet:
		g = grid{h: height, w: width, by: "-height", explicit: true}
	}
	if g.h < 1 || g.h > maxSide || g.w < 1 || g.w > maxSide {
		return grid{}, fmt.Errorf("%s: each side must be in 1..%d", g, maxSide)
	}
	return g, nil
}

// loadInit reads eval's -init file as the initial state of a model with c
// channels: 0s and 1s, or values in [0, 1] for a soft run. Its size is the
// grid's; a size the flags also gave must agree.
func loadInit(path string, g grid, c int, soft bool, threshold float64, palette string) (grid, []float32, error) {
	spec := state.Spec{Channels: c, Soft: soft, MaxSide: maxSide, Threshold: threshold, Batch: true}
	if palette != "" {
		p, err := state.ParsePalette(palette)
		if err != nil {
			return grid{}, nil, fmt.Errorf("-palette: %w", err)
		}
		spec.Palette = p
	}
	s, err := state.Load(path, spec)
	if err != nil {
		return grid{}, nil, fmt.Errorf("-init %w", err)
	}
	if g.explicit && (s.Height != g.h || s.Width != g.w) {
		return grid{}, nil, fmt.Errorf("-init %s is %dx%d (height x width) but %s asks for %dx%d: drop %s, the state sets the size", path, s.Height, s.Width, g, g.h, g.w, g.by)
	}
	return grid{h: s.Height, w: s.Width, by: "-init", init: path, explicit: true, batch: s.Batch}, s.Values, nil
}

// smaller says, in a refusal, what grid would fit, given whether an h x w
// grid fits: the largest -size, or -height at the same -width, or a
// smaller -init state.
func (g grid) smaller(fits func(h, w int) bool) string {
	n := 0
	switch g.by {
	case "-size":
		if n = sort.Search(g.h, func(s int) bool { return !fits(s+1, s+1) }); n > 0 {
			return fmt.Sprintf("use -size %d or less", n)
		}
	case "-height":
		if n = sort.Search(g.h, func(h int) bool { return !fits(h+1, g.w) }); n > 0 {
			return fmt.Sprintf("use -height %d or less at -width %d", n, g.w)
		}
	default:
		return "start from a smaller state"
	}
	return "free some memory"
}

// statesWriter streams a rollout's states to an .npy array [T+1, H, W, C],
// or [T+1, B, H, W, C] for the rollouts of a batch of B states (an -init
// array [B, H, W, C], B = 1 included): uint8 0/1 for a hard rollout,
// float32 for a soft one. A rollout run
// twice (a soft GIF in colour collects its colours first) is written
// once: the states after the first T+1 are the same again and ignored.
type statesWriter struct {
	npy  *state.NPYWriter
	left int     // states still to write
	row  []uint8 // one row of a hard state
}

// newStatesWriter writes the header of steps+1 states of an h x w grid of
// c channels to w: batch boards each when batch > 0.
func newStatesWriter(w io.Writer, soft bool, steps, batch, h, wd, c int) (*statesWriter, error) {
	dtype := state.Uint8
	if soft {
		dtype = state.Float32
	}
	nw, err := state.NewNPYWriter(w, dtype, statesShape(steps, batch, h, wd, c)...)
	if err != nil {
		return nil, err
	}
	return &statesWriter{npy: nw, left: steps + 1, row: make([]uint8, wd*c)}, nil
}

// statesShape is the shape of an -states array: [T+1, H, W, C], or
// [T+1, B, H, W, C] for a batch of B states.
func statesShape(steps, batch, h, w, c int) []int {
	if batch > 0 {
		return []int{steps + 1, batch, h, w, c}
	}
	return []int{steps + 1, h, w, c}
}

// statesBytes is the size of the data of an -states file.
func statesBytes(soft bool, steps, batch, h, w, c int) int64 {
	// In float64, so that absurd steps saturate instead of wrapping.
	n := (float64(steps) + 1) * float64(max(batch, 1)) * float64(h) * float64(w) * float64(c)
	if soft {
		n *= 4
	}
	return int64(min(n, math.MaxInt64/2))
}

// hard writes every board of a hard state, a row at a time.
func (s *statesWriter) hard(b *dlca.Bits) error {
	if s.left == 0 {
		return nil
	}
	s.left--
	for _, g := range b.Boards {
		for y := range g.H {
			for x := range g.W {
				for c := range g.C {
					s.row[x*g.C+c] = g.Get(y, x, c)
				}
			}
			if err := s.npy.WriteUint8(s.row); err != nil {
				return err
			}
		}
	}
	return nil
}

// soft writes a soft state [B, H, W, C].
func (s *statesWriter) soft(t *autograd.Tensor) error {
	if s.left == 0 {
		return nil
	}
	s.left--
	v := t.Data32()
	if v == nil { // a float64 model
		v = make([]float32, t.Len())
		for i := range v {
			v[i] = float32(t.At(i))
		}
	}
	return s.npy.WriteFloat32(v)
}

// close returns an error unless every state was written.
func (s *statesWriter) close() error { return s.npy.Close() }
