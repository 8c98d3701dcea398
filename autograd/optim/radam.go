package optim

import (
	"math"

	"github.com/dlca/dlca/autograd"
)

// RAdamConfig holds the keyword arguments of torch.optim.RAdam (lr, betas,
// eps, weight_decay), each used as given; start from DefaultRAdam for
// PyTorch's defaults.
type RAdamConfig struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64
}

// DefaultRAdam returns torch.optim.RAdam's defaults: lr 1e-3, betas (0.9,
// 0.999), eps 1e-8, no weight decay.
func DefaultRAdam() RAdamConfig { return RAdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// RAdamGroup is a parameter group with its own hyper-parameters.
type RAdamGroup struct {
	Params []*autograd.Tensor
	RAdamConfig
}

// RAdam is torch.optim.RAdam (Liu et al., PyTorch 1.13's update): Adam
// whose adaptive step is rectified, and left out while the variance
// estimate is unreliable. At a parameter's step t, with ρ∞ = 2/(1-β₂) - 1
// and ρₜ = ρ∞ - 2t·β₂ᵗ/(1-β₂ᵗ),
//
//	g ← g + wd·p
//	m ← β₁·m + (1-β₁)·g;  v ← β₂·v + (1-β₂)·g²     (exp_avg, exp_avg_sq)
//	m̂ ← m/(1-β₁ᵗ)
//	ρₜ > 5: r ← √((ρₜ-4)(ρₜ-2)ρ∞ / ((ρ∞-4)(ρ∞-2)ρₜ))
//	        p ← p - lr·m̂·√(1-β₂ᵗ)/(√v + ε)·r
//	else:   p ← p - lr·m̂
type RAdam struct{ elementwise[RAdamConfig] }

// NewRAdam returns RAdam over params. It panics on a negative lr, eps or
// weight decay, or betas outside [0, 1), as PyTorch raises.
func NewRAdam(params []*autograd.Tensor, cfg RAdamConfig) *RAdam {
	return NewRAdamGroups([]RAdamGroup{{params, cfg}})
}

// NewRAdamGroups returns RAdam over parameter groups. It panics like
// NewRAdam, and on no groups.
func NewRAdamGroups(groups []RAdamGroup) *RAdam {
	ps, rs := groupsOf(groups, func(g RAdamGroup) ([]*autograd.Tensor, RAdamConfig) { return g.Params, g.RAdamConfig })
	return &RAdam{newElementwise("RAdam", ps, rs)}
}

func (c RAdamConfig) learningRate() float64 { return c.LR }

func (c RAdamConfig) check() string {
	return checkAdamLike(c.LR, c.Eps, c.WeightDecay, c.Beta1, c.Beta2)
}

func (c RAdamConfig) buffers() []bufferSpec { return []bufferSpec{{"exp_avg", 0}, {"exp_avg_sq", 0}} }

func (c RAdamConfig) plan(lr float64, t int, _ map[string]float64) stepPlan {
	u := radamUpdate{c: c, lr: lr, bc1: 1 - math.Pow(c.Beta1, float64(t)), bc2: 1 - math.Pow(c.Beta2, float64(t))}
	rhoInf := 2/(1-c.Beta2) - 1
	rho := rhoInf - 2*float64(t)*math.Pow(c.Beta2, float64(t))/u.bc2
	if rho > 5 {
		u.rectified = true
		u.rect = math.Sqrt((rho - 4) * (rho - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rho))
	}
	return stepPlan{k32: radamKernel[float32](u), k64: radamKernel[float64](u),
		device: func(p, g *autograd.Tensor, bufs []*autograd.Tensor) (*autograd.Tensor, []*autograd.Tensor) {
			g = withDecay(p, g, c.WeightDecay)
			m := ema(bufs[0], g, c.Beta1)
			v := ema(bufs[1], autograd.Mul(g, g), c.Beta2)
			delta := autograd.MulScalar(m, lr/u.bc1)
			if u.rectified {
				delta = autograd.MulScalar(autograd.Div(delta, autograd.AddScalar(autograd.Sqrt(v), c.Eps)), math.Sqrt(u.bc2)*u.rect)
			}
			return delta, []*autograd.Tensor{m, v}
		}}
}

// radamUpdate holds one step's constants.
type radamUpdate struct {
	c         RAdamConfig
	lr        float64
	bc1, bc2  float64 // 1-β₁ᵗ, 1-β₂ᵗ
	rectified bool    // ρₜ > 5
	rect      float64
}

func radamKernel[T autograd.Float](u radamUpdate) func(p, g []T, bufs [][]T) {
	c := u.c
	return func(p, g []T, bufs [][]T) {
		m, v := bufs[0], bufs[1]
		for j := range p {
			pj := float64(p[j])
			gj := float64(g[j]) + float64(c.WeightDecay*pj)
			mj := float64(c.Beta1*float64(m[j])) + float64((1-c.Beta1)*gj)
			vj := float64(c.Beta2*float64(v[j])) + float64((1-c.Beta2)*gj*gj)
			m[j], v[j] = T(mj), T(vj)
			step := mj / u.bc1 * u.lr
			if u.rectified {
				step *= math.Sqrt(u.bc2) / (math.Sqrt(vj) + c.Eps) * u.rect
			}
			p[j] = T(pj - step)
		}
	}
}
