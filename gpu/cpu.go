package gpu

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
)

// CPU is the CPU twin of every kernel: the CPU code of the gates, dlca and
// optim packages where it exists, so that the GPU is held to the code the
// CPU engine runs. The update input, fire mask and loss twins are written
// here (dlca keeps its versions unexported); the engine tests hold the
// whole step to dlca's.
type CPU struct{}

// Name returns "cpu".
func (CPU) Name() string { return "cpu" }

// GateCoeffs is gates.SoftCoeffs.
func (CPU) GateCoeffs(logits []float32) (probs, coeffs []float32, err error) {
	probs = make([]float32, len(logits))
	coeffs = make([]float32, len(logits)/gates.NumOps*4)
	gates.SoftCoeffs(probs, coeffs, logits)
	return probs, coeffs, nil
}

// GateForward is gates.ForwardSoft.
func (CPU) GateForward(x, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	y := make([]float32, d.YLen())
	gates.ForwardSoft(y, x, coeffs, w, d)
	return y, nil
}

// GateBackwardInput is gates.BackwardSoft's input gradient.
func (CPU) GateBackwardInput(x, gy, coeffs []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	dx := make([]float32, d.XLen())
	gates.BackwardSoft(dx, nil, gy, x, coeffs, w, gates.NewReverseIndex(w, d.In), d)
	return dx, nil
}

// GateSums is gates.BackwardSoft's four sums.
func (CPU) GateSums(x, gy []float32, w gates.Wiring, d gates.Dims) ([]float32, error) {
	sums := make([]float64, 4*d.Gates())
	coeffs := make([]float32, 4*d.Gates()) // the sums do not depend on them
	gates.BackwardSoft(nil, sums, gy, x, coeffs, w, gates.NewReverseIndex(w, d.In), d)
	return to32(sums), nil
}

// GateLogitGrad is gates.LogitGrads.
func (CPU) GateLogitGrad(probs, sums []float32) ([]float32, error) {
	g := make([]float32, len(probs))
	gates.LogitGrads(g, probs, to64(sums))
	return g, nil
}

// ClipValue is optim.ClipGradValue.
func (CPU) ClipValue(g []float32, limit float32) ([]float32, error) {
	p := autograd.Zeros(autograd.Float32, len(g))
	p.SetGrad(autograd.New(append([]float32(nil), g...), len(g)))
	optim.ClipGradValue([]*autograd.Tensor{p}, float64(limit))
	return p.Grad().Data32(), nil
}

// AdamW is optim.NewAdamW's Step, once per gradient.
func (CPU) AdamW(cfg AdamWConfig, params []float32, grads [][]float32) ([]float32, error) {
	p := autograd.New(append([]float32(nil), params...), len(params)).SetRequiresGrad(true)
	o := optim.NewAdamW([]*autograd.Tensor{p}, cfg)
	for _, g := range grads {
		p.SetGrad(autograd.New(append([]float32(nil), g...), len(g)))
		if err := o.Step(); err != nil {
			return nil, fmt.Errorf("gpu: CPU AdamW: %v", err)
		}
	}
	return p.Data32(), nil
}

// PerceptionGather is dlca.Neighbourhood.
func (CPU) PerceptionGather(state []float32, g Grid) ([]float32, error) {
	nb := dlca.Neighbourhood(autograd.New(state, g.Batch, g.Height, g.Width, g.Channels), g.Boundary)
	return nb.Data32(), nil
}

// PerceptionGatherBackward is dlca.Neighbourhood's backward pass.
func (CPU) PerceptionGatherBackward(dnb []float32, g Grid) ([]float32, error) {
	state := autograd.Zeros(autograd.Float32, g.Batch, g.Height, g.Width, g.Channels).SetRequiresGrad(true)
	nb := dlca.Neighbourhood(state, g.Boundary)
	if err := nb.BackwardWith(autograd.New(dnb, nb.Shape()...)); err != nil {
		return nil, fmt.Errorf("gpu: CPU PerceptionGatherBackward: %v", err)
	}
	return state.Grad().Data32(), nil
}

// UpdateInput concatenates in dlca's order (see update_input.wgsl).
func (CPU) UpdateInput(state, percep []float32, c Concat) ([]float32, error) {
	w := c.Width()
	uin := make([]float32, c.Cells*w)
	for cell := range c.Cells {
		copy(uin[cell*w:], state[cell*c.Channels:(cell+1)*c.Channels])
		for i := range c.Channels * c.Kernels * c.Bits {
			uin[cell*w+c.Channels+c.perceptionColumn(i)] = percep[cell*c.Channels*c.Kernels*c.Bits+i]
		}
	}
	return uin, nil
}

// UpdateInputBackward splits duin (see update_input_backward.wgsl).
func (CPU) UpdateInputBackward(duin []float32, c Concat) (dstate, dpercep []float32, err error) {
	w, per := c.Width(), c.Channels*c.Kernels*c.Bits
	dstate = make([]float32, c.Cells*c.Channels)
	dpercep = make([]float32, c.Cells*per)
	for cell := range c.Cells {
		copy(dstate[cell*c.Channels:], duin[cell*w:cell*w+c.Channels])
		for i := range per {
			dpercep[cell*per+i] = duin[cell*w+c.Channels+c.perceptionColumn(i)]
		}
	}
	return dstate, dpercep, nil
}

// FireMask selects per cell.
func (CPU) FireMask(fire, state, upd []float32, g Grid) ([]float32, error) {
	next := make([]float32, g.Len())
	for i := range next {
		if fire[i/g.Channels] != 0 {
			next[i] = upd[i]
		} else {
			next[i] = state[i]
		}
	}
	return next, nil
}

// FireMaskBackward routes the gradient per cell.
func (CPU) FireMaskBackward(fire, dnext []float32, g Grid) (dupd, dstate []float32, err error) {
	dupd = make([]float32, g.Len())
	dstate = make([]float32, g.Len())
	for i, v := range dnext {
		if fire[i/g.Channels] != 0 {
			dupd[i] = v
		} else {
			dstate[i] = v
		}
	}
	return dupd, dstate, nil
}

// Loss is the weighted sum of squared errors, summed in float64.
func (CPU) Loss(weight, state, target []float32, g Grid) (float32, []float32, error) {
	dstate := make([]float32, g.Len())
	total := 0.0
	for i := range dstate {
		w, d := weight[i%g.Channels], state[i]-target[i]
		dstate[i] = 2 * w * d
		total += float64(w * d * d)
	}
	return float32(total), dstate, nil
}

func to32(s []float64) []float32 {
	out := make([]float32, len(s))
	for i, v := range s {
		out[i] = float32(v)
	}
	return out
}

func to64(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}
