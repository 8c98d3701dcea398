package bptt

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/dlca"
)

// CPUEngine is the engine that trains on the CPU, through autograd and dlca's
// fused step op (whose kernels are the gates package's).
type CPUEngine struct {
	setup   Setup
	m       *dlca.Model
	opt     *optim.Adam
	ws      dlca.Workspace
	params  []*autograd.Tensor
	workers *workerChoice
	// straight makes the rollouts straight-through (SetStraightThrough).
	straight bool
	// statePenalty is the weight of the state penalty (SetStatePenalty,
	// penalty.go), 0 for none.
	statePenalty float64
}

// SetStraightThrough implements StraightThroughEngine.
func (e *CPUEngine) SetStraightThrough(on bool) { e.straight = on }

// NewCPU returns a CPU engine training a copy of setup.Model.
func NewCPU(setup Setup) (*CPUEngine, error) {
	if err := setup.Validate(); err != nil {
		return nil, err
	}
	m := setup.Model.Clone()
	o := setup.Optimizer
	params := m.Params()
	for _, p := range params {
		p.SetRequiresGrad(true)
	}
	return &CPUEngine{
		setup:   setup,
		m:       m,
		params:  params,
		workers: newWorkerChoice(setup.Workers),
		opt:     optim.NewAdamW(params, optim.AdamWConfig{LR: o.LR, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, WeightDecay: o.WeightDecay}),
	}, nil
}

// Iterate implements Engine. It panics if b does not fit the setup.
func (e *CPUEngine) Iterate(b *Batch) (float64, error) {
	loss, _, err := e.iterate(b, false)
	return loss, err
}

// IterateGradients implements GradientEngine. It panics if b does not fit
// the setup.
func (e *CPUEngine) IterateGradients(b *Batch) (float64, []*autograd.Tensor, error) {
	return e.iterate(b, true)
}

// iterate is one iteration; with keep it returns a copy of the logits'
// gradients as they were before clipping.
func (e *CPUEngine) iterate(b *Batch, keep bool) (float64, []*autograd.Tensor, error) {
	e.setup.check("CPUEngine.Iterate", b)
	c := e.m.Config.Channels
	init := toTensor(e.m.DType(), b.Init, e.setup.Batch, b.Height, b.Width, c)
	target := toTensor(e.m.DType(), b.Target, e.setup.Batch, b.Height, b.Width, len(e.setup.LossChannels))
	workers, done := e.workers.next()
	var loss *autograd.Tensor
	var err error
	if e.statePenalty > 0 {
		loss, err = e.penalisedLoss(init, target, b.FireSeed, workers) // penalty.go
	} else if k := e.setup.Segment(b.Height, b.Width); k > 0 {
		loss, err = e.recomputedLoss(init, target, b.FireSeed, k, workers) // recompute.go
	} else {
		final := e.m.Rollout(init, e.setup.Steps, dlca.RolloutOptions{Async: e.setup.Async, Seed: b.FireSeed, Workspace: &e.ws, Workers: workers, StraightThrough: e.straight})
		loss = Loss(final, target, e.setup.LossChannels)
		err = loss.Backward()
	}
	if err != nil {
		return 0, nil, err
	}
	if err := checkIteration(e.m, loss.Item()); err != nil { // guard.go: no step on a NaN
		return 0, nil, err
	}
	// NOTE: a straight-through loss of 0 means the circuit is right on this
	// batch: its gradient is 0 and the model is left as it is, where
	// AdamW's momentum and weight decay would otherwise move a right
	// circuit.
	skip := e.straight && loss.Item() == 0
	var grads []*autograd.Tensor
	if keep {
		grads = make([]*autograd.Tensor, len(e.params))
		for i, p := range e.params {
			if g := p.Grad(); g != nil {
				grads[i] = g.Clone()
			} else { // the loss does not reach the layer at all
				grads[i] = autograd.ZerosLike(p)
			}
		}
	}
	if !skip {
		optim.ClipGradValue(e.params, e.setup.Optimizer.Clip)
		if err := e.opt.Step(); err != nil {
			return 0, nil, err
		}
	}
	e.opt.ZeroGrad()
	done()
	return loss.Item(), grads, nil
}

// Workers returns the number of goroutines a step runs on: Setup.Workers
// if it was set, otherwise the engine's choice, 0 until its first
// iterations have made it (see Setup.Workers).
func (e *CPUEngine) Workers() int { return e.workers.chosen() }

// Model implements Engine.
func (e *CPUEngine) Model() (*dlca.Model, error) { return e.m.Clone(), nil }

// Close implements Engine; the CPU engine holds nothing to release.
func (e *CPUEngine) Close() error { return nil }

// Loss is the paper's loss: the sum over the batch of the squared errors
// between the final state's loss channels and target [B, H, W, len(channels)].
func Loss(final, target *autograd.Tensor, channels []int) *autograd.Tensor {
	return autograd.Sum(autograd.Square(autograd.Sub(autograd.IndexSelect(final, 3, channels), target)), false)
}

func toTensor(dtype autograd.DType, v []float32, shape ...int) *autograd.Tensor {
	if dtype == autograd.Float32 {
		return autograd.New(append([]float32(nil), v...), shape...)
	}
	d := make([]float64, len(v))
	for i, x := range v {
		d[i] = float64(x)
	}
	return autograd.New64(d, shape...)
}
