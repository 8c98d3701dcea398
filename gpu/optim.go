package gpu

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd/optim"
)

// AdamWConfig is the CPU optimiser's config, so both engines read the same
// hyperparameters.
type AdamWConfig = optim.AdamWConfig

// AdamW is the optimiser state of n parameters on the device: the moment
// buffers and the per-step factors that adamw.wgsl reads. It serves one
// parameter set that has a gradient at every step, so one step count T is
// every parameter's (optim.Adam's per-parameter counts, all equal).
type AdamW struct {
	Config AdamWConfig
	N      int
	T      int // steps taken
	m, v   *Buffer
	step   *Buffer // [4]: 1 - lr*wd, lr/(1-beta1^t), 1/sqrt(1-beta2^t), unused
}

// NewAdamW allocates zeroed moments for n parameters. cfg is used as given,
// as optim.NewAdamW does (zero is zero; start from optim.DefaultAdamW). It
// returns an error for AMSGrad, which adamw.wgsl does not do.
func (d *Device) NewAdamW(n int, cfg AdamWConfig) (*AdamW, error) {
	if cfg.AMSGrad {
		return nil, fmt.Errorf("gpu: AdamW with AMSGrad is not implemented on the GPU; train on the CPU engine")
	}
	o := &AdamW{Config: cfg, N: n}
	var err error
	if o.m, err = d.NewBuffer("adamw m", n); err != nil {
		return nil, err
	}
	if o.v, err = d.NewBuffer("adamw v", n); err != nil {
		o.Release()
		return nil, err
	}
	if o.step, err = d.NewBuffer("adamw step", 4); err != nil {
		o.Release()
		return nil, err
	}
	return o, nil
}

// Release frees the optimiser's buffers.
func (o *AdamW) Release() {
	o.m.Release()
	o.v.Release()
	o.step.Release()
}

// Advance counts one more step and uploads its factors (computed in float64,
// as PyTorch does on the host); call it before running a program that holds
// this optimiser's AdamW dispatch.
func (o *AdamW) Advance(d *Device) error {
	o.T++
	c := o.Config
	t := float64(o.T)
	f := []float32{
		float32(1 - c.LR*c.WeightDecay),
		float32(c.LR / (1 - math.Pow(c.Beta1, t))),
		float32(1 / math.Sqrt(1-math.Pow(c.Beta2, t))),
		0,
	}
	return Write(d, o.step, f)
}

// AdamW records adamw.wgsl: one step of o on params given grads.
func (p *Program) AdamW(o *AdamW, params, grads *Buffer) error {
	if params.N < o.N || grads.N < o.N {
		panic(fmt.Sprintf("gpu: AdamW over %d parameters: params has %d, grads %d", o.N, params.N, grads.N))
	}
	c := o.Config
	return p.Dispatch("adamw.wgsl", o.N, adamParams{N: uint32(o.N), Beta1: float32(c.Beta1), Beta2: float32(c.Beta2), Eps: float32(c.Eps)},
		o.step, params, grads, o.m, o.v)
}

// ClipValue records clip_value.wgsl: clamps the first n elements of g to
// [-limit, limit].
func (p *Program) ClipValue(g *Buffer, n int, limit float32) error {
	if g.N < n {
		panic(fmt.Sprintf("gpu: ClipValue of %d elements of buffer %q of %d", n, g.Label, g.N))
	}
	return p.Dispatch("clip_value.wgsl", n, clipParams{N: uint32(n), Limit: limit}, g)
}
