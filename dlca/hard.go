package dlca

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
)

// Bits is a batch of hard states [Batch, Height, Width, Channels], stored as
// one bit plane per channel: bit i%64 of Planes[c][i/64] is channel c of cell
// i (cell index (b*Height + y)*Width + x). Bits beyond the last cell are 0.
type Bits struct {
	Batch, Height, Width, Channels int
	Planes                         [][]uint64
}

// NewBits returns an all-zero hard state. It panics on a non-positive size.
func NewBits(batch, h, w, c int) *Bits {
	if batch < 1 || h < 1 || w < 1 || c < 1 {
		panic(fmt.Sprintf("dlca: NewBits(%d, %d, %d, %d): sizes must be positive", batch, h, w, c))
	}
	s := &Bits{Batch: batch, Height: h, Width: w, Channels: c, Planes: make([][]uint64, c)}
	for i := range s.Planes {
		s.Planes[i] = make([]uint64, (s.Cells()+63)/64)
	}
	return s
}

// Cells returns Batch*Height*Width.
func (s *Bits) Cells() int { return s.Batch * s.Height * s.Width }

// Get returns channel c of cell (b, y, x) as 0 or 1.
func (s *Bits) Get(b, y, x, c int) uint8 {
	i := (b*s.Height+y)*s.Width + x
	return uint8(s.Planes[c][i/64] >> (i % 64) & 1)
}

// Set sets channel c of cell (b, y, x) to v&1.
func (s *Bits) Set(b, y, x, c int, v uint8) {
	i := (b*s.Height+y)*s.Width + x
	s.Planes[c][i/64] = s.Planes[c][i/64]&^(1<<(i%64)) | uint64(v&1)<<(i%64)
}

// Clone returns a deep copy.
func (s *Bits) Clone() *Bits {
	c := *s
	c.Planes = make([][]uint64, len(s.Planes))
	for i, p := range s.Planes {
		c.Planes[i] = append([]uint64(nil), p...)
	}
	return &c
}

// BitsOf thresholds a soft state [B, H, W, C] at 0.5.
func BitsOf(state *autograd.Tensor) *Bits {
	sh := state.Shape()
	if len(sh) != 4 {
		panic(fmt.Sprintf("dlca: BitsOf: state of shape %v, want [batch height width channels]", sh))
	}
	s := NewBits(sh[0], sh[1], sh[2], sh[3])
	for i := range s.Cells() {
		for c := range s.Channels {
			if state.At(i*s.Channels+c) > 0.5 {
				s.Planes[c][i/64] |= 1 << (i % 64)
			}
		}
	}
	return s
}

// Tensor returns the state as a [B, H, W, C] tensor of 0s and 1s.
func (s *Bits) Tensor(dtype autograd.DType) *autograd.Tensor {
	t := autograd.Zeros(dtype, s.Batch, s.Height, s.Width, s.Channels)
	for i := range s.Cells() {
		for c := range s.Channels {
			t.SetAt(i*s.Channels+c, float64(s.Planes[c][i/64]>>(i%64)&1))
		}
	}
	return t
}

// Circuit is a hard model ready to run: its netlist and the grid rules.
type Circuit struct {
	Netlist  *circuit.Netlist
	Boundary Boundary
	FireRate float64
}

// Circuit discretises the model (see Netlist).
func (m *Model) Circuit() *Circuit {
	return &Circuit{Netlist: m.Netlist(), Boundary: m.Config.Boundary, FireRate: m.Config.FireRate}
}

// HardOptions configure Circuit.Rollout; see RolloutOptions.
type HardOptions struct {
	Async bool
	Seed  uint64
	// After, if not nil, is called after every step t (1-based) and may
	// change the state in place (damage it, say).
	After func(t int, s *Bits)
}

// Rollout runs the circuit for steps steps from s and returns the final
// state; s is not modified. An asynchronous rollout draws the same fire
// masks as Model.Rollout with the same seed.
func (c *Circuit) Rollout(s *Bits, steps int, opt HardOptions) *Bits {
	if len(c.Netlist.Outputs) != s.Channels {
		panic(fmt.Sprintf("dlca: Circuit.Rollout: a %d-channel circuit on a %d-channel state", len(c.Netlist.Outputs), s.Channels))
	}
	cur, next := s.Clone(), s.Clone()
	var masks *FireMasks
	if opt.Async {
		masks = NewFireMasks(opt.Seed, c.FireRate)
	}
	for t := range steps {
		var fire []bool
		if masks != nil {
			fire = masks.Next(s.Cells())
		}
		c.Step(next, cur, fire)
		cur, next = next, cur
		if opt.After != nil {
			opt.After(t+1, cur)
		}
	}
	return cur
}

// Step writes into dst the state after one step from src (same shape, not
// the same Bits). fire, when not nil, lists per cell whether it updates.
// Words of 64 cells are evaluated in parallel.
func (c *Circuit) Step(dst, src *Bits, fire []bool) {
	g := Grid{Batch: src.Batch, Height: src.Height, Width: src.Width, Channels: src.Channels, Boundary: c.Boundary}
	words := len(src.Planes[0])
	workers := min(words, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for wk := range workers {
		wg.Go(func() {
			nl := c.Netlist
			in := make([]uint64, nl.NumInputs)
			vals := make([]uint64, nl.NumValues())
			out := make([]uint64, g.Channels)
			for w := wk * words / workers; w < (wk+1)*words/workers; w++ {
				c.stepWord(dst, src, g, w, fire, in, vals, out)
			}
		})
	}
	wg.Wait()
}

// stepWord computes word w (cells 64w .. 64w+63) of dst.
func (c *Circuit) stepWord(dst, src *Bits, g Grid, w int, fire []bool, in, vals, out []uint64) {
	clear(in)
	ch := g.Channels
	hw := g.Height * g.Width
	lo, hi := 64*w, min(64*(w+1), g.Cells())
	var valid, fired uint64
	for i := lo; i < hi; i++ {
		bit := uint64(1) << (i - lo)
		valid |= bit
		if fire == nil || fire[i] {
			fired |= bit
		}
		b, yx := i/hw, i%hw
		y, x := yx/g.Width, yx%g.Width
		for n := range NeighbourhoodSize {
			dy, dx := offset(n)
			s := g.source(y, x, dy, dx)
			if s < 0 {
				continue
			}
			s += b * hw
			for k := range ch {
				in[n*ch+k] |= (src.Planes[k][s/64] >> (s % 64) & 1) << (i - lo)
			}
		}
	}
	c.Netlist.EvalWordsScratch(out, in, vals)
	for k := range ch {
		dst.Planes[k][w] = (out[k]&fired | src.Planes[k][w]&^fired) & valid
	}
}
