package autograd

import "math"

// Activations with options, each matching torch.nn.functional. Their
// backward rules are PyTorch's, written with differentiable ops, including
// the values at the kinks and at NaN (comparisons with NaN are false, so
// NaN takes whichever branch PyTorch's "else" takes).

// SeluAlpha and SeluScale are SELU's constants (Klambauer et al. 2017), the
// values torch.nn.functional.selu uses.
const (
	SeluAlpha = 1.6732632423543772848170429916717
	SeluScale = 1.0507009873554804934193349852946
)

// SoftplusWith returns log(1 + e^(beta·t))/beta, and t itself where
// beta·t > threshold (where the two agree to within e^-threshold), as
// torch.nn.functional.softplus(t, beta, threshold). The gradient is
// σ(beta·t), and 1 above the threshold. Softplus(t) is the exact function
// without a threshold; SoftplusWith(t, 1, 20) is PyTorch's default.
func SoftplusWith(t *Tensor, beta, threshold float64) *Tensor {
	return unaryOp{"Softplus", func(x float64) float64 {
		if beta*x > threshold {
			return x
		}
		return softplus(beta*x) / beta
	}, func(g, x, _ *Tensor) *Tensor {
		above := Gt(MulScalar(x, beta), scalarLike(x, threshold))
		return Where(above, g, Mul(g, Sigmoid(MulScalar(x, beta))))
	}}.applyComposed(t, func(x *Tensor) *Tensor {
		bx := MulScalar(x, beta)
		return Where(Gt(bx, scalarLike(x, threshold)), x, DivScalar(Softplus(bx), beta))
	})
}

// Elu returns t where t > 0 and alpha·(eᵗ - 1) elsewhere, as
// torch.nn.functional.elu(t, alpha). The gradient is 1 for t > 0 and
// alpha·eᵗ elsewhere (alpha at 0, 1 at NaN, as PyTorch).
func Elu(t *Tensor, alpha float64) *Tensor { return elu("Elu", t, alpha, 1) }

// Selu returns SeluScale·Elu(t, SeluAlpha), as torch.nn.functional.selu.
func Selu(t *Tensor) *Tensor { return elu("Selu", t, SeluAlpha, SeluScale) }

// elu is scale·elu(t, alpha), PyTorch's elu kernel with input_scale 1. Its
// backward is PyTorch's elu_backward: x <= 0 ? g·scale·alpha·eˣ : g·scale.
func elu(name string, t *Tensor, alpha, scale float64) *Tensor {
	return unaryOp{name, func(x float64) float64 {
		if x > 0 {
			return scale * x
		}
		return scale * alpha * math.Expm1(x)
	}, func(g, x, _ *Tensor) *Tensor {
		neg := Le(x, scalarLike(x, 0))
		return Where(neg, Mul(g, MulScalar(Exp(x), scale*alpha)), MulScalar(g, scale))
	}}.applyComposed(t, func(x *Tensor) *Tensor {
		// eˣ - 1 rather than expm1: absolutely within float32's rounding.
		return Where(Gt(x, scalarLike(x, 0)), MulScalar(x, scale), MulScalar(AddScalar(Exp(x), -1), scale*alpha))
	})
}

// Mish returns t·tanh(softplus(t)), as torch.nn.functional.mish (whose
// softplus has no threshold). It is a composition, so its gradient is
// PyTorch's tanh(sp) + t·σ(t)·(1 - tanh²(sp)) by the chain rule.
func Mish(t *Tensor) *Tensor { return Mul(t, Tanh(Softplus(t))) }

// Hardtanh limits t to [lo, hi], as torch.nn.functional.hardtanh(t, lo,
// hi). Unlike Clamp, the gradient is 0 at the bounds themselves: PyTorch's
// hardtanh_backward passes g only where lo < t < hi (and at NaN).
func Hardtanh(t *Tensor, lo, hi float64) *Tensor {
	return unaryOp{"Hardtanh", func(x float64) float64 {
		return min(max(x, lo), hi) // NaN stays NaN
	}, func(g, x, _ *Tensor) *Tensor {
		outside := Add(Le(x, scalarLike(x, lo)), Ge(x, scalarLike(x, hi)))
		return Where(outside, scalarLike(g, 0), g)
	}}.applyComposed(t, func(x *Tensor) *Tensor { return Clamp(x, lo, hi) })
}

// Hardswish returns t·relu6(t + 3)/6, as torch.nn.functional.hardswish:
// 0 for t <= -3, t for t >= 3, t·(t+3)/6 between. The gradient is PyTorch's
// hardswish_backward: 0 for t < -3, t/3 + 1/2 for -3 <= t <= 3 (so -1/2 at
// -3 and 3/2 at 3), 1 above (and at NaN).
func Hardswish(t *Tensor) *Tensor {
	return unaryOp{"Hardswish", func(x float64) float64 {
		switch {
		case x <= -3:
			return 0
		case x >= 3:
			return x
		}
		return x * (x + 3) / 6
	}, func(g, x, _ *Tensor) *Tensor {
		middle := Mul(g, AddScalar(DivScalar(x, 3), 0.5))
		return Where(Lt(x, scalarLike(x, -3)), scalarLike(g, 0),
			Where(Le(x, scalarLike(x, 3)), middle, g))
	}}.applyComposed(t, func(x *Tensor) *Tensor {
		return Where(Ge(x, scalarLike(x, 3)), x, DivScalar(Mul(x, Clamp(AddScalar(x, 3), 0, 6)), 6))
	})
}
