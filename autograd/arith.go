package autograd

import "math"

// Broadcasting arithmetic. Each op broadcasts its operands by PyTorch's rule
// and sums each gradient back to its operand's shape (sumTo). The binary ops
// panic, naming the op and both shapes, when the shapes do not broadcast or
// the dtypes differ.

// Add returns a + b.
func Add(a, b *Tensor) *Tensor {
	out := arith("Add", a, b, opAdd)
	return Record("Add", out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		return []*Tensor{sumTo(g, a.shape), sumTo(g, b.shape)}
	})
}

// Sub returns a - b.
func Sub(a, b *Tensor) *Tensor {
	out := arith("Sub", a, b, opSub)
	return Record("Sub", out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		return []*Tensor{sumTo(g, a.shape), sumTo(Neg(g), b.shape)}
	})
}

// Mul returns a * b elementwise.
func Mul(a, b *Tensor) *Tensor {
	out := arith("Mul", a, b, opMul)
	return Record("Mul", out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		return []*Tensor{sumTo(Mul(g, b), a.shape), sumTo(Mul(g, a), b.shape)}
	})
}

// Div returns a / b elementwise.
func Div(a, b *Tensor) *Tensor {
	out := arith("Div", a, b, opDiv)
	return Record("Div", out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		// NOTE: d/db = -a/b² is computed as -(a/b)/b so that a tiny b whose
		// square underflows still gives 0 (not NaN) when a is 0.
		return []*Tensor{sumTo(Div(g, b), a.shape), sumTo(Neg(Div(Mul(g, out), b)), b.shape)}
	})
}

// Pow returns a raised to the power b elementwise; b may be fractional.
// d/da = b·a^(b-1); d/db = a^b·ln a, taken as 0 where a is 0 (the limit for
// b > 0). A negative a with a fractional b gives NaN, as math.Pow does.
func Pow(a, b *Tensor) *Tensor {
	out := mapBinary("Pow", a, b, math.Pow)
	return Record("Pow", out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		// The special points are chosen with Where on safe operands, so
		// that neither the gradient nor its own gradient meets 0·Inf: a
		// zero exponent uses b = 1 (a⁰ = 1), a zero base uses ln 1.
		zero := Zeros(a.dtype)
		bZero, aZero := Eq(b, zero), Eq(a, zero)
		safeB := Where(bZero, Ones(b.dtype), b)
		da := Where(bZero, zero, Mul(safeB, Pow(a, AddScalar(safeB, -1))))
		db := Where(aZero, zero, Mul(out, Log(Where(aZero, Ones(a.dtype), a))))
		return []*Tensor{sumTo(Mul(g, da), a.shape), sumTo(Mul(g, db), b.shape)}
	})
}

// Maximum returns the elementwise maximum of a and b, as torch.maximum: a
// NaN in either operand gives NaN. Where they are equal the gradient is
// split evenly between them; where either is NaN both get the whole
// gradient (PyTorch's rule: a's share is masked only where a < b).
func Maximum(a, b *Tensor) *Tensor {
	return extremum("Maximum", a, b, 1)
}

// Minimum returns the elementwise minimum of a and b, as torch.minimum, with
// Maximum's rules for ties and NaN.
func Minimum(a, b *Tensor) *Tensor {
	return extremum("Minimum", a, b, -1)
}

// extremum is Maximum (sign 1) or Minimum (sign -1).
func extremum(op string, a, b *Tensor, sign float64) *Tensor {
	out := mapBinary(op, a, b, func(x, y float64) float64 {
		if sign*(x-y) >= 0 || math.IsNaN(x) {
			return x
		}
		return y
	})
	return Record(op, out, []*Tensor{a, b}, func(g *Tensor) []*Tensor {
		// share(x, y) is the fraction of the gradient that goes to x:
		// PyTorch's where(x == y, g/2, g).masked_fill(x loses, 0), so
		// comparisons with NaN, all false, give 1 to both operands.
		share := func(x, y float64) float64 {
			switch {
			case x == y:
				return 0.5
			case sign*(y-x) > 0:
				return 0
			}
			return 1
		}
		shareA := mapBinary(op+"Share", a, b, share)
		shareB := mapBinary(op+"Share", b, a, share)
		return []*Tensor{sumTo(Mul(g, shareA), a.shape), sumTo(Mul(g, shareB), b.shape)}
	})
}

// Neg returns -t.
func Neg(t *Tensor) *Tensor { return MulScalar(t, -1) }

// AddScalar returns t + s.
func AddScalar(t *Tensor, s float64) *Tensor {
	out := unaryOn("AddScalar", t, func(x float64) float64 { return x + s }, s)
	return Record("AddScalar", out, []*Tensor{t}, func(g *Tensor) []*Tensor { return []*Tensor{g} })
}

// SubScalar returns t - s.
func SubScalar(t *Tensor, s float64) *Tensor { return AddScalar(t, -s) }

// RSubScalar returns s - t.
func RSubScalar(t *Tensor, s float64) *Tensor { return AddScalar(Neg(t), s) }

// MulScalar returns t * s.
func MulScalar(t *Tensor, s float64) *Tensor {
	out := unaryOn("MulScalar", t, func(x float64) float64 { return x * s }, s)
	return Record("MulScalar", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{MulScalar(g, s)}
	})
}

// DivScalar returns t / s.
func DivScalar(t *Tensor, s float64) *Tensor {
	out := unaryOn("DivScalar", t, func(x float64) float64 { return x / s }, s)
	return Record("DivScalar", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{DivScalar(g, s)}
	})
}

// PowScalar returns t raised to the constant power p; d/dt = p·t^(p-1).
func PowScalar(t *Tensor, p float64) *Tensor {
	out := unaryOn("PowScalar", t, func(x float64) float64 { return math.Pow(x, p) }, p)
	return Record("PowScalar", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		if p == 0 {
			return []*Tensor{ZerosLike(t)}
		}
		return []*Tensor{Mul(g, MulScalar(PowScalar(t, p-1), p))}
	})
}

// Square returns t*t; d/dt = 2t.
func Square(t *Tensor) *Tensor {
	out := unaryOn("Square", t, func(x float64) float64 { return x * x })
	return Record("Square", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Mul(g, MulScalar(t, 2))}
	})
}

// Comparisons return masks of the broadcast shape holding 1 where the
// relation holds and 0 elsewhere, with the operands' dtype. They have no
// gradient.

// Gt returns the mask a > b.
func Gt(a, b *Tensor) *Tensor { return compare("Gt", a, b, func(x, y float64) bool { return x > y }) }

// Ge returns the mask a >= b.
func Ge(a, b *Tensor) *Tensor { return compare("Ge", a, b, func(x, y float64) bool { return x >= y }) }

// Lt returns the mask a < b.
func Lt(a, b *Tensor) *Tensor { return compare("Lt", a, b, func(x, y float64) bool { return x < y }) }

// Le returns the mask a <= b.
func Le(a, b *Tensor) *Tensor { return compare("Le", a, b, func(x, y float64) bool { return x <= y }) }

// Eq returns the mask a == b.
func Eq(a, b *Tensor) *Tensor { return compare("Eq", a, b, func(x, y float64) bool { return x == y }) }

func compare(op string, a, b *Tensor, rel func(x, y float64) bool) *Tensor {
	out := mapBinary(op, a, b, func(x, y float64) float64 {
		if rel(x, y) {
			return 1
		}
		return 0
	})
	return markNoGrad(out, a, b)
}
