package optim

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// SGDConfig holds SGD's hyper-parameters, as torch.optim.SGD.
type SGDConfig struct {
	LR          float64
	Momentum    float64
	Dampening   float64
	Nesterov    bool // requires Momentum > 0 and Dampening = 0
	WeightDecay float64
}

// SGD is stochastic gradient descent with optional momentum (heavy-ball or
// Nesterov) and L2 weight decay:
//
//	g ← g + wd·p
//	b ← g on the first step, else μ·b + (1-dampening)·g
//	g ← g + μ·b (Nesterov) or b (otherwise)
//	p ← p - lr·g
type SGD struct {
	cfg      SGDConfig
	params   []*autograd.Tensor
	momentum buffers
	steps    int
}

// NewSGD returns an SGD optimiser over params. It panics on a negative
// learning rate, momentum or weight decay, or on Nesterov without momentum.
func NewSGD(params []*autograd.Tensor, cfg SGDConfig) *SGD {
	if cfg.LR < 0 || cfg.Momentum < 0 || cfg.WeightDecay < 0 {
		panic(fmt.Sprintf("optim: NewSGD: invalid config %+v", cfg))
	}
	if cfg.Nesterov && (cfg.Momentum <= 0 || cfg.Dampening != 0) {
		panic("optim: NewSGD: Nesterov momentum requires Momentum > 0 and Dampening = 0")
	}
	return &SGD{cfg: cfg, params: params, momentum: make(buffers, len(params))}
}

// Step updates every parameter that has a gradient.
func (o *SGD) Step() error {
	c := o.cfg
	for i, p := range o.params {
		g := p.Grad()
		if g == nil {
			continue
		}
		var bufs []*autograd.Tensor
		first := o.momentum[i] == nil
		if c.Momentum != 0 {
			bufs = append(bufs, o.momentum.get(i, p))
		}
		apply(p, g, bufs, sgdKernel[float32](c, first), sgdKernel[float64](c, first))
	}
	o.steps++
	return nil
}

func sgdKernel[T autograd.Float](c SGDConfig, first bool) func(p, g []T, bufs [][]T) {
	return func(p, g []T, bufs [][]T) {
		for j := range p {
			d := float64(g[j]) + c.WeightDecay*float64(p[j])
			if c.Momentum != 0 {
				b := d
				if !first {
					b = c.Momentum*float64(bufs[0][j]) + (1-c.Dampening)*d
				}
				bufs[0][j] = T(b)
				if c.Nesterov {
					d += c.Momentum * b
				} else {
					d = b
				}
			}
			p[j] = T(float64(p[j]) - c.LR*d)
		}
	}
}

// ZeroGrad clears the parameters' gradients.
func (o *SGD) ZeroGrad() { ZeroGrad(o.params) }

// LR returns the learning rate.
func (o *SGD) LR() float64 { return o.cfg.LR }

// SetLR sets the learning rate used by the next Step.
func (o *SGD) SetLR(lr float64) { o.cfg.LR = lr }

// State returns the step count, learning rate and momentum buffers.
func (o *SGD) State() State {
	return State{Kind: "sgd", Steps: o.steps, LR: o.cfg.LR, Buffers: map[string][][]float64{"momentum": o.momentum.save()}}
}

// LoadState restores a State from State. It returns an error when s was
// saved by another kind of optimiser or for other parameters.
func (o *SGD) LoadState(s State) error {
	if err := checkKind("sgd", s); err != nil {
		return err
	}
	if err := o.momentum.load("sgd", "momentum", s.Buffers["momentum"], o.params); err != nil {
		return err
	}
	o.steps, o.cfg.LR = s.Steps, s.LR
	return nil
}
