package gpu

import (
	"fmt"
	"slices"
)

// Shape ops on row-major tensors in device buffers: the GPU side of
// autograd's Permute, Transpose, Expand, Narrow, Cat, Stack and Pad, and
// the sum that is Expand's gradient. Reshape, Squeeze, Unsqueeze and
// Flatten need no kernel: the buffer is the same, only its shape changes.
// Each copy is one dispatch of strided_copy.wgsl over the output.

// maxLayoutDims is how many dimensions strided_copy.wgsl and sum_to.wgsl
// address after dimensions of length 1 are dropped and adjacent ones merged.
const maxLayoutDims = 6

// contiguous returns the row-major element strides of shape.
func contiguous(shape []int) []int {
	s := make([]int, len(shape))
	stride := 1
	for d := len(shape) - 1; d >= 0; d-- {
		s[d] = stride
		stride *= shape[d]
	}
	return s
}

// layoutOf returns the uniform walking dims (outermost first; a is the
// source stride, b the destination's) from the given offsets, after
// dropping dimensions of length 1 and merging those that walk as one. The
// last reduced dimensions are summed over (sum_to.wgsl). ok is false when
// the block is empty.
func layoutOf(op string, dims []walkDim, reduced, srcOff, dstOff int) (p layoutParams, ok bool) {
	var kept, summed []walkDim
	reduce := 1
	for i, d := range dims {
		switch {
		case d.size == 0:
			return p, false
		case d.size == 1:
		case i >= len(dims)-reduced:
			summed = append(summed, d)
			reduce *= d.size
		default:
			kept = append(kept, d)
		}
	}
	dims = append(mergeWalk(kept), mergeWalk(summed)...)
	if len(dims) > maxLayoutDims {
		panic(fmt.Sprintf("gpu: %s: %d dimensions that cannot be merged, at most %d", op, len(dims), maxLayoutDims))
	}
	for len(dims) < maxLayoutDims {
		dims = append([]walkDim{{1, 0, 0}}, dims...)
	}
	n := 1
	for i, d := range dims {
		p.Dims[i], p.SrcStrides[i], p.DstStrides[i] = uint32(d.size), uint32(d.a), uint32(d.b)
		n *= d.size
	}
	p.N, p.Reduce = uint32(n/reduce), uint32(reduce)
	p.SrcOff, p.DstOff = uint32(srcOff), uint32(dstOff)
	return p, true
}

// copyStrided records strided_copy.wgsl over dims (outermost first). A
// copy of more dimensions than the kernel addresses runs as one dispatch
// per index of its outermost ones.
func (o Ops) copyStrided(op string, dst, src *Buffer, dims []walkDim, srcOff, dstOff int) error {
	checkReach(op, src, dims, srcOff, func(d walkDim) int { return d.a })
	checkReach(op, dst, dims, dstOff, func(d walkDim) int { return d.b })
	var kept []walkDim
	for _, d := range dims {
		if d.size == 0 {
			return nil
		}
		if d.size != 1 {
			kept = append(kept, d)
		}
	}
	if kept = mergeWalk(kept); len(kept) > maxLayoutDims {
		for i := range kept[0].size {
			if err := o.copyStrided(op, dst, src, kept[1:], srcOff+i*kept[0].a, dstOff+i*kept[0].b); err != nil {
				return err
			}
		}
		return nil
	}
	par, _ := layoutOf(op, kept, 0, srcOff, dstOff)
	return o.dispatch("strided_copy.wgsl", int(par.N), par, src, dst)
}

// checkReach panics if walking dims from off would leave b.
func checkReach(op string, b *Buffer, dims []walkDim, off int, stride func(walkDim) int) {
	last := off
	for _, d := range dims {
		if d.size == 0 {
			return
		}
		last += (d.size - 1) * stride(d)
	}
	if last >= b.N {
		panic(fmt.Sprintf("gpu: %s reaches element %d of buffer %q of %d", op, last, b.Label, b.N))
	}
}

// Permute records dst = x (of shape) with its dimensions reordered:
// dimension i of dst is dimension perm[i] of x, as autograd.Permute.
func (o Ops) Permute(dst, x *Buffer, shape []int, perm ...int) error {
	if len(perm) != len(shape) {
		panic(fmt.Sprintf("gpu: Permute: permutation %v for shape %v", perm, shape))
	}
	own := contiguous(shape)
	out := make([]int, len(perm))
	seen := make([]bool, len(perm))
	for i, a := range perm {
		if a < 0 || a >= len(shape) || seen[a] {
			panic(fmt.Sprintf("gpu: Permute: %v is not a permutation of the axes of %v", perm, shape))
		}
		seen[a], out[i] = true, shape[a]
	}
	dstStrides := contiguous(out)
	dims := make([]walkDim, len(perm))
	for i, a := range perm {
		dims[i] = walkDim{out[i], own[a], dstStrides[i]}
	}
	return o.copyStrided("Permute", dst, x, dims, 0, 0)
}

// Expand records dst = x (of shape) broadcast to shape to, as
// autograd.Expand: x's dimensions align with the trailing ones of to and
// equal them or are 1.
func (o Ops) Expand(dst, x *Buffer, shape, to []int) error {
	off := len(to) - len(shape)
	if off < 0 {
		panic(fmt.Sprintf("gpu: Expand: cannot expand %v to %v", shape, to))
	}
	own, dstStrides := contiguous(shape), contiguous(to)
	dims := make([]walkDim, len(to))
	for d, size := range to {
		dims[d] = walkDim{size, 0, dstStrides[d]}
		if d >= off {
			if s := shape[d-off]; s != size && s != 1 {
				panic(fmt.Sprintf("gpu: Expand: cannot expand %v to %v", shape, to))
			} else if s == size {
				dims[d].a = own[d-off]
			}
		}
	}
	return o.copyStrided("Expand", dst, x, dims, 0, 0)
}

// CopyBlock records copying the block of size size starting at srcStart in
// src (of shape srcShape) to dstStart in dst (of shape dstShape).
func (o Ops) CopyBlock(dst *Buffer, dstShape, dstStart []int, src *Buffer, srcShape, srcStart, size []int) error {
	if len(dstShape) != len(size) || len(srcShape) != len(size) || len(dstStart) != len(size) || len(srcStart) != len(size) {
		panic(fmt.Sprintf("gpu: CopyBlock of %v from %v at %v to %v at %v: ranks differ", size, srcShape, srcStart, dstShape, dstStart))
	}
	ss, ds := contiguous(srcShape), contiguous(dstShape)
	dims := make([]walkDim, len(size))
	srcOff, dstOff := 0, 0
	for d := range size {
		if srcStart[d] < 0 || dstStart[d] < 0 || srcStart[d]+size[d] > srcShape[d] || dstStart[d]+size[d] > dstShape[d] {
			panic(fmt.Sprintf("gpu: CopyBlock of %v from %v at %v to %v at %v: out of bounds on axis %d", size, srcShape, srcStart, dstShape, dstStart, d))
		}
		dims[d] = walkDim{size[d], ss[d], ds[d]}
		srcOff += srcStart[d] * ss[d]
		dstOff += dstStart[d] * ds[d]
	}
	return o.copyStrided("CopyBlock", dst, src, dims, srcOff, dstOff)
}

// Narrow records dst = the slice of x (of shape) along axis from start,
// length elements long, as autograd.Narrow.
func (o Ops) Narrow(dst, x *Buffer, shape []int, axis, start, length int) error {
	size := slices.Clone(shape)
	size[axis] = length
	from := make([]int, len(shape))
	from[axis] = start
	return o.CopyBlock(dst, size, make([]int, len(shape)), x, shape, from, size)
}

// Cat records dst = the tensors xs (of shapes) joined along axis, as
// autograd.Cat: one copy per input.
func (o Ops) Cat(dst *Buffer, axis int, xs []*Buffer, shapes [][]int) error {
	if len(xs) == 0 || len(xs) != len(shapes) {
		panic(fmt.Sprintf("gpu: Cat of %d buffers with %d shapes", len(xs), len(shapes)))
	}
	out := slices.Clone(shapes[0])
	out[axis] = 0
	for _, s := range shapes {
		out[axis] += s[axis]
	}
	at := make([]int, len(out))
	for i, x := range xs {
		if err := o.CopyBlock(dst, out, at, x, shapes[i], make([]int, len(out)), shapes[i]); err != nil {
			return err
		}
		at[axis] += shapes[i][axis]
	}
	return nil
}

// Stack records dst = the tensors xs, all of shape, joined along a new axis,
// as autograd.Stack.
func (o Ops) Stack(dst *Buffer, axis int, xs []*Buffer, shape []int) error {
	shapes := make([][]int, len(xs))
	for i := range xs {
		shapes[i] = slices.Insert(slices.Clone(shape), axis, 1)
	}
	return o.Cat(dst, axis, xs, shapes)
}

// PadZero records dst = x (of shape) padded with zeros by before[d] and
// after[d] elements on each axis d, as autograd.Pad with value 0; a
// negative pad crops. dst is cleared, then x's kept block copied in.
func (o Ops) PadZero(dst, x *Buffer, shape, before, after []int) error {
	out := make([]int, len(shape))
	from, at, size := make([]int, len(shape)), make([]int, len(shape)), make([]int, len(shape))
	for d, n := range shape {
		out[d] = n + before[d] + after[d]
		from[d], at[d] = max(-before[d], 0), max(before[d], 0)
		size[d] = n - from[d] - max(-after[d], 0)
		if out[d] < 0 || size[d] < 0 {
			panic(fmt.Sprintf("gpu: PadZero of %v by %v, %v: a negative length on axis %d", shape, before, after, d))
		}
	}
	o.r.Clear(dst)
	return o.CopyBlock(dst, out, at, x, shape, from, size)
}

// SumTo records dst = x (of shape) summed to shape to, as autograd sums the
// gradient of an operand broadcast from to: over the leading dimensions x
// has beyond to, and over those that are 1 in to.
func (o Ops) SumTo(dst, x *Buffer, shape, to []int) error {
	lead := len(shape) - len(to)
	if lead < 0 {
		panic(fmt.Sprintf("gpu: SumTo: cannot sum %v to %v", shape, to))
	}
	own := contiguous(shape)
	var kept, summed []walkDim
	for d, size := range shape {
		switch {
		case d >= lead && to[d-lead] == size:
			kept = append(kept, walkDim{size, own[d], 0})
		case d < lead || to[d-lead] == 1:
			summed = append(summed, walkDim{size, own[d], 0})
		default:
			panic(fmt.Sprintf("gpu: SumTo: cannot sum %v to %v", shape, to))
		}
	}
	n := numel(to)
	if n == 0 {
		return nil
	}
	if numel(shape) == 0 { // a sum of nothing
		o.r.Clear(dst)
		return nil
	}
	par, _ := layoutOf("SumTo", append(kept, summed...), len(summed), 0, 0)
	checkReach("SumTo", x, append(kept, summed...), 0, func(d walkDim) int { return d.a })
	if dst.N < n {
		panic(fmt.Sprintf("gpu: SumTo of %v to %v into buffer %q of %d", shape, to, dst.Label, dst.N))
	}
	return o.dispatch("sum_to.wgsl", n, par, x, dst)
}
