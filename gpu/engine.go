package gpu

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// Options configure NewEngine. The zero value opens the best adapter and
// reports nothing.
type Options struct {
	// Device to run on; nil opens one with Open (and Close closes it).
	Device *Device
	// MemoryLimit, if positive, is the most device memory in bytes the
	// engine may plan for; WebGPU does not report a device's memory size,
	// so without it only the per-buffer limits are checked before starting.
	MemoryLimit int64
	// Log, if not nil, receives the chosen device and the memory budget.
	Log io.Writer
}

// Engine trains a DiffLogic CA on the device: it implements bptt.Engine,
// bptt.StatePenaltyEngine (penalty.go) and bptt.StraightThroughEngine
// (straight.go). Every activation of the rollout stays on the device
// (cached-activation BPTT); an iteration is two submissions, the forward
// phase (coefficients, T steps, loss) and the backward phase (T steps back,
// logit gradients, then the step: clipping, AdamW), and only the loss comes
// back to the host. A straight-through iteration submits the step apart,
// once the loss is known (straight.go). After a failed readback (a lost
// device) every later call returns that error (see read).
type Engine struct {
	setup     bptt.Setup
	opts      Options
	d         *Device
	ownDevice bool
	m         *dlca.Model // the trained copy; its logits are refreshed by Model
	layers    []*Layer    // dlca's Layers order
	g         *Gates
	opt       *AdamW
	hard      *Buffer  // [gates][4], the straight-through forward pass's coefficients
	r         *rollout // buffers and programs for the current grid shape
	penalty   float64  // the state penalty's weight (SetStatePenalty), 0 for none
	straight  bool     // straight-through (SetStraightThrough)
	err       error    // the first failed readback's (see read)
}

var _ bptt.Engine = (*Engine)(nil)

// NewEngine builds a GPU engine training a copy of setup.Model, with its
// buffers planned for the model's training grid (Config.Height x Width).
// It reports the memory budget to opts.Log and returns an error, with a
// suggestion, when the budget exceeds the device's limits.
func NewEngine(setup bptt.Setup, opts Options) (*Engine, error) {
	if err := setup.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{setup: setup, opts: opts, d: opts.Device, m: setup.Model.Clone()}
	if e.d == nil {
		d, err := Open()
		if err != nil {
			return nil, err
		}
		e.d, e.ownDevice = d, true
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "gpu: %s\n", e.d)
		if e.d.IsSoftware() {
			fmt.Fprintln(opts.Log, "gpu: this is a software (CPU) adapter: results are correct but slow; its timings say nothing about a GPU")
		}
		if setup.Recompute > 0 {
			fmt.Fprintln(opts.Log, "gpu: recomputation is a CPU-engine option; the GPU engine keeps every step's activations (same gradients)")
		}
	}
	cfg := e.m.Config
	if err := e.shape(cfg.Height, cfg.Width); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// numGates returns the number of gates of all layers (every group).
func numGates(m *dlca.Model) int {
	n := 0
	for _, l := range m.Layers() {
		n += l.Groups * l.Out
	}
	return n
}

// allocModel uploads the wiring and logits and allocates the optimiser.
func (e *Engine) allocModel() error {
	var err error
	if e.g, err = e.d.NewGates(numGates(e.m)); err != nil {
		return err
	}
	base := 0
	for _, l := range e.m.Layers() {
		dl, err := e.d.NewLayer(l.Name, l.In, l.Groups, l.Wiring, base)
		if err != nil {
			return err
		}
		e.layers = append(e.layers, dl)
		base += l.Groups * l.Out
	}
	if e.hard, err = e.d.NewBuffer("gates hard coeffs", 4*e.g.N); err != nil {
		return err
	}
	if err := Write(e.d, e.g.Logits, e.hostLogits()); err != nil {
		return err
	}
	o := e.setup.Optimizer
	e.opt, err = e.d.NewAdamW(16*e.g.N, AdamWConfig{LR: o.LR, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, WeightDecay: o.WeightDecay})
	return err
}

// hostLogits flattens the model's logits in Layers order, as float32.
func (e *Engine) hostLogits() []float32 {
	var out []float32
	for _, l := range e.m.Layers() {
		for i := range l.Logits.Len() {
			out = append(out, float32(l.Logits.At(i)))
		}
	}
	return out
}

// modelBudget plans the buffers that do not depend on the grid.
func (e *Engine) modelBudget(b *Budget) {
	n := numGates(e.m)
	for _, s := range []struct {
		label string
		per   int
	}{{"gates logits", 16}, {"gates probs", 16}, {"gates coeffs", 4}, {"gates hard coeffs", 4}, {"gates sums", 4}, {"gates grads", 16}, {"adamw m", 16}, {"adamw v", 16}} {
		b.add(s.label, n*s.per)
	}
	for _, l := range e.m.Layers() {
		b.add("wiring "+l.Name, 2*l.Out)
		b.add("wiring "+l.Name+" reverse start", l.In+1)
		b.add("wiring "+l.Name+" reverse slots", 2*l.Out)
	}
}

// shape makes the engine ready for grids of h x w: it plans and checks the
// budget, then allocates (once) the model and (per shape) the rollout.
func (e *Engine) shape(h, w int) error {
	if e.r != nil && e.r.grid.Height == h && e.r.grid.Width == w {
		return nil
	}
	cfg := e.m.Config
	grid := Grid{Batch: e.setup.Batch, Height: h, Width: w, Channels: cfg.Channels, Boundary: cfg.Boundary}
	r, plan := e.planRollout(grid)
	var b Budget
	e.modelBudget(&b)
	for _, p := range plan {
		b.add(p.label, p.n)
	}
	if e.opts.Log != nil {
		b.Report(e.opts.Log)
	}
	if err := b.Check(e.d, e.opts.MemoryLimit); err != nil {
		return err
	}
	if e.g == nil {
		if err := e.allocModel(); err != nil {
			return fmt.Errorf("%w (%s)", err, b)
		}
	}
	if e.r != nil {
		e.r.release()
		e.r = nil
	}
	r.budget = b
	for _, p := range plan {
		buf, err := e.d.NewBuffer(p.label, p.n)
		if err != nil {
			r.release()
			return fmt.Errorf("%w (%s)", err, b)
		}
		r.bufs = append(r.bufs, buf)
		*p.dst = buf
	}
	e.r = r
	if err := e.record(); err != nil {
		return err
	}
	return e.initFire()
}

// Budget returns the memory budget of the current configuration.
func (e *Engine) Budget() Budget { return e.r.budget }

// Device returns the device the engine runs on.
func (e *Engine) Device() *Device { return e.d }

// Iterate implements bptt.Engine: one training iteration on b, returning
// the loss before the update. It panics if b does not fit the setup.
func (e *Engine) Iterate(b *bptt.Batch) (float64, error) {
	c, nl := e.m.Config.Channels, len(e.setup.LossChannels)
	cells := e.setup.Batch * b.Height * b.Width
	if b.Height < 1 || b.Width < 1 || len(b.Init) != cells*c || len(b.Target) != cells*nl {
		panic(fmt.Sprintf("gpu: Engine.Iterate: batch %dx%d with %d init and %d target values, want %d and %d",
			b.Height, b.Width, len(b.Init), len(b.Target), cells*c, cells*nl))
	}
	if e.err != nil { // a lost device (see read): run nothing
		return 0, e.err
	}
	if err := e.shape(b.Height, b.Width); err != nil {
		return 0, err
	}
	if err := e.prepareStraight(); err != nil { // straight.go
		return 0, err
	}
	if err := e.preparePenalty(); err != nil { // penalty.go
		return 0, err
	}
	r := e.r
	target := make([]float32, cells*c)
	for cell := range cells {
		for j, ch := range e.setup.LossChannels {
			target[cell*c+ch] = b.Target[cell*nl+j]
		}
	}
	errs := []error{Write(e.d, r.state[0], b.Init), Write(e.d, r.target, target)}
	if e.setup.Async {
		masks := e.m.Config.FireMasks(b.FireSeed)
		for t := range e.setup.Steps {
			errs = append(errs, Write(e.d, r.fire[t], fireValues(masks.Next(cells))))
		}
	}
	errs = append(errs, r.forward.Run())
	if e.straight {
		errs = append(errs, r.backward.Run()) // the step waits for the loss
	} else {
		errs = append(errs, e.opt.Advance(e.d), runTogether(r.backward, r.step))
	}
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	loss, err := e.read(r.loss, 1)
	if err != nil {
		return 0, err
	}
	if l := float64(loss[0]); math.IsNaN(l) || math.IsInf(l, 0) {
		return 0, fmt.Errorf("gpu: loss is %v: training diverged (try a smaller learning rate)", l)
	}
	if e.straight {
		if err := e.stepUnlessRight(loss[0]); err != nil { // straight.go
			return 0, err
		}
	}
	return float64(loss[0]), nil
}

// read reads the first n values of b back. After a failed readback the
// engine's state is unknown (the device may have been lost): it keeps the
// error and returns it from every later Iterate and readback, so that
// training stops instead of going on, or handing out logits, from a device
// that no longer answers. Resume from the last checkpoint instead.
func (e *Engine) read(b *Buffer, n int) ([]float32, error) {
	if e.err != nil {
		return nil, e.err
	}
	v, err := Read[float32](e.d, b, n)
	if err != nil {
		e.err = err
	}
	return v, err
}

// Dispatches returns the kernel dispatches and command submissions of one
// Iterate at the current grid shape: the forward program, then the
// backward and the step programs, two submissions; a straight-through
// iteration adds gate_hard_coeffs and submits the step apart, three. The
// counts are those of an iteration that steps (a straight-through one of
// loss 0 submits and dispatches no step), with the programs of the last
// Iterate: the state penalty's T-1 dispatches and straight-through's one
// count once an Iterate has added them.
func (e *Engine) Dispatches() (dispatches, submissions int) {
	if e.r == nil {
		return 0, 0
	}
	dispatches = e.r.forward.Dispatches() + e.r.backward.Dispatches() + e.r.step.Dispatches()
	if e.r.straight {
		return dispatches, 3
	}
	return dispatches, 2
}

func fireValues(fire []bool) []float32 {
	v := make([]float32, len(fire))
	for i, f := range fire {
		if f {
			v[i] = 1
		}
	}
	return v
}

// initFire fills the fire masks of a synchronous rollout with ones.
func (e *Engine) initFire() error {
	if e.setup.Async {
		return nil
	}
	ones := make([]float32, e.r.grid.Cells())
	for i := range ones {
		ones[i] = 1
	}
	for _, f := range e.r.fire {
		if err := Write(e.d, f, ones); err != nil {
			return err
		}
	}
	return nil
}

// Model implements bptt.Engine: a copy of the model with the logits read
// back from the device.
func (e *Engine) Model() (*dlca.Model, error) {
	logits, err := e.read(e.g.Logits, 16*e.g.N)
	if err != nil {
		return nil, err
	}
	for _, l := range e.m.Layers() {
		for i := range l.Logits.Len() {
			l.Logits.SetAt(i, float64(logits[i]))
		}
		logits = logits[l.Logits.Len():]
	}
	return e.m.Clone(), nil
}

// LogitGrads returns the gradient of the last iteration's loss with respect
// to every layer's logits, clipped, in dlca's Layers order (for tests and
// diagnostics; training never reads it back).
func (e *Engine) LogitGrads() ([][]float32, error) {
	all, err := e.read(e.g.Grads, 16*e.g.N)
	if err != nil {
		return nil, err
	}
	var out [][]float32
	for _, l := range e.m.Layers() {
		n := l.Logits.Len()
		out = append(out, all[:n])
		all = all[n:]
	}
	return out, nil
}

// Close implements bptt.Engine.
func (e *Engine) Close() error {
	if e.r != nil {
		e.r.release()
		e.r = nil
	}
	for _, l := range e.layers {
		l.Release()
	}
	e.layers = nil
	if e.hard != nil {
		e.hard.Release()
		e.hard = nil
	}
	if e.g != nil {
		e.g.Release()
		e.g = nil
	}
	if e.opt != nil {
		e.opt.Release()
		e.opt = nil
	}
	if e.ownDevice && e.d != nil {
		e.d.Close()
		e.d = nil
	}
	return nil
}

// layerDims returns the gates.Dims of Layers()[i] on grid g: perception
// layers run on rows (cell, channel) with K groups, layer 0 reading the
// shared neighbourhood; update layers on rows (cell).
func (e *Engine) layerDims(i int, g Grid) gates.Dims {
	l := e.m.Layers()[i]
	if i < len(e.m.Perception) {
		return gates.Dims{Rows: g.Len(), Groups: l.Groups, In: l.In, Out: l.Out, SharedInput: i == 0}
	}
	return gates.Dims{Rows: g.Cells(), Groups: 1, In: l.In, Out: l.Out}
}
