package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/dlca/dlca/autograd/optim"
)

// AdamWConfig is the CPU optimiser's config, so both engines read the same
// hyperparameters.
type AdamWConfig = optim.AdamWConfig

// AdamW is the optimiser state of n parameters on the device: the moment
// buffers of the engine's recorded AdamW step, which runs the autograd
// device's kernel (autograd/adam.wgsl) with the constants of
// optim.AdamConfig.Update. It serves one parameter set that has a gradient
// at every step, so one step count T is every parameter's (optim.Adam's
// per-parameter counts, all equal).
type AdamW struct {
	Config AdamWConfig
	N      int
	T      int // steps taken
	m, v   *Buffer
	// uniform holds the step's constants in the program that recorded the
	// step last (Program.AdamW); Advance rewrites it before each run.
	uniform *wgpu.Buffer
}

// NewAdamW allocates zeroed moments for n parameters. cfg is used as given,
// as optim.NewAdamW does (zero is zero; start from optim.DefaultAdamW). It
// returns an error for AMSGrad, whose running maximum the engine does not
// keep.
func (d *Device) NewAdamW(n int, cfg AdamWConfig) (*AdamW, error) {
	if cfg.AMSGrad {
		return nil, fmt.Errorf("gpu: AdamW with AMSGrad is not implemented in the GPU engine; train on the CPU engine")
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
	return o, nil
}

// Release frees the optimiser's buffers.
func (o *AdamW) Release() {
	o.m.Release()
	o.v.Release()
}

// Advance counts one more step and writes its constants (computed in
// float64, as PyTorch does on the host) into the program that recorded the
// step; call it before running that program.
func (o *AdamW) Advance(d *Device) error {
	o.T++
	if o.uniform == nil {
		if o.N == 0 { // nothing to update: no dispatch was recorded
			return nil
		}
		panic("gpu: AdamW.Advance before Program.AdamW recorded the step")
	}
	const shader = "autograd/adam.wgsl"
	return d.writeParams(o.uniform, shader, encodeParams(shader, adamParamsOf(o.N, o.Config.Update(o.T, true))))
}

// AdamW records one step of o on params given grads: autograd/adam.wgsl,
// whose constants o.Advance writes before each run of p.
func (p *Program) AdamW(o *AdamW, params, grads *Buffer) error {
	if params.N < o.N || grads.N < o.N {
		panic(fmt.Sprintf("gpu: AdamW over %d parameters: params has %d, grads %d", o.N, params.N, grads.N))
	}
	// The running maximum is bound but unused: AMSGrad is off.
	unused, err := p.d.unusedBinding()
	if err != nil {
		return err
	}
	if err := p.Dispatch("autograd/adam.wgsl", o.N, adamParamsOf(o.N, o.Config.Update(o.T+1, true)), params, grads, o.m, o.v, unused); err != nil {
		return err
	}
	if o.N > 0 {
		o.uniform = p.uniforms[len(p.uniforms)-1]
	}
	return nil
}

// ClipValue records clip_value.wgsl: clamps the first n elements of g to
// [-limit, limit].
func (p *Program) ClipValue(g *Buffer, n int, limit float32) error {
	if g.N < n {
		panic(fmt.Sprintf("gpu: ClipValue of %d elements of buffer %q of %d", n, g.Label, g.N))
	}
	return p.Dispatch("clip_value.wgsl", n, clipParams{N: uint32(n), Limit: limit}, g)
}
