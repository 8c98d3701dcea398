package autograd

import "math"

// unaryOp is an elementwise op: its forward f and its derivative df, given
// the input x and the output y = f(x). A nil df means the derivative is zero
// everywhere (the rounding ops). The table below defines every elementwise
// op once, forward and backward side by side; the backward multiplies the
// upstream gradient by df (g·f'(x), the chain rule).
type unaryOp struct {
	name string
	f    func(x float64) float64
	df   func(x, y float64) float64
}

func (u unaryOp) apply(t *Tensor) *Tensor {
	out := mapUnary(t, u.f)
	return Record(u.name, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		if u.df == nil {
			return []*Tensor{ZerosLike(t)}
		}
		return []*Tensor{chainRule(g, t, out, u.df)}
	})
}

// chainRule returns g·df(x, y) elementwise, in one pass, for tensors of one
// shape and dtype.
func chainRule(g, x, y *Tensor, df func(x, y float64) float64) *Tensor {
	out := ZerosLike(g)
	if g.dtype == Float64 {
		chainKernel(out.f64, g.f64, x.f64, y.f64, df)
	} else {
		chainKernel(out.f32, g.f32, x.f32, y.f32, df)
	}
	return out
}

func chainKernel[T Float](dst, g, x, y []T, df func(x, y float64) float64) {
	ParallelFor(len(dst), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = T(float64(g[i]) * df(float64(x[i]), float64(y[i])))
		}
	})
}

const (
	sqrt2       = math.Sqrt2
	sqrt2OverPi = 0.7978845608028654 // √(2/π)
	geluCoeff   = 0.044715
)

var (
	// abs'(0) = 0, as in PyTorch (the subgradient through sign).
	absOp  = unaryOp{"Abs", math.Abs, func(x, _ float64) float64 { return sign(x) }}
	signOp = unaryOp{"Sign", sign, nil}
	expOp  = unaryOp{"Exp", math.Exp, func(_, y float64) float64 { return y }}
	// log(0) = -Inf with gradient +Inf; log of a negative number is NaN.
	logOp   = unaryOp{"Log", math.Log, func(x, _ float64) float64 { return 1 / x }}
	log2Op  = unaryOp{"Log2", math.Log2, func(x, _ float64) float64 { return 1 / (x * math.Ln2) }}
	log10Op = unaryOp{"Log10", math.Log10, func(x, _ float64) float64 { return 1 / (x * math.Ln10) }}
	// sqrt(0) = 0 with gradient +Inf (1/(2·0)).
	sqrtOp    = unaryOp{"Sqrt", math.Sqrt, func(_, y float64) float64 { return 0.5 / y }}
	sinOp     = unaryOp{"Sin", math.Sin, func(x, _ float64) float64 { return math.Cos(x) }}
	cosOp     = unaryOp{"Cos", math.Cos, func(x, _ float64) float64 { return -math.Sin(x) }}
	tanhOp    = unaryOp{"Tanh", math.Tanh, func(_, y float64) float64 { return 1 - y*y }}
	sigmoidOp = unaryOp{"Sigmoid", sigmoid, func(_, y float64) float64 { return y * (1 - y) }}
	// relu'(0) = 0.
	reluOp = unaryOp{"Relu", func(x float64) float64 { return max(x, 0) }, func(x, _ float64) float64 { return step(x) }}
	// gelu(x) = x·Φ(x); gelu'(x) = Φ(x) + x·φ(x). φ underflows to 0 for large
	// |x|, so the gradient stays finite (0 or 1).
	geluOp = unaryOp{"Gelu", func(x float64) float64 { return x * normCDF(x) }, func(x, _ float64) float64 {
		return normCDF(x) + x*math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)
	}}
	// The tanh approximation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
	geluTanhOp = unaryOp{"GeluTanh", func(x float64) float64 {
		return 0.5 * x * (1 + math.Tanh(sqrt2OverPi*(x+geluCoeff*x*x*x)))
	}, func(x, _ float64) float64 {
		th := math.Tanh(sqrt2OverPi * (x + geluCoeff*x*x*x))
		return 0.5*(1+th) + 0.5*x*(1-th*th)*sqrt2OverPi*(1+3*geluCoeff*x*x)
	}}
	// silu(x) = x·σ(x); silu'(x) = σ(x)·(1 + x·(1 - σ(x))).
	siluOp = unaryOp{"Silu", func(x float64) float64 { return x * sigmoid(x) }, func(x, _ float64) float64 {
		s := sigmoid(x)
		return s * (1 + x*(1-s))
	}}
	// softplus(x) = log(1 + eˣ) = max(x, 0) + log1p(e^-|x|), stable for
	// any x; its derivative is σ(x).
	softplusOp = unaryOp{"Softplus", func(x float64) float64 {
		return max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
	}, func(x, _ float64) float64 { return sigmoid(x) }}
	floorOp = unaryOp{"Floor", math.Floor, nil}
	ceilOp  = unaryOp{"Ceil", math.Ceil, nil}
	roundOp = unaryOp{"Round", math.RoundToEven, nil}
	truncOp = unaryOp{"Trunc", math.Trunc, nil}
)

// Abs returns |t|; its gradient at 0 is 0.
func Abs(t *Tensor) *Tensor { return absOp.apply(t) }

// Sign returns -1, 0 or 1 per element (zero gradient).
func Sign(t *Tensor) *Tensor { return signOp.apply(t) }

// Exp returns eᵗ.
func Exp(t *Tensor) *Tensor { return expOp.apply(t) }

// Log returns the natural logarithm: -Inf at 0 (gradient +Inf), NaN below.
func Log(t *Tensor) *Tensor { return logOp.apply(t) }

// Log2 returns the base-2 logarithm.
func Log2(t *Tensor) *Tensor { return log2Op.apply(t) }

// Log10 returns the base-10 logarithm.
func Log10(t *Tensor) *Tensor { return log10Op.apply(t) }

// Sqrt returns the square root: 0 at 0 with gradient +Inf, NaN below 0.
func Sqrt(t *Tensor) *Tensor { return sqrtOp.apply(t) }

// Sin returns sin t.
func Sin(t *Tensor) *Tensor { return sinOp.apply(t) }

// Cos returns cos t.
func Cos(t *Tensor) *Tensor { return cosOp.apply(t) }

// Tanh returns tanh t.
func Tanh(t *Tensor) *Tensor { return tanhOp.apply(t) }

// Sigmoid returns 1/(1+e⁻ᵗ), computed without overflow for any t.
func Sigmoid(t *Tensor) *Tensor { return sigmoidOp.apply(t) }

// Relu returns max(t, 0); its gradient at 0 is 0.
func Relu(t *Tensor) *Tensor { return reluOp.apply(t) }

// Gelu returns the exact GELU, t·Φ(t) with Φ the standard normal CDF.
func Gelu(t *Tensor) *Tensor { return geluOp.apply(t) }

// GeluTanh returns GELU's tanh approximation (PyTorch approximate="tanh").
func GeluTanh(t *Tensor) *Tensor { return geluTanhOp.apply(t) }

// Silu returns t·σ(t) (also called swish).
func Silu(t *Tensor) *Tensor { return siluOp.apply(t) }

// Softplus returns log(1 + eᵗ), stable for large |t|.
func Softplus(t *Tensor) *Tensor { return softplusOp.apply(t) }

// Floor rounds down (zero gradient).
func Floor(t *Tensor) *Tensor { return floorOp.apply(t) }

// Ceil rounds up (zero gradient).
func Ceil(t *Tensor) *Tensor { return ceilOp.apply(t) }

// Round rounds half to even, as torch.round (zero gradient).
func Round(t *Tensor) *Tensor { return roundOp.apply(t) }

// Trunc rounds toward zero (zero gradient).
func Trunc(t *Tensor) *Tensor { return truncOp.apply(t) }

// LeakyRelu returns t where t > 0 and slope·t elsewhere.
func LeakyRelu(t *Tensor, slope float64) *Tensor {
	return unaryOp{"LeakyRelu", func(x float64) float64 {
		if x > 0 {
			return x
		}
		return slope * x
	}, func(x, _ float64) float64 {
		if x > 0 {
			return 1
		}
		return slope
	}}.apply(t)
}

// Clamp limits t to [lo, hi]. The gradient is 1 inside the closed interval
// and 0 outside, as in PyTorch.
func Clamp(t *Tensor, lo, hi float64) *Tensor {
	return unaryOp{"Clamp", func(x float64) float64 { return min(max(x, lo), hi) }, func(x, _ float64) float64 {
		if x >= lo && x <= hi {
			return 1
		}
		return 0
	}}.apply(t)
}

// Where returns a where mask is non-zero and b elsewhere; the three operands
// broadcast together. The gradient of each branch is the upstream gradient
// where that branch was chosen and 0 elsewhere (so an Inf or NaN in the
// unchosen branch never leaks into the gradient). mask gets no gradient.
func Where(mask, a, b *Tensor) *Tensor {
	checkDType("Where", a, b)
	shape := broadcastShapes("Where", broadcastShapes("Where", mask.shape, a.shape), b.shape)
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

// step is 1 for x > 0 and 0 otherwise.
func step(x float64) float64 {
	if x > 0 {
		return 1
	}
	return 0
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
