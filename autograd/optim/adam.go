package optim

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
)

// AdamConfig holds the hyper-parameters of Adam and AdamW. Zero values of
// LR, Beta1, Beta2 and Eps select PyTorch's defaults (1e-3, 0.9, 0.999,
// 1e-8); WeightDecay is used as given (0 means none).
type AdamConfig struct {
	LR          float64
	Beta1       float64
	Beta2       float64
	Eps         float64
	WeightDecay float64
}

// AdamWConfig holds AdamW's hyper-parameters; see AdamConfig.
type AdamWConfig = AdamConfig

func (c AdamConfig) withDefaults() AdamConfig {
	if c.LR == 0 {
		c.LR = 1e-3
	}
	if c.Beta1 == 0 {
		c.Beta1 = 0.9
	}
	if c.Beta2 == 0 {
		c.Beta2 = 0.999
	}
	if c.Eps == 0 {
		c.Eps = 1e-8
	}
	return c
}

// Adam is the Adam optimiser (Kingma & Ba), as torch.optim.Adam and
// torch.optim.AdamW. At step t, with bias corrections c₁ = 1-β₁ᵗ and
// c₂ = 1-β₂ᵗ:
//
//	Adam:  g ← g + wd·p               (L2 decay through the gradient)
//	AdamW: p ← p·(1 - lr·wd)          (decoupled decay)
//	m ← β₁·m + (1-β₁)·g
//	v ← β₂·v + (1-β₂)·g²
//	p ← p - (lr/c₁)·m / (√v/√c₂ + ε)
type Adam struct {
	cfg       AdamConfig
	decoupled bool
	params    []*autograd.Tensor
	m, v      buffers
	steps     int
}

// NewAdam returns Adam over params (weight decay added to the gradient).
// It panics on a negative learning rate, eps or weight decay, or betas
// outside [0, 1).
func NewAdam(params []*autograd.Tensor, cfg AdamConfig) *Adam {
	return newAdam(params, cfg, false)
}

// NewAdamW returns AdamW over params: Adam with decoupled weight decay.
// It panics like NewAdam.
func NewAdamW(params []*autograd.Tensor, cfg AdamWConfig) *Adam {
	return newAdam(params, cfg, true)
}

func newAdam(params []*autograd.Tensor, cfg AdamConfig, decoupled bool) *Adam {
	cfg = cfg.withDefaults()
	if cfg.LR < 0 || cfg.Eps < 0 || cfg.WeightDecay < 0 || cfg.Beta1 < 0 || cfg.Beta1 >= 1 || cfg.Beta2 < 0 || cfg.Beta2 >= 1 {
		panic(fmt.Sprintf("optim: invalid Adam config %+v", cfg))
	}
	return &Adam{cfg: cfg, decoupled: decoupled, params: params, m: make(buffers, len(params)), v: make(buffers, len(params))}
}

func (o *Adam) kind() string {
	if o.decoupled {
		return "adamw"
	}
	return "adam"
}

// Step updates every parameter that has a gradient.
func (o *Adam) Step() error {
	o.steps++
	c := o.cfg
	t := float64(o.steps)
	u := adamUpdate{
		lr: c.LR, b1: c.Beta1, b2: c.Beta2, eps: c.Eps,
		stepSize: c.LR / (1 - math.Pow(c.Beta1, t)),
		sqrtBC2:  math.Sqrt(1 - math.Pow(c.Beta2, t)),
	}
	if o.decoupled {
		u.decay = 1 - c.LR*c.WeightDecay
	} else {
		u.decay, u.l2 = 1, c.WeightDecay
	}
	for i, p := range o.params {
		g := p.Grad()
		if g == nil {
			continue
		}
		bufs := []*autograd.Tensor{o.m.get(i, p), o.v.get(i, p)}
		apply(p, g, bufs, adamKernel[float32](u), adamKernel[float64](u))
	}
	return nil
}

// adamUpdate holds the per-step constants of the Adam update.
type adamUpdate struct {
	lr, b1, b2, eps   float64
	decay, l2         float64 // p ← p·decay (AdamW); g ← g + l2·p (Adam)
	stepSize, sqrtBC2 float64
}

func adamKernel[T autograd.Float](u adamUpdate) func(p, g []T, bufs [][]T) {
	return func(p, g []T, bufs [][]T) {
		m, v := bufs[0], bufs[1]
		for j := range p {
			// NOTE: every product is rounded (an explicit conversion)
			// before it is added, so that no build fuses a multiply-add
			// and a trained model is the same on every GOAMD64 level.
			pj := float64(p[j])
			gj := float64(g[j]) + float64(u.l2*pj)
			pj *= u.decay
			mj := float64(u.b1*float64(m[j])) + float64((1-u.b1)*gj)
			vj := float64(u.b2*float64(v[j])) + float64((1-u.b2)*gj*gj)
			m[j], v[j] = T(mj), T(vj)
			p[j] = T(pj - float64(u.stepSize*mj)/(math.Sqrt(vj)/u.sqrtBC2+u.eps))
		}
	}
}

// ZeroGrad clears the parameters' gradients.
func (o *Adam) ZeroGrad() { ZeroGrad(o.params) }

// LR returns the learning rate.
func (o *Adam) LR() float64 { return o.cfg.LR }

// SetLR sets the learning rate used by the next Step.
func (o *Adam) SetLR(lr float64) { o.cfg.LR = lr }

// State returns the step count, learning rate and moment buffers ("m", "v").
func (o *Adam) State() State {
	return State{Kind: o.kind(), Steps: o.steps, LR: o.cfg.LR,
		Buffers: map[string][][]float64{"m": o.m.save(), "v": o.v.save()}}
}

// LoadState restores a State from State. It returns an error when s was
// saved by another kind of optimiser or for other parameters.
func (o *Adam) LoadState(s State) error {
	if err := checkKind(o.kind(), s); err != nil {
		return err
	}
	if err := o.m.load(o.kind(), "m", s.Buffers["m"], o.params); err != nil {
		return err
	}
	if err := o.v.load(o.kind(), "v", s.Buffers["v"], o.params); err != nil {
		return err
	}
	o.steps, o.cfg.LR = s.Steps, s.LR
	return nil
}
