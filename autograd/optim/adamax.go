package optim

import (
	"math"

	"github.com/dlca/dlca/autograd"
)

// AdamaxConfig holds the keyword arguments of torch.optim.Adamax (lr,
// betas, eps, weight_decay), each used as given; start from DefaultAdamax
// for PyTorch's defaults.
type AdamaxConfig struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64
}

// DefaultAdamax returns torch.optim.Adamax's defaults: lr 2e-3, betas
// (0.9, 0.999), eps 1e-8, no weight decay.
func DefaultAdamax() AdamaxConfig { return AdamaxConfig{LR: 2e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// AdamaxGroup is a parameter group with its own hyper-parameters.
type AdamaxGroup struct {
	Params []*autograd.Tensor
	AdamaxConfig
}

// Adamax is torch.optim.Adamax (PyTorch 1.13's update), Adam with the
// infinity norm: at a parameter's step t,
//
//	g ← g + wd·p
//	m ← β₁·m + (1-β₁)·g             (exp_avg)
//	u ← max(β₂·u, |g| + ε)          (exp_inf)
//	p ← p - lr/(1-β₁ᵗ) · m/u
type Adamax struct{ elementwise[AdamaxConfig] }

// NewAdamax returns Adamax over params. It panics on a negative lr, eps
// or weight decay, or betas outside [0, 1), as PyTorch raises.
func NewAdamax(params []*autograd.Tensor, cfg AdamaxConfig) *Adamax {
	return NewAdamaxGroups([]AdamaxGroup{{params, cfg}})
}

// NewAdamaxGroups returns Adamax over parameter groups. It panics like
// NewAdamax, and on no groups.
func NewAdamaxGroups(groups []AdamaxGroup) *Adamax {
	ps, rs := groupsOf(groups, func(g AdamaxGroup) ([]*autograd.Tensor, AdamaxConfig) { return g.Params, g.AdamaxConfig })
	return &Adamax{newElementwise("Adamax", ps, rs)}
}

func (c AdamaxConfig) learningRate() float64 { return c.LR }

func (c AdamaxConfig) check() string {
	return checkAdamLike(c.LR, c.Eps, c.WeightDecay, c.Beta1, c.Beta2)
}

// checkAdamLike is the check of the Adam family: non-negative lr, eps and
// weight decay, betas in [0, 1).
func checkAdamLike(lr, eps, wd, b1, b2 float64) string {
	if !(lr >= 0 && eps >= 0 && wd >= 0 && b1 >= 0 && b1 < 1 && b2 >= 0 && b2 < 1) {
		return "lr, eps and weight decay must be non-negative and betas in [0, 1)"
	}
	return ""
}

func (c AdamaxConfig) buffers() []bufferSpec { return []bufferSpec{{"exp_avg", 0}, {"exp_inf", 0}} }

func (c AdamaxConfig) plan(lr float64, t int, _ map[string]float64) stepPlan {
	clr := lr / (1 - math.Pow(c.Beta1, float64(t)))
	return stepPlan{k32: adamaxKernel[float32](c, clr), k64: adamaxKernel[float64](c, clr),
		device: func(p, g *autograd.Tensor, bufs []*autograd.Tensor) (*autograd.Tensor, []*autograd.Tensor) {
			g = withDecay(p, g, c.WeightDecay)
			m := ema(bufs[0], g, c.Beta1)
			u := autograd.Maximum(autograd.MulScalar(bufs[1], c.Beta2), autograd.AddScalar(autograd.Abs(g), c.Eps))
			return autograd.MulScalar(autograd.Div(m, u), clr), []*autograd.Tensor{m, u}
		}}
}

func adamaxKernel[T autograd.Float](c AdamaxConfig, clr float64) func(p, g []T, bufs [][]T) {
	return func(p, g []T, bufs [][]T) {
		m, u := bufs[0], bufs[1]
		for j := range p {
			pj := float64(p[j])
			gj := float64(g[j]) + float64(c.WeightDecay*pj)
			mj := float64(c.Beta1*float64(m[j])) + float64((1-c.Beta1)*gj)
			// PyTorch stores β₂·u before taking the maximum: round it to T
			// as its in-place mul_ does.
			uj := float64(max(T(c.Beta2*float64(u[j])), T(math.Abs(gj)+c.Eps)))
			m[j], u[j] = T(mj), T(uj)
			p[j] = T(pj - float64(clr*mj)/uj)
		}
	}
}
