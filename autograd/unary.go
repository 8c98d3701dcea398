package autograd

import "math"

// unaryOp is an elementwise op: its forward f, computed in one pass, and
// its backward grad, which returns the input's gradient given the upstream
// gradient g, the input x and the output y = f(x). grad is written with
// differentiable ops so that the gradient can itself be differentiated
// (gradients of gradients); a nil grad means the derivative is zero
// everywhere (the rounding ops). Each elementwise op below defines its
// forward and backward side by side.
type unaryOp struct {
	name string
	f    func(x float64) float64
	grad func(g, x, y *Tensor) *Tensor
}

// apply computes the op on t's device, recording it; params are the
// constants of the op's device kernel (see UnaryOps), which f closes over.
func (u unaryOp) apply(t *Tensor, params ...float64) *Tensor {
	return u.record(t, unaryOn(u.name, t, u.f, params...))
}

// applyComposed is apply for an op that is not one of UnaryOps: on a device
// its forward is composed, a composition of ops with device kernels, applied
// to t detached so that only the op's own backward is recorded.
func (u unaryOp) applyComposed(t *Tensor, composed func(x *Tensor) *Tensor) *Tensor {
	if t.dev == nil {
		return u.apply(t)
	}
	return u.record(t, composed(t.Detach()))
}

// record records out = u(t) with u's backward.
func (u unaryOp) record(t, out *Tensor) *Tensor {
	return Record(u.name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		if u.grad == nil {
			return []*Tensor{ZerosLike(t)}
		}
		return []*Tensor{u.grad(g, t, out)}
	})
}

const (
	sqrt2       = math.Sqrt2
	sqrt2OverPi = 0.7978845608028654 // √(2/π)
	geluCoeff   = 0.044715
)

// scalarLike returns the 0-D tensor v with t's dtype, for broadcasting.
func scalarLike(t *Tensor, v float64) *Tensor { return Full(t.dtype, v) }

// stdNormalCDF returns Φ(t), the standard normal CDF, with derivative φ: the
// differentiable piece of GELU's derivative.
func stdNormalCDF(t *Tensor) *Tensor {
	return unaryOp{"NormCDF", normCDF, func(g, x, _ *Tensor) *Tensor { return Mul(g, normPDF(x)) }}.apply(t)
}

// normPDF returns φ(x) = e^(-x²/2)/√(2π) as a differentiable composition.
func normPDF(x *Tensor) *Tensor {
	return MulScalar(Exp(MulScalar(Square(x), -0.5)), 1/math.Sqrt(2*math.Pi))
}

// Abs returns |t|, as torch.abs; its gradient is 0 at 0 and NaN at NaN.
func Abs(t *Tensor) *Tensor {
	// abs'(x) = sign(x): 0 at 0 (the subgradient, as PyTorch) and NaN at
	// NaN (PyTorch's grad·sgn(x)).
	return unaryOp{"Abs", math.Abs, func(g, x, _ *Tensor) *Tensor { return Mul(g, Sign(x)) }}.apply(t)
}

// Sign returns -1, 0 or 1 per element (zero gradient).
func Sign(t *Tensor) *Tensor {
	return unaryOp{"Sign", sign, nil}.apply(t)
}

// Exp returns eᵗ.
func Exp(t *Tensor) *Tensor {
	return unaryOp{"Exp", math.Exp, func(g, _, y *Tensor) *Tensor { return Mul(g, y) }}.apply(t)
}

// Log returns the natural logarithm: -Inf at 0 (gradient +Inf), NaN below.
func Log(t *Tensor) *Tensor {
	// log(0) = -Inf with gradient +Inf; log of a negative number is NaN.
	return unaryOp{"Log", math.Log, func(g, x, _ *Tensor) *Tensor { return Div(g, x) }}.apply(t)
}

// Log2 returns the base-2 logarithm.
func Log2(t *Tensor) *Tensor {
	return unaryOp{"Log2", math.Log2, func(g, x, _ *Tensor) *Tensor { return Div(g, MulScalar(x, math.Ln2)) }}.apply(t)
}

// Log10 returns the base-10 logarithm.
func Log10(t *Tensor) *Tensor {
	return unaryOp{"Log10", math.Log10, func(g, x, _ *Tensor) *Tensor { return Div(g, MulScalar(x, math.Ln10)) }}.apply(t)
}

// Sqrt returns the square root: 0 at 0 with gradient +Inf, NaN below 0.
func Sqrt(t *Tensor) *Tensor {
	// sqrt(0) = 0 with gradient +Inf (1/(2·0)).
	return unaryOp{"Sqrt", math.Sqrt, func(g, _, y *Tensor) *Tensor { return Div(g, MulScalar(y, 2)) }}.apply(t)
}

// Sin returns sin t.
func Sin(t *Tensor) *Tensor {
	return unaryOp{"Sin", math.Sin, func(g, x, _ *Tensor) *Tensor { return Mul(g, Cos(x)) }}.apply(t)
}

// Cos returns cos t.
func Cos(t *Tensor) *Tensor {
	return unaryOp{"Cos", math.Cos, func(g, x, _ *Tensor) *Tensor { return Neg(Mul(g, Sin(x))) }}.apply(t)
}

// Tanh returns tanh t.
func Tanh(t *Tensor) *Tensor {
	return unaryOp{"Tanh", math.Tanh, func(g, _, y *Tensor) *Tensor { return Mul(g, RSubScalar(Square(y), 1)) }}.apply(t)
}

// Sigmoid returns 1/(1+e⁻ᵗ), computed without overflow for any t.
func Sigmoid(t *Tensor) *Tensor {
	return unaryOp{"Sigmoid", sigmoid, func(g, _, y *Tensor) *Tensor { return Mul(g, Mul(y, RSubScalar(y, 1))) }}.apply(t)
}

// Relu returns max(t, 0), as torch.relu; its gradient is 0 at 0 and passes
// through at NaN (PyTorch's rule).
func Relu(t *Tensor) *Tensor {
	// relu'(0) = 0. At NaN the gradient passes through (g), as PyTorch's
	// threshold_backward: x <= 0 ? 0 : g.
	if t.dev == nil {
		out := ZerosLike(t)
		if t.dtype == Float64 {
			reluKernel(out.f64, t.f64, t.f64)
		} else {
			reluKernel(out.f32, t.f32, t.f32)
		}
		return Record("Relu", out, []*Tensor{t}, func(g *Tensor) []*Tensor { return []*Tensor{reluGrad(g, t)} })
	}
	return unaryOp{"Relu", func(x float64) float64 { return max(x, 0) }, func(g, x, _ *Tensor) *Tensor {
		return reluGrad(g, x)
	}}.apply(t)
}

// reluGrad returns g where x > 0 or x is NaN and 0 elsewhere (PyTorch's
// threshold_backward), recorded as an op of g whose gradient is reluGrad
// of the same x (x's mask is piecewise constant: no gradient to x). On the
// CPU it is one pass; elsewhere it is composed of Le and Where.
func reluGrad(g, x *Tensor) *Tensor {
	if g.dev != nil || x.dev != nil || g.dtype != x.dtype || !sameShape(g.shape, x.shape) {
		return Where(Le(x, scalarLike(x, 0)), scalarLike(g, 0), g)
	}
	out := ZerosLike(g)
	if g.dtype == Float64 {
		reluKernel(out.f64, x.f64, g.f64)
	} else {
		reluKernel(out.f32, x.f32, g.f32)
	}
	return Record("ReluBackward", out, []*Tensor{g}, func(gg *Tensor) []*Tensor { return []*Tensor{reluGrad(gg, x)} })
}

// reluKernel sets dst[i] to v[i] where x[i] > 0 or x[i] is NaN, else to 0:
// with v = x, relu itself (NaN propagates, -0 becomes 0, as max(x, 0)).
func reluKernel[T Float](dst, x, v []T) {
	ParallelFor(len(dst), func(lo, hi int) {
		switch dst := any(dst[lo:hi]).(type) {
		case []float32:
			relu32(dst, any(x[lo:hi]).([]float32), any(v[lo:hi]).([]float32))
		case []float64:
			for i, xi := range any(x[lo:hi]).([]float64) {
				if !(xi <= 0) {
					dst[i] = any(v).([]float64)[lo+i]
				}
			}
		}
	})
}

// relu32 is reluKernel's float32 loop without a branch on the data (the
// signs of activations are a coin toss a branch predictor loses): the kept
// value's bits are masked.
func relu32(dst, x, v []float32) {
	v = v[:len(x)]
	dst = dst[:len(x)]
	for i, xi := range x {
		var m uint32
		if !(xi <= 0) {
			m = ^uint32(0)
		}
		dst[i] = math.Float32frombits(math.Float32bits(v[i]) & m)
	}
}

// Gelu returns the exact GELU, t·Φ(t) with Φ the standard normal CDF.
func Gelu(t *Tensor) *Tensor {
	// gelu(x) = x·Φ(x); gelu'(x) = Φ(x) + x·φ(x). φ underflows to 0 for large
	// |x|, so the gradient stays finite (0 or 1).
	return unaryOp{"Gelu", func(x float64) float64 { return x * normCDF(x) }, func(g, x, _ *Tensor) *Tensor {
		return Mul(g, Add(stdNormalCDF(x), Mul(x, normPDF(x))))
	}}.apply(t)
}

// GeluTanh returns GELU's tanh approximation (PyTorch approximate="tanh").
func GeluTanh(t *Tensor) *Tensor {
	// The tanh approximation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
	return unaryOp{"GeluTanh", func(x float64) float64 {
		return 0.5 * x * (1 + math.Tanh(sqrt2OverPi*(x+geluCoeff*x*x*x)))
	}, func(g, x, _ *Tensor) *Tensor {
		x2 := Square(x)
		th := Tanh(MulScalar(Mul(x, AddScalar(MulScalar(x2, geluCoeff), 1)), sqrt2OverPi))
		// 0.5·(1+th) + 0.5·x·(1-th²)·√(2/π)·(1 + 3·0.044715·x²)
		inner := MulScalar(AddScalar(MulScalar(x2, 3*geluCoeff), 1), 0.5*sqrt2OverPi)
		d := Add(MulScalar(AddScalar(th, 1), 0.5), Mul(Mul(x, RSubScalar(Square(th), 1)), inner))
		return Mul(g, d)
	}}.apply(t)
}

// Silu returns t·σ(t) (also called swish).
func Silu(t *Tensor) *Tensor {
	// silu(x) = x·σ(x); silu'(x) = σ(x)·(1 + x·(1 - σ(x))).
	return unaryOp{"Silu", func(x float64) float64 { return x * sigmoid(x) }, func(g, x, _ *Tensor) *Tensor {
		s := Sigmoid(x)
		return Mul(g, Mul(s, AddScalar(Mul(x, RSubScalar(s, 1)), 1)))
	}}.apply(t)
}

// Softplus returns log(1 + eᵗ), stable for large |t|.
func Softplus(t *Tensor) *Tensor {
	// softplus(x) = log(1 + eˣ) = max(x, 0) + log1p(e^-|x|), stable for
	// any x; its derivative is σ(x).
	return unaryOp{"Softplus", softplus, func(g, x, _ *Tensor) *Tensor { return Mul(g, Sigmoid(x)) }}.apply(t)
}

// Floor rounds down (zero gradient).
func Floor(t *Tensor) *Tensor {
	return unaryOp{"Floor", math.Floor, nil}.apply(t)
}

// Ceil rounds up (zero gradient).
func Ceil(t *Tensor) *Tensor {
	return unaryOp{"Ceil", math.Ceil, nil}.apply(t)
}

// Round rounds half to even, as torch.round (zero gradient).
func Round(t *Tensor) *Tensor {
	return unaryOp{"Round", math.RoundToEven, nil}.apply(t)
}

// Trunc rounds toward zero (zero gradient).
func Trunc(t *Tensor) *Tensor {
	return unaryOp{"Trunc", math.Trunc, nil}.apply(t)
}

// LeakyRelu returns t where t > 0 and slope·t elsewhere, as
// torch.nn.functional.leaky_relu(t, slope). The gradient is 1 for t > 0 and
// slope elsewhere (slope at 0 and at NaN, as PyTorch).
func LeakyRelu(t *Tensor, slope float64) *Tensor {
	return unaryOp{"LeakyRelu", func(x float64) float64 {
		if x > 0 {
			return x
		}
		return slope * x
	}, func(g, x, _ *Tensor) *Tensor {
		return Where(Gt(x, scalarLike(x, 0)), g, MulScalar(g, slope))
	}}.apply(t, slope)
}

// Clamp limits t to [lo, hi]. The gradient is 1 inside the closed interval
// and 0 outside (and at NaN), as in PyTorch.
func Clamp(t *Tensor, lo, hi float64) *Tensor {
	return unaryOp{"Clamp", func(x float64) float64 { return min(max(x, lo), hi) }, func(g, x, _ *Tensor) *Tensor {
		inside := Mul(Ge(x, scalarLike(x, lo)), Le(x, scalarLike(x, hi)))
		return Where(inside, g, scalarLike(g, 0))
	}}.apply(t, lo, hi)
}

// Where returns a where mask is non-zero and b elsewhere; the three operands
// broadcast together. The gradient of each branch is the upstream gradient
// where that branch was chosen and 0 elsewhere (so an Inf or NaN in the
// unchosen branch never leaks into the gradient). mask gets no gradient.
func Where(mask, a, b *Tensor) *Tensor {
	checkDType("Where", a, b)
	shape := broadcastShapes("Where", broadcastShapes("Where", mask.shape, a.shape), b.shape)
	if dev := deviceOf("Where", mask, a, b); dev != nil {
		return whereOn(dev, shape, mask, a, b)
	}
	m := Cast(Expand(mask.Detach(), shape...), a.dtype)
	ea, eb := Expand(a.Detach(), shape...), Expand(b.Detach(), shape...)
	out := Zeros(a.dtype, shape...)
	if a.dtype == Float64 {
		whereKernel(out.f64, m.f64, ea.f64, eb.f64)
	} else {
		whereKernel(out.f32, m.f32, ea.f32, eb.f32)
	}
	return Record("Where", out, []*Tensor{mask, a, b}, func(g *Tensor) []*Tensor {
		zero := ZerosLike(g)
		return []*Tensor{nil, sumTo(Where(m, g, zero), a.shape), sumTo(Where(m, zero, g), b.shape)}
	})
}

// whereOn is Where on dev. Its gradients are Wheres of the same mask.
func whereOn(dev Device, shape []int, mask, a, b *Tensor) *Tensor {
	m := onDevice(dev, mask.Detach())
	out := newOn(dev, a.dtype, shape)
	elementwiseOf("Where", dev).Where(out, m, onDevice(dev, a), onDevice(dev, b))
	return Record("Where", out, []*Tensor{mask, a, b}, func(g *Tensor) []*Tensor {
		zero := ZerosLike(g)
		return []*Tensor{nil, sumTo(Where(m, g, zero), a.shape), sumTo(Where(m, zero, g), b.shape)}
	})
}

func whereKernel[T Float](dst, mask, a, b []T) {
	ParallelFor(len(dst), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if mask[i] != 0 {
				dst[i] = a[i]
			} else {
				dst[i] = b[i]
			}
		}
	})
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x // keeps 0 and NaN
}

// sigmoid computes 1/(1+e^-x) without overflowing for large |x|.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/sqrt2) }

// softplus computes log(1 + eˣ) without overflow for any x.
func softplus(x float64) float64 { return max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }
