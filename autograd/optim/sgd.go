package optim

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// SGDConfig holds SGD's hyper-parameters, as the keyword arguments of
// torch.optim.SGD (lr, momentum, dampening, nesterov, weight_decay). Every
// field is used as given, and the zero value of each is PyTorch's default
// (lr has none in PyTorch: set it).
type SGDConfig struct {
	LR          float64
	Momentum    float64
	Dampening   float64
	Nesterov    bool // requires Momentum > 0 and Dampening = 0
	WeightDecay float64
}

// SGDGroup is a parameter group with its own hyper-parameters, as one dict
// of torch.optim.SGD's params argument.
type SGDGroup struct {
	Params []*autograd.Tensor
	SGDConfig
}

// SGD is stochastic gradient descent with optional momentum (heavy-ball or
// Nesterov) and L2 weight decay, as torch.optim.SGD:
//
//	g ← g + wd·p
//	b ← g on the first step, else μ·b + (1-dampening)·g
//	g ← g + μ·b (Nesterov) or b (otherwise)
//	p ← p - lr·g
type SGD struct {
	groups   []sgdGroup
	params   []*autograd.Tensor // every group's, in order
	momentum buffers
	steps    int
}

// sgdGroup is a group with its running hyper-parameters and the learning
// rate it was built with (PyTorch's initial_lr).
type sgdGroup struct {
	cfg       SGDConfig
	initialLR float64
	first, n  int // its parameters are params[first : first+n]
}

// NewSGD returns an SGD optimiser over params. It panics on a negative
// learning rate, momentum or weight decay, or on Nesterov without momentum.
func NewSGD(params []*autograd.Tensor, cfg SGDConfig) *SGD {
	return NewSGDGroups([]SGDGroup{{Params: params, SGDConfig: cfg}})
}

// NewSGDGroups returns SGD over parameter groups, each with its own
// hyper-parameters, as torch.optim.SGD([{"params": ..., "lr": ...}, ...]).
// It panics like NewSGD, and on no groups.
func NewSGDGroups(groups []SGDGroup) *SGD {
	if len(groups) == 0 {
		panic("optim: NewSGDGroups: no parameter groups")
	}
	o := &SGD{}
	for _, g := range groups {
		c := g.SGDConfig
		if !(c.LR >= 0 && c.Momentum >= 0 && c.WeightDecay >= 0) {
			panic(fmt.Sprintf("optim: NewSGD: invalid config %+v", c))
		}
		if c.Nesterov && (c.Momentum <= 0 || c.Dampening != 0) {
			panic("optim: NewSGD: Nesterov momentum requires Momentum > 0 and Dampening = 0")
		}
		o.groups = append(o.groups, sgdGroup{cfg: c, initialLR: c.LR, first: len(o.params), n: len(g.Params)})
		o.params = append(o.params, g.Params...)
	}
	o.momentum = make(buffers, len(o.params))
	return o
}

// Step updates every parameter that has a gradient.
func (o *SGD) Step() error {
	var dev DeviceKernels // of the last parameter on a device
	for gi, gr := range o.groups {
		c := gr.cfg
		for i := gr.first; i < gr.first+gr.n; i++ {
			p := o.params[i]
			g := p.Grad()
			if g == nil {
				continue
			}
			var bufs []*autograd.Tensor
			first := o.momentum[i] == nil
			if c.Momentum != 0 {
				bufs = append(bufs, o.momentum.get(i, p))
			}
			if k := kernelsOf("SGD", p); k != nil {
				dev = k
				// A replay of a captured step is never the first: the
				// momentum buffer holds the captured step's.
				replays := 0
				replayed(k, func() {
					k.SGDStep(p, g, o.momentum[i], o.groups[gi].cfg, first && replays == 0)
					replays++
				})
				continue
			}
			apply(p, g, bufs, sgdKernel[float32](c, first), sgdKernel[float64](c, first))
		}
	}
	if dev != nil {
		replayed(dev, func() { o.steps++ }) // a replay of a captured step counts too
	} else {
		o.steps++
	}
	return syncDevices(o.params)
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

// NumGroups returns the number of parameter groups.
func (o *SGD) NumGroups() int { return len(o.groups) }

// GroupLR returns group i's learning rate.
func (o *SGD) GroupLR(i int) float64 { return o.groups[i].cfg.LR }

// SetGroupLR sets group i's learning rate for the next Step.
func (o *SGD) SetGroupLR(i int, lr float64) { o.groups[i].cfg.LR = lr }

// InitialLR returns group i's learning rate at construction.
func (o *SGD) InitialLR(i int) float64 { return o.groups[i].initialLR }

// SetGroupMomentum sets group i's momentum for the next Step (what
// OneCycleLR cycles).
func (o *SGD) SetGroupMomentum(i int, momentum float64) { o.groups[i].cfg.Momentum = momentum }

// State returns the step count, learning rates and momentum buffers.
func (o *SGD) State() State {
	s := State{Kind: "sgd", Steps: o.steps, Buffers: map[string][][]float64{"momentum": o.momentum.save()}}
	saveLRs(&s, o)
	return s
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
	if err := loadLRs("sgd", s, o); err != nil {
		return err
	}
	o.steps = s.Steps
	return nil
}
