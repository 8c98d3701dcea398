package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// State is one grid's state: Values holds Height x Width cells of Channels
// values each, laid out [Height, Width, Channels].
type State struct {
	Height, Width, Channels int
	// Batch is the number of states of a batch [Batch, H, W, C] (ReadNPY
	// with Spec.Batch, from a 4-dimensional array); 0 for one state [H, W,
	// C], what every other reader returns.
	Batch  int
	Values []float32
}

// Spec says what state a file must hold and how to read a picture.
type Spec struct {
	// Channels is the number of channels the state must have.
	Channels int
	// Soft accepts values anywhere in [0, 1]; otherwise every value must be
	// 0 or 1 (what the circuit runs on).
	Soft bool
	// MaxSide, when positive, refuses grids higher or wider than this
	// before their data is read.
	MaxSide int
	// Threshold is the grey level (0 black to 1 white) from which a
	// picture's pixel sets channel Channel to 1; DefaultThreshold is the
	// usual.
	Threshold float64
	// Channel is the channel a grey picture sets (0, the usual); the others
	// are 0.
	Channel int
	// Palette, when not nil, maps a picture's colours to channel bits
	// instead of the grey threshold.
	Palette *Palette
	// Batch accepts, besides [H, W, C], a 4-dimensional .npy array [B, H,
	// W, C] of B states (at most MaxBatch), returned with State.Batch = B.
	Batch bool
}

// MaxBatch bounds the states of a batch array: more is a mistake (an
// array of a rollout's steps, say) more often than a batch.
const MaxBatch = 4096

// LargestSide is the most cells a side of a state file the commands read
// (dlca eval's -init, an experiment's init.file and target.file): 4096, a
// 64 MiB picture at most, far above any grid this project trains.
const LargestSide = 4096

// DefaultThreshold splits grey levels in the middle: 128 of 255 and above
// are 1.
const DefaultThreshold = 0.5

// Load reads the state in the file at path, a .npy array or a .png
// picture (by its extension), as spec asks. Errors name the file.
func Load(path string, spec Spec) (*State, error) {
	read := ReadNPY
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
	case ".png":
		read = ReadPNG
	default:
		return nil, fmt.Errorf("%s: a state file must be a NumPy array (.npy) or a PNG picture (.png)", path)
	}
	f, err := os.Open(path)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %w", path, pe.Err) // the path once
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := read(f, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// checkSize returns an error unless an h x w grid is within spec's limits.
func (spec Spec) checkSize(h, w int) error {
	if h < 1 || w < 1 {
		return fmt.Errorf("the grid is %dx%d: it needs at least one cell", h, w)
	}
	if spec.MaxSide > 0 && (h > spec.MaxSide || w > spec.MaxSide) {
		return fmt.Errorf("the grid is %dx%d: at most %d cells a side are allowed", h, w, spec.MaxSide)
	}
	return nil
}

// checkValues returns an error naming the first value of s that spec does
// not allow: not 0 or 1, or outside [0, 1] when Soft.
func (spec Spec) checkValues(s *State) error {
	for i, v := range s.Values {
		ok := v == 0 || v == 1
		if spec.Soft {
			ok = v >= 0 && v <= 1 // false for NaN
		}
		if ok {
			continue
		}
		cell, c := i/s.Channels, i%s.Channels
		want := "0 or 1 (a hard run; values in [0, 1] need a soft one)"
		if spec.Soft {
			want = "in [0, 1]"
		}
		at := fmt.Sprintf("[%d, %d, %d]", cell/s.Width%s.Height, cell%s.Width, c)
		if s.Batch > 0 {
			at = fmt.Sprintf("[%d, %s", cell/(s.Width*s.Height), at[1:])
		}
		return fmt.Errorf("the value at %s is %v: every value must be %s", at, v, want)
	}
	return nil
}

// Centred returns s centred on an h x w grid of zeros, [h, w, Channels]:
// offset (h-Height)/2, (w-Width)/2, and cells that fall outside cut off.
// Experiment files place their pictures and state files so.
func (s *State) Centred(h, w int) []float32 {
	c := s.Channels
	out := make([]float32, h*w*c)
	oy, ox := (h-s.Height)/2, (w-s.Width)/2
	for y := range s.Height {
		for x := range s.Width {
			if ty, tx := y+oy, x+ox; ty >= 0 && ty < h && tx >= 0 && tx < w {
				copy(out[(ty*w+tx)*c:][:c], s.Values[(y*s.Width+x)*c:][:c])
			}
		}
	}
	return out
}
