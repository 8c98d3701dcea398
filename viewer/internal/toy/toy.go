// Package toy provides a stand-in automaton and training run for the
// viewer's tests: Conway's Game of Life on every channel of a periodic grid,
// and a "training" whose loss shrinks on a fixed schedule. They need nothing
// from packages dlca or bptt, so the viewer's tests pin down its own
// behaviour.
package toy

import (
	"context"
	"image"
	"math/rand/v2"
	"time"

	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/painter"
)

// Life is Conway's Game of Life on each channel, periodic boundary. Reset
// draws uniform random bits from its own seeded generator. In async mode a
// cell updates with probability 0.6; hard and soft are the same.
type Life struct {
	state painter.Frame
	next  painter.Frame
	rng   *rand.Rand
	mode  viewer.Mode
	Steps int // steps taken since construction
}

// NewLife returns an h x w grid with c channels; Reset must be called (the
// App does) to fill it.
func NewLife(h, w, c int, seed uint64) *Life {
	return &Life{
		state: painter.NewFrame(h, w, c),
		next:  painter.NewFrame(h, w, c),
		rng:   rand.New(rand.NewPCG(seed, 0)),
	}
}

// Frame implements viewer.Simulator.
func (l *Life) Frame() painter.Frame { return l.state }

// SetMode implements viewer.Simulator.
func (l *Life) SetMode(m viewer.Mode) { l.mode = m }

// Reset implements viewer.Simulator.
func (l *Life) Reset() {
	for i := range l.state.Cells {
		l.state.Cells[i] = float32(l.rng.IntN(2))
	}
}

// Wipe implements viewer.Simulator.
func (l *Life) Wipe(r image.Rectangle) {
	r = r.Intersect(image.Rect(0, 0, l.state.W, l.state.H))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			for c := 0; c < l.state.C; c++ {
				l.state.Cells[l.state.Index(y, x, c)] = 0
			}
		}
	}
}

// Step implements viewer.Simulator.
func (l *Life) Step() {
	s, h, w := l.state, l.state.H, l.state.W
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			fire := !l.mode.Async || l.rng.Float64() < 0.6
			for c := 0; c < s.C; c++ {
				alive := s.At(y, x, c) > 0.5
				if !fire {
					l.next.Cells[s.Index(y, x, c)] = s.At(y, x, c)
					continue
				}
				n := 0
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if (dy != 0 || dx != 0) && s.At((y+dy+h)%h, (x+dx+w)%w, c) > 0.5 {
							n++
						}
					}
				}
				v := float32(0)
				if n == 3 || (alive && n == 2) {
					v = 1
				}
				l.next.Cells[s.Index(y, x, c)] = v
			}
		}
	}
	l.state, l.next = l.next, l.state
	l.Steps++
}

// Trainer pretends to train for Iters iterations of Pause each: the soft
// loss is 100/iteration, the hard loss twice that, and snapshots are Life
// grids of the given size.
type Trainer struct {
	Iters   int
	Pause   time.Duration
	H, W, C int
	// Saved is set when Train returned, which the real trainer does after
	// saving its checkpoint.
	Saved chan int
}

// Train implements viewer.Trainer.
func (t *Trainer) Train(ctx context.Context, observe func(viewer.Progress)) error {
	start := time.Now()
	it := 0
	defer func() {
		if t.Saved != nil {
			t.Saved <- it
		}
	}()
	for it < t.Iters {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(t.Pause):
		}
		it++
		seed := uint64(it)
		observe(viewer.Progress{
			Iter: it, Iters: t.Iters,
			SoftLoss: 100 / float64(it), HardLoss: 200 / float64(it),
			ActiveGates: it,
			Elapsed:     time.Since(start),
			Snapshot:    func() viewer.Simulator { return NewLife(t.H, t.W, t.C, seed) },
		})
	}
	return nil
}
