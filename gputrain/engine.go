package gputrain

import (
	"errors"
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gpu"
)

// Options configure an Engine. The zero value captures every step and fuses
// its elementwise kernels.
type Options struct {
	// Eager runs every iteration's ops as they come, without capture (for
	// comparing with the captured step).
	Eager bool
	// Unfused captures without fusion (gpu.CaptureUnfused): replays equal
	// the eager iterations bit for bit.
	Unfused bool
}

// Counts is what one iteration sent to and read from the device
// (gpu.AutogradDevice.Counts, ReadBacks and Uploaded across Iterate).
type Counts struct {
	Dispatches, Submissions, ReadBacks int
	Writes                             int
	Bytes                              int64
	// ByShader is the captured gradient step's dispatches per shader
	// (gpu.Step.DispatchesByShader; nil for an eager engine).
	ByShader map[string]int
}

// Engine trains a copy of a setup's model on a gpu.AutogradDevice through
// autograd's graph, each iteration a replay of the captured step. It
// implements bptt.Engine, bptt.StraightThroughEngine and
// bptt.StatePenaltyEngine.
//
// An iteration reads back one value, the loss. The model's logits stay on
// the device; Model reads them back. A soft iteration is one captured step
// (one submission): rollout, loss, backward, clipping and AdamW. A
// straight-through iteration is two: the gradients, then, once the loss has
// been read and is not 0, the clipping and AdamW (an iteration whose circuit
// is right on its batch leaves the model as it is, as the CPU engine does).
// Switching straight-through or the penalty's weight captures again (once
// per switch). A NaN loss is reported (bptt.Train stops on it) after the
// soft step has already updated the logits; the CPU engine refuses the
// update instead.
type Engine struct {
	setup  bptt.Setup
	dev    *gpu.AutogradDevice
	opts   Options
	host   *dlca.Model // the setup's model, whose logits Model fills in
	m      *dlca.Model // the trained copy, logits on the device (float32)
	params []*autograd.Tensor
	opt    *optim.Adam

	straight bool
	penalty  float64
	steps    *steps // captured for mode
	mode     mode
	last     Counts
	// ownDevice: Close closes dev too (SelectEngine opened it).
	ownDevice bool
}

// mode is what a captured step has frozen in it.
type mode struct {
	straight bool
	penalty  float64
}

// steps are the runners of one mode: grad computes the loss and the
// gradients (and in a soft mode updates the model too); update, in a
// straight-through mode, clips and steps AdamW.
type steps struct {
	grad, update runner
}

// runner runs a step function: a gpu.Step, or eager.
type runner interface {
	Run(in ...*autograd.Tensor) ([]*autograd.Tensor, error)
	Release()
}

// eager runs a step function as it comes, on CPU inputs copied to the
// device (gpu.Step.Run's contract without capture).
type eager struct {
	dev *gpu.AutogradDevice
	fn  gpu.StepFunc
}

func (e eager) Run(in ...*autograd.Tensor) ([]*autograd.Tensor, error) {
	dev := make([]*autograd.Tensor, len(in))
	for i, t := range in {
		var err error
		if dev[i], err = t.To(e.dev); err != nil {
			return nil, err
		}
	}
	out, err := e.fn(dev)
	if err == nil {
		err = e.dev.Sync()
	}
	return out, err
}

func (eager) Release() {}

// New returns an engine training a copy of setup.Model on dev (which the
// caller keeps and closes after the engine). A float64 model trains in
// float32 (the GPU's type); Model returns it in its own dtype.
func New(dev *gpu.AutogradDevice, setup bptt.Setup, opts Options) (*Engine, error) {
	if err := setup.Validate(); err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, errors.New("gputrain: no device (open one with gpu.OpenAutograd)")
	}
	host := setup.Model.Clone()
	m := setup.Model.Clone()
	var params []*autograd.Tensor
	for _, l := range m.Layers() {
		logits, err := autograd.Cast(l.Logits.Detach(), autograd.Float32).To(dev)
		if err != nil {
			return nil, fmt.Errorf("gputrain: moving layer %s's logits to the GPU: %w", l.Name, err)
		}
		l.Logits = logits.SetRequiresGrad(true)
		params = append(params, l.Logits)
	}
	o := setup.Optimizer
	opt := optim.NewAdamW(params, optim.AdamWConfig{LR: o.LR, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, WeightDecay: o.WeightDecay})
	return &Engine{setup: setup, dev: dev, opts: opts, host: host, m: m, params: params, opt: opt}, nil
}

// SetStraightThrough implements bptt.StraightThroughEngine.
func (e *Engine) SetStraightThrough(on bool) { e.straight = on }

// SetStatePenalty implements bptt.StatePenaltyEngine.
func (e *Engine) SetStatePenalty(weight float64) { e.penalty = weight }

// Iterate implements bptt.Engine. It panics, as the CPU engine does, if b
// does not fit the setup.
func (e *Engine) Iterate(b *bptt.Batch) (float64, error) {
	d0, s0 := e.dev.Counts()
	r0 := e.dev.ReadBacks()
	w0, b0, _ := e.dev.Uploaded()
	in := e.inputs(b)
	loss, err := e.iterate(in)
	d1, s1 := e.dev.Counts()
	w1, b1, _ := e.dev.Uploaded()
	e.last = Counts{Dispatches: d1 - d0, Submissions: s1 - s0, ReadBacks: e.dev.ReadBacks() - r0, Writes: w1 - w0, Bytes: b1 - b0}
	if st, ok := e.gradStep(); ok {
		e.last.ByShader = st.DispatchesByShader(in...)
	}
	return loss, err
}

func (e *Engine) iterate(in []*autograd.Tensor) (float64, error) {
	st := e.stepsFor(mode{straight: e.straight, penalty: e.penalty})
	out, err := st.grad.Run(in...)
	if err != nil {
		return 0, err
	}
	l, err := out[0].To(autograd.CPU)
	if err != nil {
		return 0, err
	}
	loss := l.Item()
	if st.update != nil && loss != 0 {
		if _, err := st.update.Run(); err != nil {
			return 0, err
		}
	}
	return loss, nil
}

// LastCounts returns what the last Iterate dispatched, submitted, read back
// and uploaded.
func (e *Engine) LastCounts() Counts { return e.last }

// inputs returns the step's inputs for b: the initial states, the target
// and, asynchronous, the fire masks (dlca.Config.FireTensor of b.FireSeed,
// the masks the CPU engine draws).
func (e *Engine) inputs(b *bptt.Batch) []*autograd.Tensor {
	s := e.setup
	c := s.Model.Config.Channels
	cells := s.Batch * b.Height * b.Width
	if b.Height < 1 || b.Width < 1 || len(b.Init) != cells*c || len(b.Target) != cells*len(s.LossChannels) {
		panic(fmt.Sprintf("gputrain: Engine.Iterate: batch %dx%d with %d init and %d target values, want %d and %d", b.Height, b.Width, len(b.Init), len(b.Target), cells*c, cells*len(s.LossChannels)))
	}
	in := []*autograd.Tensor{
		autograd.New(append([]float32(nil), b.Init...), s.Batch, b.Height, b.Width, c),
		autograd.New(append([]float32(nil), b.Target...), s.Batch, b.Height, b.Width, len(s.LossChannels)),
	}
	if s.Async {
		in = append(in, s.Model.Config.FireTensor(autograd.Float32, b.FireSeed, s.Steps, s.Batch, b.Height, b.Width))
	}
	return in
}

// stepsFor returns the runners of md, capturing anew when the mode changed.
func (e *Engine) stepsFor(md mode) *steps {
	if e.steps != nil && e.mode == md {
		return e.steps
	}
	e.release()
	wrap := func(fn gpu.StepFunc) runner {
		switch {
		case e.opts.Eager:
			return eager{e.dev, fn}
		case e.opts.Unfused:
			return gpu.CaptureUnfused(e.dev, fn)
		}
		return gpu.Capture(e.dev, fn)
	}
	st := &steps{}
	st.grad = wrap(func(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
		e.opt.ZeroGrad()
		loss, total := e.loss(in, md)
		if err := total.Backward(); err != nil {
			return nil, err
		}
		if !md.straight {
			if err := e.update(); err != nil {
				return nil, err
			}
		}
		return []*autograd.Tensor{loss}, nil
	})
	if md.straight {
		st.update = wrap(func([]*autograd.Tensor) ([]*autograd.Tensor, error) { return nil, e.update() })
	}
	e.steps, e.mode = st, md
	return st
}

// update clips every gradient element to the setup's clip and steps AdamW.
func (e *Engine) update() error {
	optim.ClipGradValue(e.params, e.setup.Optimizer.Clip)
	return e.opt.Step()
}

// loss rolls in[0] out (in[2] the fire masks when asynchronous) and returns
// the paper's loss against in[1] and the loss to differentiate: the paper's
// plus the state penalty when md has one (bptt.StatePenalty of the states
// after steps 1 to T-1, as the CPU engine's penalisedLoss).
func (e *Engine) loss(in []*autograd.Tensor, md mode) (loss, total *autograd.Tensor) {
	s := e.setup
	opt := dlca.GraphOptions{StraightThrough: md.straight}
	if len(in) > 2 {
		opt.Fire = in[2]
	}
	var penalty *autograd.Tensor
	if md.penalty > 0 {
		opt.After = func(t int, state *autograd.Tensor) *autograd.Tensor {
			if t < s.Steps {
				p := bptt.StatePenalty(state)
				if penalty == nil {
					penalty = p
				} else {
					penalty = autograd.Add(penalty, p)
				}
			}
			return state
		}
	} else {
		opt.Recompute = s.Recompute
	}
	loss = bptt.Loss(e.m.GraphRolloutWith(in[0], s.Steps, opt), in[1], s.LossChannels)
	total = loss
	if penalty != nil {
		total = autograd.Add(loss, autograd.MulScalar(penalty, md.penalty))
	}
	return loss, total
}

// Model implements bptt.Engine: the setup's model with the logits trained
// so far, read back from the device in one read (every layer's logits
// concatenated there first).
func (e *Engine) Model() (*dlca.Model, error) {
	flat := make([]*autograd.Tensor, len(e.params))
	for i, p := range e.params {
		flat[i] = autograd.Reshape(p.Detach(), p.Len())
	}
	v, err := autograd.Cat(0, flat...).To(autograd.CPU)
	if err != nil {
		return nil, fmt.Errorf("gputrain: reading back the logits: %w", err)
	}
	m := e.host.Clone()
	off := 0
	for _, dst := range m.Params() {
		for j := range dst.Len() {
			dst.SetAt(j, v.At(off+j))
		}
		off += dst.Len()
	}
	return m, nil
}

func (e *Engine) release() {
	if e.steps == nil {
		return
	}
	e.steps.grad.Release()
	if e.steps.update != nil {
		e.steps.update.Release()
	}
	e.steps = nil
}

// Close implements bptt.Engine: it releases the captured steps; the device
// stays the caller's, except one SelectEngine opened, which it closes.
func (e *Engine) Close() error {
	e.release()
	err := e.dev.Err()
	if e.ownDevice {
		e.dev.Close()
	}
	return err
}

var (
	_ bptt.StraightThroughEngine = (*Engine)(nil)
	_ bptt.StatePenaltyEngine    = (*Engine)(nil)
)

// gradStep returns the captured gradient step, if the engine captures.
func (e *Engine) gradStep() (*gpu.Step, bool) {
	if e.steps == nil {
		return nil, false
	}
	st, ok := e.steps.grad.(*gpu.Step)
	return st, ok
}
