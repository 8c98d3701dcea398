package gpu

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
)

// The optimiser kernels of AutogradDevice (optim.DeviceKernels): SGD, Adam
// and AdamW steps and gradient clipping by value, in place on the device,
// with the optimiser's state there too.

var _ optim.DeviceKernels = (*AutogradDevice)(nil)

// sgdParams mirrors SGDParams (declared in shaders/lib/params.wgsl), the
// uniform of autograd/sgd.wgsl.
type sgdParams struct {
	N, Mode, First, _           uint32
	LR, Momentum, Dampening, WD float32
}

// adamUpdateParams mirrors AdamUpdateParams (declared in
// shaders/lib/params.wgsl), the uniform of autograd/adam.wgsl.
type adamUpdateParams struct {
	N, AMSGrad, _, _                          uint32
	B1, B2, Eps, Decay, L2, StepSize, SqrtBC2 float32
	_                                         uint32
}

// adamParamsOf returns the uniform of autograd/adam.wgsl for n parameters
// and the constants u (AMSGrad off: the caller binds the running maximum).
func adamParamsOf(n int, u optim.AdamUpdate) adamUpdateParams {
	return adamUpdateParams{N: uint32(n), B1: float32(u.B1), B2: float32(u.B2), Eps: float32(u.Eps),
		Decay: float32(u.Decay), L2: float32(u.L2), StepSize: float32(u.StepSize), SqrtBC2: float32(u.SqrtBC2)}
}

// SGDStep applies one SGD update to p (see optim.DeviceKernels).
func (a *AutogradDevice) SGDStep(p, g, momentum *autograd.Tensor, c optim.SGDConfig, first bool) {
	u := sgdParams{N: uint32(p.Len()), LR: float32(c.LR), Momentum: float32(c.Momentum),
		Dampening: float32(c.Dampening), WD: float32(c.WeightDecay)}
	unused, err := a.d.unusedBinding()
	if err != nil {
		a.fail(err)
		return
	}
	b := unused.buf // bound but unused without momentum
	if momentum != nil {
		b, u.Mode = a.buffer(momentum), 1
		if c.Nesterov {
			u.Mode = 2
		}
	}
	if first {
		u.First = 1
	}
	a.dispatch("autograd/sgd.wgsl", p.Len(), u, a.buffer(p), a.buffer(g), b)
}

// AdamStep applies one Adam or AdamW update (see optim.DeviceKernels).
func (a *AutogradDevice) AdamStep(p, g, m, v, maxV *autograd.Tensor, u optim.AdamUpdate) {
	q := adamParamsOf(p.Len(), u)
	unused, err := a.d.unusedBinding()
	if err != nil {
		a.fail(err)
		return
	}
	vmax := unused.buf // bound but unused without AMSGrad
	if maxV != nil {
		vmax, q.AMSGrad = a.buffer(maxV), 1
	}
	a.dispatch("autograd/adam.wgsl", p.Len(), q, a.buffer(p), a.buffer(g), a.buffer(m), a.buffer(v), vmax)
}

// ClipValue clamps g to [-limit, limit] in place, with the automaton's
// clip_value.wgsl.
func (a *AutogradDevice) ClipValue(g *autograd.Tensor, limit float64) {
	a.dispatch("clip_value.wgsl", g.Len(), clipParams{N: uint32(g.Len()), Limit: float32(limit)}, a.buffer(g))
}
