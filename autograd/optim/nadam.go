package optim

import (
	"math"

	"github.com/dlca/dlca/autograd"
)

// NAdamConfig holds the keyword arguments of torch.optim.NAdam (lr, betas,
// eps, weight_decay, momentum_decay), each used as given; start from
// DefaultNAdam for PyTorch's defaults.
type NAdamConfig struct {
	LR, Beta1, Beta2, Eps, WeightDecay, MomentumDecay float64
}

// DefaultNAdam returns torch.optim.NAdam's defaults: lr 2e-3, betas (0.9,
// 0.999), eps 1e-8, no weight decay, momentum decay 4e-3.
func DefaultNAdam() NAdamConfig {
	return NAdamConfig{LR: 2e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, MomentumDecay: 4e-3}
}

// NAdamGroup is a parameter group with its own hyper-parameters.
type NAdamGroup struct {
	Params []*autograd.Tensor
	NAdamConfig
}

// NAdam is torch.optim.NAdam, Adam with Nesterov momentum (Dozat): at a
// parameter's step t, with μₜ = β₁·(1 - ½·0.96^(t·ψ)) (ψ the momentum
// decay) and Πₜ = μ₁·…·μₜ (mu_product),
//
//	g ← g + wd·p
//	m ← β₁·m + (1-β₁)·g;  v ← β₂·v + (1-β₂)·g²     (exp_avg, exp_avg_sq)
//	d ← √(v/(1-β₂ᵗ)) + ε
//	p ← p - lr·(1-μₜ)/(1-Πₜ) · g/d
//	p ← p - lr·μₜ₊₁/(1-Πₜ·μₜ₊₁) · m/d
//
// This is the algorithm of PyTorch's documentation and of PyTorch 2.x.
// PyTorch 1.13's code differs in one place: it takes Πₜ·μₜ·μₜ₊₁ (μₜ
// twice) for the last denominator, a bug that 2.0 fixed; this library
// follows the documented algorithm.
type NAdam struct{ elementwise[NAdamConfig] }

// NewNAdam returns NAdam over params. It panics on a negative lr, eps,
// weight decay or momentum decay, or betas outside [0, 1), as PyTorch
// raises.
func NewNAdam(params []*autograd.Tensor, cfg NAdamConfig) *NAdam {
	return NewNAdamGroups([]NAdamGroup{{params, cfg}})
}

// NewNAdamGroups returns NAdam over parameter groups. It panics like
// NewNAdam, and on no groups.
func NewNAdamGroups(groups []NAdamGroup) *NAdam {
	ps, rs := groupsOf(groups, func(g NAdamGroup) ([]*autograd.Tensor, NAdamConfig) { return g.Params, g.NAdamConfig })
	return &NAdam{newElementwise("NAdam", ps, rs)}
}

func (c NAdamConfig) learningRate() float64 { return c.LR }

func (c NAdamConfig) check() string {
	if c.MomentumDecay < 0 {
		return "momentum decay must be non-negative"
	}
	return checkAdamLike(c.LR, c.Eps, c.WeightDecay, c.Beta1, c.Beta2)
}

func (c NAdamConfig) buffers() []bufferSpec { return []bufferSpec{{"exp_avg", 0}, {"exp_avg_sq", 0}} }

// plan advances the parameter's mu_product (1 before its first step).
func (c NAdamConfig) plan(lr float64, t int, scalars map[string]float64) stepPlan {
	mu := c.Beta1 * (1 - 0.5*math.Pow(0.96, float64(t)*c.MomentumDecay))
	muNext := c.Beta1 * (1 - 0.5*math.Pow(0.96, float64(t+1)*c.MomentumDecay))
	prod, ok := scalars["mu_product"]
	if !ok {
		prod = 1
	}
	prod *= mu
	scalars["mu_product"] = prod
	u := nadamUpdate{c: c, bc2: 1 - math.Pow(c.Beta2, float64(t)),
		gradStep: lr * (1 - mu) / (1 - prod), momentumStep: lr * muNext / (1 - prod*muNext)}
	return stepPlan{k32: nadamKernel[float32](u), k64: nadamKernel[float64](u),
		device: func(p, g *autograd.Tensor, bufs []*autograd.Tensor) (*autograd.Tensor, []*autograd.Tensor) {
			g = withDecay(p, g, c.WeightDecay)
			m := ema(bufs[0], g, c.Beta1)
			v := ema(bufs[1], autograd.Mul(g, g), c.Beta2)
			d := autograd.AddScalar(autograd.Sqrt(autograd.DivScalar(v, u.bc2)), c.Eps)
			delta := autograd.Add(autograd.MulScalar(autograd.Div(g, d), u.gradStep), autograd.MulScalar(autograd.Div(m, d), u.momentumStep))
			return delta, []*autograd.Tensor{m, v}
		}}
}

// nadamUpdate holds one step's constants: 1-β₂ᵗ and the two step sizes.
type nadamUpdate struct {
	c                      NAdamConfig
	bc2                    float64
	gradStep, momentumStep float64
}

func nadamKernel[T autograd.Float](u nadamUpdate) func(p, g []T, bufs [][]T) {
	c := u.c
	return func(p, g []T, bufs [][]T) {
		m, v := bufs[0], bufs[1]
		for j := range p {
			pj := float64(p[j])
			gj := float64(g[j]) + float64(c.WeightDecay*pj)
			mj := float64(c.Beta1*float64(m[j])) + float64((1-c.Beta1)*gj)
			vj := float64(c.Beta2*float64(v[j])) + float64((1-c.Beta2)*gj*gj)
			m[j], v[j] = T(mj), T(vj)
			d := math.Sqrt(vj/u.bc2) + c.Eps
			pj -= float64(u.gradStep*gj) / d
			p[j] = T(pj - float64(u.momentumStep*mj)/d)
		}
	}
}
