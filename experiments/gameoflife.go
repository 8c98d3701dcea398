package experiments

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// Conway's Game of Life (PAPER.md section 3): one step of Life learned from
// random 3x3 periodic boards, on which every cell's neighbourhood is the
// whole board, so the 512 boards are the 512 neighbourhoods.
func init() {
	c := Defaults()
	c.Name = "gameoflife"
	c.Description = "Game of Life: 3x3 periodic boards, 1 channel, 1 step, 20 random boards per iteration"
	c.Height, c.Width, c.Channels, c.Boundary = 3, 3, 1, circuit.Periodic
	c.Kernels, c.KernelLayers = 16, []int{9, 8, 4, 2, 1}
	c.UpdateLayers = append(repeat(128, 17), 64, 32, 16, 8, 4, 2, 1)
	c.Batch, c.Steps, c.Iterations, c.LR = 20, 1, 3000, 0.05
	c.LossChannels = []int{0}
	c.Target.Kind = "gameoflife"
	c.Checks = []CheckSpec{{Kind: "all-neighbourhoods"}, {Kind: "life-grid", Size: 128, Steps: 300}}
	Register(c)
}

// LifeStep is the reference Game of Life, written without the circuit: it
// returns the board after one step of Conway's rule (B3/S23) on an h x w
// periodic board of cells 0 (dead) or 1 (alive), row-major.
func LifeStep(board []uint8, h, w int) []uint8 {
	next := make([]uint8, h*w)
	for y := range h {
		for x := range w {
			alive := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dy != 0 || dx != 0 {
						alive += int(board[(y+dy+h)%h*w+(x+dx+w)%w])
					}
				}
			}
			if alive == 3 || alive == 2 && board[y*w+x] == 1 {
				next[y*w+x] = 1
			}
		}
	}
	return next
}

// lifeTarget is the Game of Life's TargetOf: channel 0 of init after one
// step of Life.
func lifeTarget(init []float32, h, w, c int) []float32 {
	board := make([]uint8, h*w)
	for i := range board {
		if init[i*c] > 0.5 {
			board[i] = 1
		}
	}
	next := LifeStep(board, h, w)
	t := make([]float32, h*w)
	for i, v := range next {
		t[i] = float32(v)
	}
	return t
}

// lifeGridCheck is the Game of Life's check on a size x size periodic grid
// from random cells for steps steps (checkLifeGrid); with
// checkAllNeighbourhoods (every 3x3 neighbourhood) they are its checks.
func lifeGridCheck(size, steps int) Check {
	return Check{Name: "life-grid", Description: fmt.Sprintf("%dx%d periodic grid, %d steps from random cells, every step", size, size, steps),
		Side: size, Frames: lifeFrames + 2 + 2*8, // and two boards of a byte a cell, eight one-channel states each
		Run: func(e *Experiment, m *dlca.Model) CheckResult {
			return checkLifeGrid(m, size, steps, e.lifeGridInit(size), e.Stop)
		}}
}

// lifeGridInit returns the grid check's random cells: drawn by the
// notebook on the JAX stream, jax.random.randint(key, (size, size, 1), 0, 2)
// from the batch key after training (JAXDraw), else from the checks' PCG
// seed.
func (e *Experiment) lifeGridInit(size int) []float32 {
	if e.Model.RNG != dlca.StreamJAX {
		return RandomBits(rand.New(rand.NewPCG(checkSeed, 0)), size, size, 1)
	}
	return floats(e.jaxAfterTraining().batch.RandInt(size*size, 0, 2))
}

// allNeighbourhoodsCheck runs checkAllNeighbourhoods.
var allNeighbourhoodsCheck = Check{Name: "all-neighbourhoods", Description: "one step on each of the 512 3x3 periodic boards", Run: checkAllNeighbourhoods}

// checkAllNeighbourhoods runs one hard step on the 512 boards at once and
// counts the cells (of 512*9) that disagree with Life.
func checkAllNeighbourhoods(_ *Experiment, m *dlca.Model) CheckResult {
	const n = 1 << dlca.NeighbourhoodSize
	s := dlca.NewBits(n, 3, 3, 1)
	for b := range n {
		for i := range dlca.NeighbourhoodSize {
			s.Set(b, i/3, i%3, 0, uint8(b>>i&1))
		}
	}
	next := m.Circuit().Rollout(s, 1, dlca.HardOptions{})
	wrong, boards := 0, 0
	for b := range n {
		want := LifeStep(board(s, b), 3, 3)
		bad := false
		for i, v := range want {
			if next.Get(b, i/3, i%3, 0) != v {
				wrong++
				bad = true
			}
		}
		if bad {
			boards++
		}
	}
	return CheckResult{Name: "all-neighbourhoods", Passed: wrong == 0, Wrong: wrong,
		Detail: fmt.Sprintf("%d of %d boards (%d of %d cells) differ from Life", boards, n, wrong, n*9)}
}

// lifeFrames is the number of states of the grid check kept for its
// animation (enough to see gliders move, small enough to publish).
const lifeFrames = 20

// checkLifeGrid runs the circuit and LifeStep side by side on the periodic
// grid of cells cells (size x size, row-major). Wrong is the largest number
// of cells that differ after any step; the detail also names the first step
// at which they differed. The first lifeFrames states are kept as frames.
func checkLifeGrid(m *dlca.Model, size, steps int, cells []float32, stop func() bool) CheckResult {
	init := dlca.BitsOf(autograd.New(cells, 1, size, size, 1))
	ref := board(init, 0)
	frames := []dlca.Bits{*init.Clone()}
	firstBad, worst := 0, 0
	m.Circuit().Rollout(init, steps, dlca.HardOptions{Stop: stop, After: func(t int, s *dlca.Bits) {
		ref = LifeStep(ref, size, size)
		wrong := 0
		for i, v := range board(s, 0) {
			if v != ref[i] {
				wrong++
			}
		}
		worst = max(worst, wrong)
		if wrong > 0 && firstBad == 0 {
			firstBad = t
		}
		if t < lifeFrames {
			frames = append(frames, *s.Clone())
		}
	}})
	detail := fmt.Sprintf("%dx%d periodic, %d steps: every state equals Life's", size, size, steps)
	if firstBad > 0 {
		detail = fmt.Sprintf("%dx%d periodic, %d steps: first differs from Life at step %d, up to %d cells differ", size, size, steps, firstBad, worst)
	}
	return CheckResult{Name: "life-grid", Passed: firstBad == 0, Wrong: worst, Frames: frames, Detail: detail}
}

// board returns channel 0 of image b of s as a row-major slice of 0s and 1s.
func board(s *dlca.Bits, b int) []uint8 {
	out := make([]uint8, s.Height*s.Width)
	for y := range s.Height {
		for x := range s.Width {
			out[y*s.Width+x] = s.Get(b, y, x, 0)
		}
	}
	return out
}
