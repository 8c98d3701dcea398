package autograd

import (
	"fmt"
	"math"
	"slices"
)

// Order statistics: Median and Quantile. Choosing the elements needs their
// values, so the order is found on the host (a tensor on a device is read
// back, as ArgMax does); the values are then picked with GatherShaped on
// the tensor's own device, so the gradient flows to the chosen elements
// (ScatterAdd) as in PyTorch. As PyTorch, a slice holding a NaN gives NaN
// (and its gradient goes to that NaN).

// Median returns the median of all of t's elements (0-D), as
// torch.median(t): for an even count the lower of the two middle values,
// not their mean. The gradient goes to the chosen element alone. It panics
// on an empty tensor.
func Median(t *Tensor) *Tensor {
	v, _ := MedianDim(Reshape(t, t.Len()), 0, false)
	return v
}

// MedianDim returns the median of each slice of t along axis and its index
// there, as torch.median(t, axis, keepdim): the lower middle value of the
// sorted slice (the first NaN when the slice holds one). The result has t's
// shape without axis (with length 1 there when keepdim); the indices are
// row-major over that shape. Among equal values the index is that of the
// one a stable sort puts in the middle. The gradient goes to the returned
// index. It panics on an empty axis.
func MedianDim(t *Tensor, axis int, keepdim bool) (*Tensor, []int) {
	a := normAxis("Median", axis, t.Dim())
	if t.shape[a] == 0 {
		panic(fmt.Sprintf("autograd: Median over the empty axis %d of shape %v", axis, t.shape))
	}
	idx := make([]int, 0, t.Len()/t.shape[a])
	forEachSortedSlice("Median", t, a, func(order []int, nan int) {
		if nan >= 0 {
			idx = append(idx, nan)
		} else {
			idx = append(idx, order[(len(order)-1)/2])
		}
	})
	return pickAlong(t, a, idx, 1, keepdim), idx
}

// Interpolation is how Quantile picks a value when the quantile falls
// between two sorted elements a <= b, at fraction f of the way from a:
// torch.quantile's interpolation argument.
type Interpolation int

const (
	// InterpolateLinear gives a + (b - a)·f (the default), with gradient
	// 1-f to a and f to b.
	InterpolateLinear Interpolation = iota
	// InterpolateLower gives a.
	InterpolateLower
	// InterpolateHigher gives b.
	InterpolateHigher
	// InterpolateNearest gives a or b, whichever is nearer, rounding the
	// position half to even as torch.round does (PyTorch's rule).
	InterpolateNearest
	// InterpolateMidpoint gives (a + b)/2, half the gradient to each.
	InterpolateMidpoint
)

// QuantileConfig holds Quantile's options. The zero value is PyTorch's
// default: over all elements, linear interpolation.
type QuantileConfig struct {
	// AlongAxis reduces along Axis; otherwise the input is flattened
	// (PyTorch's dim=None).
	AlongAxis bool
	Axis      int
	// Keepdim keeps the reduced axis with length 1 (every axis, when
	// flattened), as keepdim=True.
	Keepdim       bool
	Interpolation Interpolation
}

// Quantile returns the q-th quantile of t, as torch.quantile(t, q, dim,
// keepdim, interpolation=...) with a scalar q: the sorted slice's value at
// position q·(n-1), between elements interpolated by cfg.Interpolation.
// The gradient goes to the one or two elements used. It panics when q is
// outside [0, 1] or the slice is empty.
func Quantile(t *Tensor, q float64, cfg QuantileConfig) *Tensor {
	out := Quantiles(t, []float64{q}, cfg)
	return Squeeze(out, 0)
}

// Quantiles is Quantile for a list of quantiles, as torch.quantile with a
// 1-D q: the result's first dimension runs over qs, the rest is the
// reduced shape.
func Quantiles(t *Tensor, qs []float64, cfg QuantileConfig) *Tensor {
	for _, q := range qs {
		if !(q >= 0 && q <= 1) {
			panic(fmt.Sprintf("autograd: Quantile: q = %v outside [0, 1]", q))
		}
	}
	if cfg.Interpolation < InterpolateLinear || cfg.Interpolation > InterpolateMidpoint {
		panic(fmt.Sprintf("autograd: Quantile: unknown interpolation %d", int(cfg.Interpolation)))
	}
	x, a := t, 0
	if cfg.AlongAxis {
		a = normAxis("Quantile", cfg.Axis, t.Dim())
	} else {
		x = Reshape(t, t.Len())
	}
	if x.shape[a] == 0 {
		panic(fmt.Sprintf("autograd: Quantile over the empty axis %d of shape %v", a, x.shape))
	}
	// For each slice and q: the lower and upper element and the fraction.
	lo, hi := make([]int, 0, len(qs)*x.Len()/x.shape[a]), []int{}
	var frac []float64
	forEachSortedSlice("Quantile", x, a, func(order []int, nan int) {
		for _, q := range qs {
			pos := q * float64(len(order)-1)
			below, above := int(math.Floor(pos)), int(math.Ceil(pos))
			f := pos - float64(below)
			switch cfg.Interpolation {
			case InterpolateLower:
				above, f = below, 0
			case InterpolateHigher:
				below, f = above, 0
			case InterpolateNearest:
				below = int(math.RoundToEven(pos))
				above, f = below, 0
			case InterpolateMidpoint:
				f = 0.5
			}
			i, j := order[below], order[above]
			if nan >= 0 {
				i, j, f = nan, nan, 0
			}
			lo, hi, frac = append(lo, i), append(hi, j), append(frac, f)
		}
	})
	// lo and hi are laid out [outer, inner, q]: gather along a with the
	// slices' q values in place of the axis, then move q first.
	outer, _, inner := splitAxis(x.shape, a)
	reorder := func(v []int) []int { // [outer, inner, q] -> [outer, q, inner]
		r := make([]int, len(v))
		for o := range outer {
			for i := range inner {
				for k := range qs {
					r[(o*len(qs)+k)*inner+i] = v[(o*inner+i)*len(qs)+k]
				}
			}
		}
		return r
	}
	below := pickAlong(x, a, reorder(lo), len(qs), true)
	out := below
	if cfg.Interpolation == InterpolateLinear || cfg.Interpolation == InterpolateMidpoint {
		above := pickAlong(x, a, reorder(hi), len(qs), true)
		w := Zeros(Float64, below.shape...)
		for o := range outer {
			for i := range inner {
				for k := range qs {
					w.f64[(o*len(qs)+k)*inner+i] = frac[(o*inner+i)*len(qs)+k]
				}
			}
		}
		w = constantOn(x.dev, Cast(w, x.dtype))
		out = Add(below, Mul(w, Sub(above, below))) // torch.lerp
	}
	out = Unsqueeze(out, 0)      // [1, ..., q, ...]
	out = Transpose(out, 0, a+1) // [q, ..., 1, ...]
	if !cfg.Keepdim {
		out = Squeeze(out, a+1)
	} else if !cfg.AlongAxis { // [q, 1, 1, ...]: every axis of t kept
		out = Reshape(out, append([]int{len(qs)}, onesShape(t.Dim())...)...)
	}
	return out
}

func onesShape(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// forEachSortedSlice calls visit for every slice of t along axis a, in
// row-major order of the other axes, with the slice's positions sorted by
// value (stable, so equal values keep their order) and the position of its
// first NaN (-1 for none). A tensor on a device is read back first.
func forEachSortedSlice(op string, t *Tensor, a int, visit func(order []int, nan int)) {
	vals := t
	if t.dev != nil {
		c, err := t.NoGrad().To(CPU)
		if err != nil {
			panic(fmt.Sprintf("autograd: %s of a tensor of shape %v on %v: %v", op, t.shape, t.dev, err))
		}
		vals = c
	}
	x := vals.Float64s()
	outer, n, inner := splitAxis(t.shape, a)
	order, v := make([]int, n), make([]float64, n)
	for o := range outer {
		for i := range inner {
			nan := -1
			for k := range n {
				v[k] = x[(o*n+k)*inner+i]
				order[k] = k
				if nan < 0 && math.IsNaN(v[k]) {
					nan = k
				}
			}
			slices.SortStableFunc(order, func(p, q int) int {
				switch {
				case v[p] < v[q]:
					return -1
				case v[p] > v[q]:
					return 1
				}
				return 0
			})
			visit(order, nan)
		}
	}
}

// pickAlong gathers from t along a, at m positions per slice given
// row-major over t's shape with length m along a; with m == 1 and not
// keepdim, the axis is dropped.
func pickAlong(t *Tensor, a int, idx []int, m int, keepdim bool) *Tensor {
	shape := cloneInts(t.shape)
	shape[a] = m
	out := GatherShaped(t, a, idx, shape)
	if !keepdim {
		out = Squeeze(out, a)
	}
	return out
}
