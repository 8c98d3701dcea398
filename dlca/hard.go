package dlca

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
)

// Bits is a batch of hard states [Batch, Height, Width, Channels]: one
// bit-packed circuit.Grid per batch element, the form circuit.Sim runs.
type Bits struct {
	Batch, Height, Width, Channels int
	Boards                         []*circuit.Grid // [Batch]
}

// NewBits returns an all-zero hard state. It panics on a non-positive size.
func NewBits(batch, h, w, c int) *Bits {
	if batch < 1 || h < 1 || w < 1 || c < 1 {
		panic(fmt.Sprintf("dlca: NewBits(%d, %d, %d, %d): sizes must be positive", batch, h, w, c))
	}
	s := &Bits{Batch: batch, Height: h, Width: w, Channels: c, Boards: make([]*circuit.Grid, batch)}
	for b := range s.Boards {
		s.Boards[b] = circuit.NewGrid(h, w, c)
	}
	return s
}

// Cells returns Batch*Height*Width.
func (s *Bits) Cells() int { return s.Batch * s.Height * s.Width }

// Get returns channel c of cell (b, y, x) as 0 or 1.
func (s *Bits) Get(b, y, x, c int) uint8 { return s.Boards[b].Get(y, x, c) }

// Set sets channel c of cell (b, y, x) to v&1.
func (s *Bits) Set(b, y, x, c int, v uint8) { s.Boards[b].Set(y, x, c, v) }

// Cell returns channel c of cell i, counted as in a state tensor:
// i = (b*Height + y)*Width + x.
func (s *Bits) Cell(i, c int) uint8 {
	yx := i % (s.Height * s.Width)
	return s.Boards[i/(s.Height*s.Width)].Get(yx/s.Width, yx%s.Width, c)
}

// Clone returns a deep copy.
func (s *Bits) Clone() *Bits {
	c := *s
	c.Boards = make([]*circuit.Grid, len(s.Boards))
	for b, g := range s.Boards {
		c.Boards[b] = g.Clone()
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
	i := 0
	for _, g := range s.Boards {
		for y := range s.Height {
			for x := range s.Width {
				for c := range s.Channels {
					if state.At(i) > 0.5 {
						g.Set(y, x, c, 1)
					}
					i++
				}
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
			t.SetAt(i*s.Channels+c, float64(s.Cell(i, c)))
		}
	}
	return t
}

// Circuit is a hard model ready to run: its netlist compiled for
// circuit.Sim with the model's boundary, and the model's fire rate. The
// simulator keeps scratch space, so a Circuit is for one goroutine at a
// time; each call of Model.Circuit returns a new one.
type Circuit struct {
	Netlist  *circuit.Netlist // the rule the simulator runs; do not modify
	FireRate float64
	RNG      string // the model's random stream (Config.RNG): it draws the fire masks
	sim      *circuit.Sim
	fire     *circuit.Grid // one board's fire mask, reused between steps
}

// Circuit discretises the model (see Netlist) and compiles the result.
func (m *Model) Circuit() *Circuit {
	nl := m.Netlist()
	return &Circuit{Netlist: nl, FireRate: m.Config.FireRate, RNG: m.Config.RNG, sim: circuit.NewSim(nl, m.Config.Boundary, 0)}
}

// HardOptions configure Circuit.Rollout; see RolloutOptions.
type HardOptions struct {
	Async bool
	Seed  uint64
	// After, if not nil, is called after every step t (1-based) and may
	// change the state in place (damage it, say).
	After func(t int, s *Bits)
	// Stop, if not nil, is asked before every step; when it returns true
	// the rollout ends there and returns the state so far (a command
	// stopped by Ctrl-C).
	Stop func() bool
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
		masks = fireMasks(c.RNG, opt.Seed, c.FireRate)
	}
	for t := range steps {
		if opt.Stop != nil && opt.Stop() {
			break
		}
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
// the same Bits), board by board on circuit.Sim. fire, when not nil, lists
// per cell (in Cell's order) whether it updates.
func (c *Circuit) Step(dst, src *Bits, fire []bool) {
	if dst.Batch != src.Batch || len(src.Boards) != src.Batch {
		panic(fmt.Sprintf("dlca: Circuit.Step: %d boards into %d", src.Batch, dst.Batch))
	}
	if fire != nil && len(fire) != src.Cells() {
		panic(fmt.Sprintf("dlca: Circuit.Step: %d fire flags for %d cells", len(fire), src.Cells()))
	}
	hw := src.Height * src.Width
	for b, g := range src.Boards {
		if fire == nil {
			c.sim.Step(dst.Boards[b], g)
			continue
		}
		if c.fire == nil || c.fire.H != src.Height || c.fire.W != src.Width {
			c.fire = circuit.NewGrid(src.Height, src.Width, 1)
		}
		clear(c.fire.Planes[0])
		for i, f := range fire[b*hw : (b+1)*hw] {
			if f {
				c.fire.Set(i/src.Width, i%src.Width, 0, 1)
			}
		}
		c.sim.StepFire(dst.Boards[b], g, c.fire)
	}
}
