package autograd

import "slices"

// Cumulative ops along one axis, and Prod, whose gradient is built on them.

// Cumsum returns the running sums of t along axis, as torch.cumsum:
// out[..., k, ...] = Σ_{j<=k} t[..., j, ...]. Float32 tensors accumulate
// in float64, as PyTorch's CPU kernel does. The gradient is the reversed
// running sum of the upstream gradient.
func Cumsum(t *Tensor, axis int) *Tensor {
	a := normAxis("Cumsum", axis, t.Dim())
	if t.dev != nil {
		return scanOn(t, a, Add, 0)
	}
	out := cumulate(t, a, func(acc, x float64) float64 { return acc + x }, 0)
	return Record("Cumsum", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{reverseCumsum(g, a)}
	})
}

// Cumprod returns the running products of t along axis, as torch.cumprod:
// out[..., k, ...] = Π_{j<=k} t[..., j, ...]. The gradient of element i is
// Σ_{k>=i} g_k·Π_{j<=k, j≠i} t_j, exact with zeros in t. Without zeros it is
// computed in O(n) per slice as reversed-cumsum(g·out)/t; with a zero
// anywhere in t it is computed in O(n²) per slice (PyTorch's double-backward
// path, which it also uses for first-order gradients only when grad mode is
// on).
func Cumprod(t *Tensor, axis int) *Tensor {
	a := normAxis("Cumprod", axis, t.Dim())
	if t.dev != nil {
		return scanOn(t, a, Mul, 1)
	}
	out := cumulate(t, a, func(acc, x float64) float64 { return acc * x }, 1)
	return Record("Cumprod", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		if !hasZero(t) {
			return []*Tensor{Div(reverseCumsum(Mul(g, out), a), t)}
		}
		return []*Tensor{cumprodGradWithZeros(g, t, a)}
	})
}

// cumprodGradWithZeros is Cumprod's gradient written without division:
// with the axis moved last and x^(i) the slice with its element i set to 1,
// grad_i = Σ_{k>=i} g_k·cumprod(x^(i))_k, all i at once on an n×n tensor.
func cumprodGradWithZeros(g, t *Tensor, a int) *Tensor {
	last := t.Dim() - 1
	x, gl := Transpose(t, a, last), Transpose(g, a, last)
	n := t.shape[a]
	eye, upper := Zeros(t.dtype, n, n), Zeros(t.dtype, n, n)
	for i := range n {
		eye.SetAt(i*n+i, 1)
		for k := i; k < n; k++ {
			upper.SetAt(i*n+k, 1)
		}
	}
	shape := append(cloneInts(x.shape[:last]), n, n)
	rows := Where(eye, scalarLike(t, 1), Expand(Unsqueeze(x, -2), shape...)) // rows[..., i, :] = x^(i)
	terms := Mul(Mul(Cumprod(rows, -1), upper), Unsqueeze(gl, -2))
	return Transpose(Sum(terms, false, -1), a, last)
}

// Prod returns the product over axes (none means all), as torch.prod; the
// product of no elements is 1. The gradient of each element is the product
// of the others, exact with zeros: g·out/t when t has no zero, and
// otherwise the product of the exclusive running products from either end
// (PyTorch's prod_safe_zeros_backward), so one zero gets the product of the
// rest and several zeros give 0 everywhere. PyTorch reduces one axis or
// all; any set of axes is allowed here. Float32 products are computed in
// float64 and rounded once, where PyTorch's CPU kernel multiplies in
// float32, so the last bit may differ.
func Prod(t *Tensor, keepdim bool, axes ...int) *Tensor {
	ax := reduceAxes("Prod", t, axes)
	// Move the reduced axes last and flatten them into one.
	var perm, others []int
	n := 1
	for d := range t.Dim() {
		if !slices.Contains(ax, d) {
			perm, others = append(perm, d), append(others, t.shape[d])
		}
	}
	for _, d := range ax {
		perm, n = append(perm, d), n*t.shape[d]
	}
	out := prodLast(Reshape(Permute(t, perm...), append(slices.Clone(others), n)...))
	if keepdim {
		return Reshape(out, keptShape(t.shape, ax)...)
	}
	return out
}

// prodLast is the product over the last axis of x.
func prodLast(x *Tensor) *Tensor {
	last := x.Dim() - 1
	n := x.shape[last]
	if x.dev != nil {
		return prodLastOn(x)
	}
	out := cumulate(x, last, func(acc, v float64) float64 { return acc * v }, 1)
	if n > 0 {
		out = Narrow(out.Detach(), last, n-1, 1)
	} else {
		out = Ones(x.dtype, append(cloneInts(x.shape[:last]), 1)...)
	}
	out = Reshape(out, x.shape[:last]...)
	return Record("Prod", out, []*Tensor{x}, func(g *Tensor) []*Tensor {
		gk, outk := Unsqueeze(g, -1), Unsqueeze(out, -1)
		if n == 0 {
			return []*Tensor{ZerosLike(x)}
		}
		if !hasZero(x) {
			return []*Tensor{Mul(gk, Div(outk, x))}
		}
		left := exclusiveCumprod(x)
		right := flip(exclusiveCumprod(flip(x, last)), last)
		return []*Tensor{Mul(gk, Mul(left, right))}
	})
}

// exclusiveCumprod is the running product over the last axis of the
// elements before each one: [1, x0, x0·x1, ...].
func exclusiveCumprod(x *Tensor) *Tensor {
	last := x.Dim() - 1
	n := x.shape[last]
	ones := Ones(x.dtype, append(cloneInts(x.shape[:last]), 1)...)
	return Cumprod(Cat(last, ones, Narrow(x, last, 0, n-1)), last)
}

// reverseCumsum is the running sum from the end along axis a.
func reverseCumsum(t *Tensor, a int) *Tensor { return flip(Cumsum(flip(t, a), a), a) }

// flip reverses t along axis a (torch.flip for one axis).
func flip(t *Tensor, a int) *Tensor {
	n := t.shape[a]
	idx := make([]int, n)
	for i := range idx {
		idx[i] = n - 1 - i
	}
	return IndexSelect(t, a, idx)
}

// hasZero reports whether any element of t is zero.
func hasZero(t *Tensor) bool {
	for i := range t.Len() {
		if t.At(i) == 0 {
			return true
		}
	}
	return false
}

// cumulate returns the running op along axis a, starting from init and
// computed in float64.
func cumulate(t *Tensor, a int, op func(acc, x float64) float64, init float64) *Tensor {
	outer, n, inner := splitAxis(t.shape, a)
	out := ZerosLike(t)
	if t.dtype == Float64 {
		cumulateKernel(out.f64, t.f64, outer, n, inner, op, init)
	} else {
		cumulateKernel(out.f32, t.f32, outer, n, inner, op, init)
	}
	return out
}

func cumulateKernel[T Float](dst, src []T, outer, n, inner int, op func(acc, x float64) float64, init float64) {
	parallelForCost(outer*inner, n, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			o, i := p/inner, p%inner
			acc := init
			for k := range n {
				q := (o*n+k)*inner + i
				acc = op(acc, float64(src[q]))
				dst[q] = T(acc)
			}
		}
	})
}

// On a device, the cumulative ops and Prod are compositions of ops with
// device kernels (Narrow, Pad, Add, Mul), recorded as such: their
// gradients, exact with zeros, are those of the composition. They compute
// in float32 in another order than the CPU's float64 running loop, so they
// agree with it to rounding (the parity of reductions, 1e-4).

// scanOn is the inclusive scan of t along axis a by op, whose identity is
// id, in ⌈log₂ n⌉ rounds (Hillis and Steele): each round combines every
// element with the one s places before it (id where there is none), for
// s = 1, 2, 4, ...
func scanOn(t *Tensor, a int, op func(x, y *Tensor) *Tensor, id float64) *Tensor {
	n := t.shape[a]
	y := MulScalar(t, 1) // a new tensor even when n < 2
	for s := 1; s < n; s *= 2 {
		pads := make([]int, 2*(t.Dim()-a)) // (before, after) pairs from the last axis
		pads[len(pads)-2] = s
		y = op(y, Pad(Narrow(y, a, 0, n-s), id, pads...))
	}
	return y
}

// prodLastOn is prodLast on a device: the product of pairs, halving the
// last axis each round (an odd length padded with a 1).
func prodLastOn(x *Tensor) *Tensor {
	last := x.Dim() - 1
	if x.shape[last] == 0 {
		ones := fullOn(x.dev, x.dtype, 1, x.shape[:last])
		return Record("Prod", ones, []*Tensor{x}, func(*Tensor) []*Tensor { return []*Tensor{ZerosLike(x)} })
	}
	for n := x.shape[last]; n > 1; n = x.shape[last] {
		if n%2 == 1 {
			x, n = Pad(x, 1, 0, 1), n+1
		}
		x = Mul(Narrow(x, last, 0, n/2), Narrow(x, last, n/2, n/2))
	}
	return Reshape(x, x.shape[:last]...)
}
