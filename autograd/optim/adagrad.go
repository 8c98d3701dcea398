package optim

import (
	"math"

	"github.com/dlca/dlca/autograd"
)

// AdagradConfig holds the keyword arguments of torch.optim.Adagrad (lr,
// lr_decay, weight_decay, initial_accumulator_value, eps), each used as
// given; start from DefaultAdagrad for PyTorch's defaults.
type AdagradConfig struct {
	LR, LRDecay, WeightDecay, InitialAccumulatorValue, Eps float64
}

// DefaultAdagrad returns torch.optim.Adagrad's defaults: lr 1e-2, eps
// 1e-10, no lr decay, weight decay or initial accumulation.
func DefaultAdagrad() AdagradConfig { return AdagradConfig{LR: 1e-2, Eps: 1e-10} }

// AdagradGroup is a parameter group with its own hyper-parameters.
type AdagradGroup struct {
	Params []*autograd.Tensor
	AdagradConfig
}

// Adagrad is torch.optim.Adagrad (PyTorch 1.13's update, dense
// gradients): at a parameter's step t,
//
//	g ← g + wd·p
//	s ← s + g²                     (sum, starting at initial_accumulator_value)
//	p ← p - lr/(1 + (t-1)·lr_decay) · g/(√s + ε)
type Adagrad struct{ elementwise[AdagradConfig] }

// NewAdagrad returns Adagrad over params. It panics on a negative lr, lr
// decay, weight decay, initial accumulator value or eps, as PyTorch
// raises.
func NewAdagrad(params []*autograd.Tensor, cfg AdagradConfig) *Adagrad {
	return NewAdagradGroups([]AdagradGroup{{params, cfg}})
}

// NewAdagradGroups returns Adagrad over parameter groups. It panics like
// NewAdagrad, and on no groups.
func NewAdagradGroups(groups []AdagradGroup) *Adagrad {
	ps, rs := groupsOf(groups, func(g AdagradGroup) ([]*autograd.Tensor, AdagradConfig) { return g.Params, g.AdagradConfig })
	return &Adagrad{newElementwise("Adagrad", ps, rs)}
}

func (c AdagradConfig) learningRate() float64 { return c.LR }

func (c AdagradConfig) check() string {
	if !(c.LR >= 0 && c.LRDecay >= 0 && c.WeightDecay >= 0 && c.InitialAccumulatorValue >= 0 && c.Eps >= 0) {
		return "lr, lr decay, weight decay, initial accumulator value and eps must be non-negative"
	}
	return ""
}

func (c AdagradConfig) buffers() []bufferSpec {
	return []bufferSpec{{"sum", c.InitialAccumulatorValue}}
}

func (c AdagradConfig) plan(lr float64, t int, _ map[string]float64) stepPlan {
	clr := lr / (1 + float64(t-1)*c.LRDecay)
	return stepPlan{k32: adagradKernel[float32](c, clr), k64: adagradKernel[float64](c, clr),
		device: func(p, g *autograd.Tensor, bufs []*autograd.Tensor) (*autograd.Tensor, []*autograd.Tensor) {
			g = withDecay(p, g, c.WeightDecay)
			s := autograd.Add(bufs[0], autograd.Mul(g, g))
			step := autograd.Div(g, autograd.AddScalar(autograd.Sqrt(s), c.Eps))
			return autograd.MulScalar(step, clr), []*autograd.Tensor{s}
		}}
}

func adagradKernel[T autograd.Float](c AdagradConfig, clr float64) func(p, g []T, bufs [][]T) {
	return func(p, g []T, bufs [][]T) {
		sum := bufs[0]
		for j := range p {
			pj := float64(p[j])
			gj := float64(g[j]) + float64(c.WeightDecay*pj)
			s := float64(sum[j]) + float64(gj*gj)
			sum[j] = T(s)
			p[j] = T(pj - float64(clr*gj/(math.Sqrt(s)+c.Eps)))
		}
	}
}
