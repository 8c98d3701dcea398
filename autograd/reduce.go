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
// sum((t - mean)²) / (n - correction).
func Var(t *Tensor, correction int, keepdim bool, axes ...int) *Tensor {
	ax := reduceAxes("Var", t, axes)
	n := 1
	for _, a := range ax {
		n *= t.shape[a]
	}
	dev := Sub(t, Mean(t, true, ax...))
	return DivScalar(Sum(Square(dev), keepdim, ax...), float64(n-correction))
}

// Max returns the maximum over axes. The gradient goes to the elements equal
// to the maximum, split evenly among ties. It panics when a reduced axis is
// empty.
func Max(t *Tensor, keepdim bool, axes ...int) *Tensor {
	return extremeReduce("Max", t, keepdim, axes, reduceMax)
}

// Min returns the minimum over axes, splitting the gradient evenly among
// ties. It panics when a reduced axis is empty.
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
		mask := Eq(t, Reshape(out, kept...))
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
	shift := mapUnary(reduce(t, ax, true, reduceMax), func(x float64) float64 {
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

// ArgMax returns, for every position of the other axes (row-major), the
// index along axis of the largest element; the first one on ties. It panics
// when the axis is empty. It has no gradient.
func ArgMax(t *Tensor, axis int) []int { return argExtreme("ArgMax", t, axis, 1) }

// ArgMin is ArgMax for the smallest element.
func ArgMin(t *Tensor, axis int) []int { return argExtreme("ArgMin", t, axis, -1) }

func argExtreme(op string, t *Tensor, axis int, sign float64) []int {
	a := normAxis(op, axis, t.Dim())
	outer, n, inner := splitAxis(t.shape, a)
	if n == 0 {
		panic(fmt.Sprintf("autograd: %s over the empty axis %d of shape %v", op, axis, t.shape))
	}
	res := make([]int, outer*inner)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			best, bv := 0, sign*t.At(o*n*inner+i)
			for k := 1; k < n; k++ {
				if v := sign * t.At((o*n+k)*inner+i); v > bv {
					best, bv = k, v
				}
			}
			res[o*inner+i] = best
		}
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
		outer, n, inner := splitAxis(cur.shape, ax[i])
		shape := cloneInts(cur.shape)
		shape[ax[i]] = 1
		next := Zeros(t.dtype, shape...)
		if t.dtype == Float64 {
			reduceKernel(next.f64, cur.f64, outer, n, inner, kind)
		} else {
			reduceKernel(next.f32, cur.f32, outer, n, inner, kind)
		}
		cur = next
	}
	if cur == t {
		cur = t.Clone()
	}
	if !keepdim {
		cur.shape = reducedShape(t.shape, ax)
	}
	return cur
}

func reduceKernel[T Float](dst, src []T, outer, n, inner int, kind reduceKind) {
	parallelForCost(outer, n*inner, func(lo, hi int) {
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
