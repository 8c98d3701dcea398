package autograd

import "fmt"

// Pad returns t padded with the constant value, PyTorch's F.pad order: pads
// holds (before, after) pairs starting from the LAST dimension, so
// Pad(t, 0, 1, 2) adds one element before and two after along the last axis.
// It panics on an odd count, negative pads or more pairs than dimensions.
func Pad(t *Tensor, value float64, pads ...int) *Tensor {
	if len(pads)%2 != 0 || len(pads)/2 > t.Dim() {
		panic(fmt.Sprintf("autograd: Pad: pads %v for shape %v", pads, t.shape))
	}
	before, after := make([]int, t.Dim()), make([]int, t.Dim())
	for i := 0; i < len(pads)/2; i++ {
		d := t.Dim() - 1 - i
		before[d], after[d] = pads[2*i], pads[2*i+1]
		if pads[2*i] < 0 || pads[2*i+1] < 0 {
			panic(fmt.Sprintf("autograd: Pad: negative pads %v for shape %v", pads, t.shape))
		}
	}
	return padAxes(t, before, after, value)
}

// padAxes pads each dimension d with before[d] and after[d] elements.
func padAxes(t *Tensor, before, after []int, value float64) *Tensor {
	shape := cloneInts(t.shape)
	for d := range shape {
		shape[d] += before[d] + after[d]
	}
	out := Full(t.dtype, value, shape...)
	copyBlock(out, before, t, make([]int, t.Dim()), t.shape)
	return Record("Pad", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		gt := Zeros(g.dtype, t.shape...)
		copyBlock(gt, make([]int, t.Dim()), g, before, t.shape)
		return []*Tensor{gt}
	})
}

// copyBlock copies the block of the given size starting at index soff of src
// to the block starting at index doff of dst.
func copyBlock(dst *Tensor, doff []int, src *Tensor, soff, size []int) {
	if numel(size) == 0 {
		return
	}
	ds, ss := stridesOf(dst.shape), stridesOf(src.shape)
	d0, s0 := 0, 0
	for d := range size {
		d0 += doff[d] * ds[d]
		s0 += soff[d] * ss[d]
	}
	if dst.dtype == Float64 {
		copyBlockKernel(dst.f64[d0:], ds, src.f64[s0:], ss, size)
	} else {
		copyBlockKernel(dst.f32[d0:], ds, src.f32[s0:], ss, size)
	}
}

func copyBlockKernel[T Float](dst []T, ds []int, src []T, ss []int, size []int) {
	inner := 1
	if n := len(size); n > 0 {
		inner = size[n-1]
	}
	parallelForCost(numel(size)/inner, inner, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			do, so := rowOffset(r, size, ds), rowOffset(r, size, ss)
			copy(dst[do:do+inner], src[so:so+inner])
		}
	})
}
