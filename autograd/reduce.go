package autograd

import (
	"fmt"
	"math"
	"slices"
)

// Reductions. Each takes a set of axes (none means all of them; negative
// axes count from the end) and keepdim: when true the reduced axes stay with
// length 1, as in PyTorch. They panic on an out-of-range or repeated axis.

type reduceKind uint8

const (
	reduceSum reduceKind = iota
	reduceMax
	reduceMin
)

// Sum returns the sum over axes. The sum of no elements is 0.
// Gradient: g broadcast back over the reduced axes.
func Sum(t *Tensor, keepdim bool, axes ...int) *Tensor {
	ax := reduceAxes("Sum", t, axes)
	out := reduce(t, ax, keepdim, reduceSum)
	return Record("Sum", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Expand(Reshape(g, keptShape(t.shape, ax)...), t.shape...)}
	})
}

// Mean returns the mean over axes; the mean of no elements is NaN.
func Mean(t *Tensor, keepdim bool, axes ...int) *Tensor {
	ax := reduceAxes("Mean", t, axes)
	n := 1
	for _, a := range ax {
		n *= t.shape[a]
	}
	return MulScalar(Sum(t, keepdim, ax...), 1/float64(n))
}

// Var returns the variance over axes with the given correction (Bessel's
// correction is 1, PyTorch's default; 0 gives the population variance):
// sum((t - mean)²) / max(0, n - correction), as torch.var(t, axes,
// correction=correction, keepdim=keepdim): with no degrees of freedom left
// the result is Inf, or NaN where every deviation is 0.
func Var(t *Tensor, correction int, keepdim bool, axes ...int) *Tensor {
	ax := reduceAxes("Var", t, axes)
	n := 1
	for _, a := range ax {
		n *= t.shape[a]
	}
	dev := Sub(t, Mean(t, true, ax...))
	return DivScalar(Sum(Square(dev), keepdim, ax...), float64(max(0, n-correction)))
}

// Std returns the standard deviation over axes, the square root of Var with
// the same correction, as torch.std(t, axes, correction=correction,
// keepdim=keepdim). Where the deviation is 0 its gradient is 0, as
// PyTorch's std_backward (masked_fill(result == 0, 0)).
func Std(t *Tensor, correction int, keepdim bool, axes ...int) *Tensor {
	return sqrtZeroGrad(Var(t, correction, keepdim, axes...))
}

// Norm returns the vector p-norm over axes (none means all) for p = 1, 2
// or +Inf, as torch.linalg.vector_norm(t, p, axes, keepdim): Σ|t|,
// √(Σt²) or max|t|. Gradients as PyTorch: sign(t)·g for p = 1 (0 at 0);
// t·g/‖t‖ for p = 2, and 0 where the norm is 0; for p = Inf, sign(t)·g
// split evenly among the elements whose |t| is the maximum. It panics for
// any other p.
func Norm(t *Tensor, p float64, keepdim bool, axes ...int) *Tensor {
	switch {
	case p == 1:
		return Sum(Abs(t), keepdim, axes...)
	case p == 2:
		return sqrtZeroGrad(Sum(Square(t), keepdim, axes...))
	case math.IsInf(p, 1):
		return Max(Abs(t), keepdim, axes...)
	}
	panic(fmt.Sprintf("autograd: Norm: p = %v; want 1, 2 or +Inf", p))
}

// sqrtZeroGrad is Sqrt with gradient 0 where the value is 0 (instead of
// +Inf), the rule PyTorch's std and 2-norm use at zero. The denominator is
// made safe before dividing so that no Inf or NaN arises in the unchosen
// branch, in this gradient or in its own.
func sqrtZeroGrad(t *Tensor) *Tensor {
	return unaryOp{"Sqrt", math.Sqrt, func(g, _, y *Tensor) *Tensor {
		zero := Eq(y, scalarLike(y, 0))
		safe := Where(zero, scalarLike(y, 1), y)
		return Where(zero, scalarLike(g, 0), Div(g, MulScalar(safe, 2)))
	}}.apply(t)
}

// Max returns the maximum over axes, as torch.amax (and torch.max(t) for
// all axes); a NaN in a slice gives NaN. The gradient goes to the elements
// equal to the maximum, split evenly among ties (amax's rule, and max's
// without an axis; MaxDim instead sends it to one index) and among the NaNs
// of a slice whose maximum is NaN (torch.max's evenly_distribute_backward;
// torch.amax gives NaN gradients there instead). It panics when a reduced
// axis is empty.
func Max(t *Tensor, keepdim bool, axes ...int) *Tensor {
	return extremeReduce("Max", t, keepdim, axes, reduceMax)
}

// Min returns the minimum over axes, as torch.amin, with Max's rules for
// ties and NaN. It panics when a reduced axis is empty.
func Min(t *Tensor, keepdim bool, axes ...int) *Tensor {
	return extremeReduce("Min", t, keepdim, axes, reduceMin)
}

func extremeReduce(op string, t *Tensor, keepdim bool, axes []int, kind reduceKind) *Tensor {
	ax := reduceAxes(op, t, axes)
	for _, a := range ax {
		if t.shape[a] == 0 {
			panic(fmt.Sprintf("autograd: %s over the empty axis %d of shape %v", op, a, t.shape))
		}
	}
	out := reduce(t, ax, keepdim, kind)
	return Record(op, out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		kept := keptShape(t.shape, ax)
		mask := mapBinary("ExtremeMask", t, Reshape(out, kept...), func(x, m float64) float64 {
			if x == m || x != x && m != m { // the extreme, or a NaN of a NaN slice
				return 1
			}
			return 0
		})
		count := Sum(mask, true, ax...)
		return []*Tensor{Mul(mask, Div(Reshape(g, kept...), count))}
	})
}

// LogSumExp returns log(sum(exp(t))) over axes, computed stably by shifting
// by the maximum. Its gradient is the softmax of t over axes.
func LogSumExp(t *Tensor, keepdim bool, axes ...int) *Tensor {
	ax := reduceAxes("LogSumExp", t, axes)
	// NOTE: an infinite maximum (all -Inf, or +Inf present) is replaced by
	// 0 so that t - shift stays free of Inf - Inf. The shift is a constant
	// (the kernels record nothing): the result does not depend on it.
	shift := unaryOn("FiniteOrZero", reduce(t, ax, true, reduceMax), func(x float64) float64 {
		if math.IsInf(x, 0) {
			return 0
		}
		return x
	})
	out := Add(Log(Sum(Exp(Sub(t, shift)), true, ax...)), shift)
	if keepdim {
		return out
	}
	return Reshape(out, reducedShape(t.shape, ax)...)
}

// MaxDim returns the maximum along axis and, for every position of the
// other axes (row-major), its index, as torch.max(t, axis, keepdim) ->
// (values, indices): the first index on ties, the first NaN where a slice
// holds NaN. The gradient goes to the returned index only, as PyTorch's
// value_selecting_reduction_backward (unlike Max, which splits ties).
func MaxDim(t *Tensor, axis int, keepdim bool) (*Tensor, []int) {
	return extremeDim("MaxDim", t, axis, keepdim, 1)
}

// MinDim is MaxDim for the minimum, as torch.min(t, axis, keepdim).
func MinDim(t *Tensor, axis int, keepdim bool) (*Tensor, []int) {
	return extremeDim("MinDim", t, axis, keepdim, -1)
}

func extremeDim(op string, t *Tensor, axis int, keepdim bool, sign float64) (*Tensor, []int) {
	a := normAxis(op, axis, t.Dim())
	arg := "ArgMax" // the indices are ArgMax's (ArgMin's), on every device
	if sign < 0 {
		arg = "ArgMin"
	}
	idx := argExtreme(arg, t, a, sign)
	vals := GatherShaped(t, a, idx, keptShape(t.shape, []int{a}))
	if !keepdim {
		vals = Reshape(vals, reducedShape(t.shape, []int{a})...)
	}
	return vals, idx
}

// ArgMax returns, for every position of the other axes (row-major), the
// index along axis of the largest element, as torch.argmax: the first one
// on ties, the first NaN where the slice holds NaN. It panics when the axis
// is empty. It has no gradient.
func ArgMax(t *Tensor, axis int) []int { return argExtreme("ArgMax", t, axis, 1) }

// ArgMin is ArgMax for the smallest element.
func ArgMin(t *Tensor, axis int) []int { return argExtreme("ArgMin", t, axis, -1) }

func argExtreme(op string, t *Tensor, axis int, sign float64) []int {
	a := normAxis(op, axis, t.Dim())
	outer, n, inner := splitAxis(t.shape, a)
	if n == 0 {
		panic(fmt.Sprintf("autograd: %s over the empty axis %d of shape %v", op, axis, t.shape))
	}
	if t.dev != nil {
		return argExtremeOn(op, t, a)
	}
	res := make([]int, outer*inner)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			best, bv := 0, sign*t.At(o*n*inner+i)
			for k := 1; k < n && bv == bv; k++ { // a NaN is final
				if v := sign * t.At((o*n+k)*inner+i); v > bv || v != v {
					best, bv = k, v
				}
			}
			res[o*inner+i] = best
		}
	}
	return res
}

// argExtremeOn is argExtreme on t's device: the kernel writes the indices,
// which are read back (they are host ints). A device error panics with the
// device's message, as ArgMax has no error result.
func argExtremeOn(op string, t *Tensor, a int) []int {
	out := newOn(t.dev, t.dtype, keptShape(t.shape, []int{a}))
	reduceOf(op, t.dev).ArgReduce(op, out, t, a)
	c, err := out.To(CPU)
	if err != nil {
		panic(fmt.Sprintf("autograd: %s of a tensor of shape %v on %v: %v", op, t.shape, t.dev, err))
	}
	res := make([]int, c.Len())
	for i := range res {
		res[i] = int(c.At(i))
	}
	return res
}

// reduceAxes normalises axes (all of them when none are given) into a
// sorted list without repeats.
func reduceAxes(op string, t *Tensor, axes []int) []int {
	if len(axes) == 0 {
		all := make([]int, t.Dim())
		for i := range all {
			all[i] = i
		}
		return all
	}
	ax := make([]int, len(axes))
	for i, a := range axes {
		ax[i] = normAxis(op, a, t.Dim())
	}
	slices.Sort(ax)
	if len(slices.Compact(slices.Clone(ax))) != len(ax) {
		panic(fmt.Sprintf("autograd: %s: repeated axis in %v for shape %v", op, axes, t.shape))
	}
	return ax
}

// keptShape is shape with the axes in ax set to 1.
func keptShape(shape, ax []int) []int {
	s := cloneInts(shape)
	for _, a := range ax {
		s[a] = 1
	}
	return s
}

// reducedShape is shape without the axes in ax.
func reducedShape(shape, ax []int) []int {
	var s []int
	for d, n := range shape {
		if !slices.Contains(ax, d) {
			s = append(s, n)
		}
	}
	return s
}

// reduce applies a reduction over the sorted axes ax, one axis at a time
// from the last, each pass computed whole per output element (deterministic).
func reduce(t *Tensor, ax []int, keepdim bool, kind reduceKind) *Tensor {
	cur := t
	for i := len(ax) - 1; i >= 0; i-- {
		cur = reduceAxis(cur, ax[i], kind)
	}
	if cur == t {
		cur = t.Clone()
	}
	if !keepdim {
		cur.shape = reducedShape(t.shape, ax)
	}
	return cur
}

// reduceKernelNames are the ReduceKernels.Reduce names of the reductions.
var reduceKernelNames = [...]string{reduceSum: "Sum", reduceMax: "Max", reduceMin: "Min"}

// reduceAxis reduces t along axis a, keeping it with length 1, on t's device.
func reduceAxis(t *Tensor, a int, kind reduceKind) *Tensor {
	shape := keptShape(t.shape, []int{a})
	if t.dev != nil {
		op := reduceKernelNames[kind]
		out := newOn(t.dev, t.dtype, shape)
		reduceOf(op, t.dev).Reduce(op, out, t, a)
		return out
	}
	outer, n, inner := splitAxis(t.shape, a)
	out := Zeros(t.dtype, shape...)
	if t.dtype == Float64 {
		reduceKernel(out.f64, t.f64, outer, n, inner, kind)
	} else {
		reduceKernel(out.f32, t.f32, outer, n, inner, kind)
	}
	return out
}

func reduceKernel[T Float](dst, src []T, outer, n, inner int, kind reduceKind) {
	parallelForCost(outer, n*inner, func(lo, hi int) {
		if inner == 1 && kind == reduceSum && n > 0 {
			// Rows of n contiguous values (the last axis): the same sums in
			// the same order, without a slice per term.
			for o := lo; o < hi; o++ {
				row := src[o*n : (o+1)*n]
				acc := row[0]
				for _, v := range row[1:] {
					acc += v
				}
				dst[o] = acc
			}
			return
		}
		for o := lo; o < hi; o++ {
			d := dst[o*inner : (o+1)*inner]
			if n == 0 {
				continue
			}
			copy(d, src[o*n*inner:])
			for k := 1; k < n; k++ {
				s := src[(o*n+k)*inner : (o*n+k+1)*inner]
				switch kind {
				case reduceSum:
					for i, v := range s {
						d[i] += v
					}
				case reduceMax: // NaN propagates (v != v)
					for i, v := range s {
						if v > d[i] || v != v {
							d[i] = v
						}
					}
				case reduceMin:
					for i, v := range s {
						if v < d[i] || v != v {
							d[i] = v
						}
					}
				}
			}
		}
	})
}
