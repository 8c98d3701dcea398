package optim

import (
	"math"

	"github.com/dlca/dlca/autograd"
)

// RMSpropConfig holds the keyword arguments of torch.optim.RMSprop (lr,
// alpha, eps, weight_decay, momentum, centered), each used as given; start
// from DefaultRMSprop for PyTorch's defaults.
type RMSpropConfig struct {
	LR, Alpha, Eps, WeightDecay, Momentum float64
	// Centered divides by an estimate of the gradient's variance (the
	// second moment less the square of the running mean) instead of its
	// second moment.
	Centered bool
}

// DefaultRMSprop returns torch.optim.RMSprop's defaults: lr 1e-2, alpha
// 0.99, eps 1e-8, no weight decay or momentum, not centered.
func DefaultRMSprop() RMSpropConfig { return RMSpropConfig{LR: 1e-2, Alpha: 0.99, Eps: 1e-8} }

// RMSpropGroup is a parameter group with its own hyper-parameters.
type RMSpropGroup struct {
	Params []*autograd.Tensor
	RMSpropConfig
}

// RMSprop is torch.optim.RMSprop (PyTorch 1.13's update): for a parameter
// with a gradient,
//
//	g ← g + wd·p
//	v ← α·v + (1-α)·g²                                (square_avg)
//	centered: ḡ ← α·ḡ + (1-α)·g; a ← √(v - ḡ²) + ε    (grad_avg)
//	otherwise a ← √v + ε
//	momentum μ > 0: b ← μ·b + g/a; p ← p - lr·b        (momentum_buffer)
//	otherwise p ← p - lr·g/a
type RMSprop struct{ elementwise[RMSpropConfig] }

// NewRMSprop returns RMSprop over params. It panics on a negative lr, eps,
// weight decay, momentum or alpha, as PyTorch raises.
func NewRMSprop(params []*autograd.Tensor, cfg RMSpropConfig) *RMSprop {
	return NewRMSpropGroups([]RMSpropGroup{{params, cfg}})
}

// NewRMSpropGroups returns RMSprop over parameter groups. It panics like
// NewRMSprop, and on no groups.
func NewRMSpropGroups(groups []RMSpropGroup) *RMSprop {
	ps, rs := groupsOf(groups, func(g RMSpropGroup) ([]*autograd.Tensor, RMSpropConfig) { return g.Params, g.RMSpropConfig })
	return &RMSprop{newElementwise("RMSprop", ps, rs)}
}

func (c RMSpropConfig) learningRate() float64 { return c.LR }

func (c RMSpropConfig) check() string {
	if !(c.LR >= 0 && c.Eps >= 0 && c.WeightDecay >= 0 && c.Momentum >= 0 && c.Alpha >= 0) {
		return "lr, eps, weight decay, momentum and alpha must be non-negative"
	}
	return ""
}

func (c RMSpropConfig) buffers() []bufferSpec {
	bs := []bufferSpec{{"square_avg", 0}}
	if c.Momentum > 0 {
		bs = append(bs, bufferSpec{"momentum_buffer", 0})
	}
	if c.Centered {
		bs = append(bs, bufferSpec{"grad_avg", 0})
	}
	return bs
}

func (c RMSpropConfig) plan(lr float64, _ int, _ map[string]float64) stepPlan {
	return stepPlan{k32: rmspropKernel[float32](c, lr), k64: rmspropKernel[float64](c, lr), device: c.device(lr)}
}

func rmspropKernel[T autograd.Float](c RMSpropConfig, lr float64) func(p, g []T, bufs [][]T) {
	return func(p, g []T, bufs [][]T) {
		sq := bufs[0]
		for j := range p {
			pj := float64(p[j])
			gj := float64(g[j]) + float64(c.WeightDecay*pj)
			v := float64(c.Alpha*float64(sq[j])) + float64((1-c.Alpha)*gj*gj)
			sq[j] = T(v)
			a := math.Sqrt(v)
			if c.Centered {
				ga := bufs[len(bufs)-1]
				m := float64(c.Alpha*float64(ga[j])) + float64((1-c.Alpha)*gj)
				ga[j] = T(m)
				a = math.Sqrt(v - float64(m*m))
			}
			a += c.Eps
			if c.Momentum > 0 {
				b := float64(c.Momentum*float64(bufs[1][j])) + gj/a
				bufs[1][j] = T(b)
				p[j] = T(pj - float64(lr*b))
			} else {
				p[j] = T(pj - float64(lr*gj/a))
			}
		}
	}
}

func (c RMSpropConfig) device(lr float64) func(p, g *autograd.Tensor, bufs []*autograd.Tensor) (*autograd.Tensor, []*autograd.Tensor) {
	return func(p, g *autograd.Tensor, bufs []*autograd.Tensor) (*autograd.Tensor, []*autograd.Tensor) {
		g = withDecay(p, g, c.WeightDecay)
		next := make([]*autograd.Tensor, len(bufs))
		v := ema(bufs[0], autograd.Mul(g, g), c.Alpha)
		next[0] = v
		var a *autograd.Tensor
		if c.Centered {
			m := ema(bufs[len(bufs)-1], g, c.Alpha)
			next[len(bufs)-1] = m
			a = autograd.Sqrt(autograd.Sub(v, autograd.Mul(m, m)))
		} else {
			a = autograd.Sqrt(v)
		}
		step := autograd.Div(g, autograd.AddScalar(a, c.Eps))
		if c.Momentum > 0 {
			step = autograd.Add(autograd.MulScalar(bufs[1], c.Momentum), step)
			next[1] = step
		}
		return autograd.MulScalar(step, lr), next
	}
}
