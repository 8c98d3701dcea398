package viewer

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/viewer/painter"
)

// InitFunc fills one initial state [h, w, c] (the form of
// experiments.Experiment.Init).
type InitFunc func(rng *rand.Rand, h, w, c int) []float32

// RandomInit draws every bit of every cell uniformly from {0, 1}.
func RandomInit(rng *rand.Rand, h, w, c int) []float32 {
	s := make([]float32, h*w*c)
	for i := range s {
		s[i] = float32(rng.IntN(2))
	}
	return s
}

// ModelSim runs a dlca model as a Simulator on a grid of any size: soft
// steps through the model itself, hard steps through its discretised circuit
// on bits. Asynchronous steps draw dlca.FireMasks from the seed.
type ModelSim struct {
	model   *dlca.Model
	circuit *dlca.Circuit // discretised on first use
	init    InitFunc
	rng     *rand.Rand
	fire    *dlca.FireMasks
	mode    Mode
	state   painter.Frame // [H, W, C], the one batch element shown
}

// NewModelSim returns a simulator of a copy of m on an h x w grid whose
// initial states come from init (RandomInit when nil), drawn from
// rand.NewPCG(seed, 0). It panics when the grid is empty.
//
// NOTE: the copy's logits do not require a gradient, so its soft steps record
// no graph, and training in another goroutine is untouched.
func NewModelSim(m *dlca.Model, h, w int, init InitFunc, seed uint64) *ModelSim {
	if h < 1 || w < 1 {
		panic(fmt.Sprintf("viewer: NewModelSim: %dx%d grid", h, w))
	}
	if init == nil {
		init = RandomInit
	}
	m = m.Clone()
	for _, p := range m.Params() {
		p.SetRequiresGrad(false)
	}
	s := &ModelSim{
		model: m,
		init:  init,
		rng:   rand.New(rand.NewPCG(seed, 0)),
		fire:  m.Config.FireMasks(seed),
		state: painter.NewFrame(h, w, m.Config.Channels),
	}
	return s
}

// Frame implements Simulator.
func (s *ModelSim) Frame() painter.Frame { return s.state }

// SetMode implements Simulator.
func (s *ModelSim) SetMode(m Mode) { s.mode = m }

// Reset implements Simulator.
func (s *ModelSim) Reset() {
	f := s.state
	init := s.init(s.rng, f.H, f.W, f.C)
	if len(init) != len(f.Cells) {
		panic(fmt.Sprintf("viewer: ModelSim.Reset: initial state of %d values for %dx%dx%d", len(init), f.H, f.W, f.C))
	}
	copy(f.Cells, init)
}

// Wipe implements Simulator.
func (s *ModelSim) Wipe(r image.Rectangle) {
	f := s.state
	r = r.Intersect(image.Rect(0, 0, f.W, f.H))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		clear(f.Cells[f.Index(y, r.Min.X, 0):f.Index(y, r.Max.X, 0)])
	}
}

// Step implements Simulator.
func (s *ModelSim) Step() {
	f := s.state
	var fire []bool
	if s.mode.Async {
		fire = s.fire.Next(f.H * f.W)
	}
	state := autograd.New(f.Cells, 1, f.H, f.W, f.C)
	if s.mode.Hard {
		if s.circuit == nil {
			s.circuit = s.model.Circuit()
		}
		src := dlca.BitsOf(state)
		dst := dlca.NewBits(1, f.H, f.W, f.C)
		s.circuit.Step(dst, src, fire)
		copy(f.Cells, dst.Tensor(autograd.Float32).Data32())
		return
	}
	copy(f.Cells, s.model.Step(state, fire).Data32())
}

// Training is a bptt training run for NewLive: its observers get one more,
// which hands the viewer each iteration's figures and, when asked, a
// simulator of the model. Train owns the Engine and closes it at the end.
type Training struct {
	Engine bptt.Engine
	Setup  bptt.Setup
	Run    bptt.Run
	// Sim builds the simulator of a model snapshot (the App resets it);
	// without it the App shows the figures and no grid.
	Sim func(m *dlca.Model) Simulator
	// Finish, if not nil, is called when bptt.Train returns, with the model
	// trained so far and Train's error (context.Canceled when the viewer
	// quit); what it returns is the run's outcome. It is where the model
	// and the checkpoint are saved, so that closing the window loses no
	// finished iteration. Without it a cancelled run ends without error.
	Finish func(m *dlca.Model, err error) error
}

// Train implements Trainer.
func (t *Training) Train(ctx context.Context, observe func(Progress)) error {
	run := t.Run
	run.Observers = append(run.Observers[:len(run.Observers):len(run.Observers)], func(e bptt.Event) {
		p := Progress{
			Iter: e.Iteration, Iters: e.Iterations,
			SoftLoss: e.SoftLoss, HardLoss: e.HardLoss, ActiveGates: e.ActiveGates,
			Elapsed: e.Elapsed,
		}
		if t.Sim != nil && e.Model != nil {
			p.Snapshot = func() Simulator { return t.Sim(e.Model) }
		}
		observe(p)
	})
	_, m, err := bptt.Train(ctx, t.Engine, t.Setup, run)
	switch {
	case t.Finish != nil:
		err = t.Finish(m, err)
	case errors.Is(err, context.Canceled):
		err = nil
	}
	if cerr := t.Engine.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("viewer: closing the training engine: %w", cerr))
	}
	return err
}
