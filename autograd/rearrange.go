package autograd

import (
	"fmt"
	"slices"
)

// Rearranging ops with PyTorch's names: Flip, Roll, Repeat, Split, Chunk.
// Each is a composition of ops that already run on every device (an
// IndexSelect of the flattened tensor for Flip and Roll, Expand for
// Repeat, Narrow for Split and Chunk), so their gradients are PyTorch's
// (the inverse permutation, the sum over the copies, the padded slice) and
// can be differentiated again.

// Flip reverses the order of the elements along each of dims, as
// torch.flip(t, dims). Without dims it returns t. It panics on an axis out
// of range or given twice.
func Flip(t *Tensor, dims ...int) *Tensor {
	axes := distinctAxes("Flip", t, dims)
	if len(axes) == 0 {
		return t
	}
	return permuteElements("Flip", t, func(coord []int) {
		for _, a := range axes {
			coord[a] = t.shape[a] - 1 - coord[a]
		}
	})
}

// Roll shifts the elements of t along dims, those pushed past the end
// coming back at the start, as torch.roll(t, shifts, dims): element i
// along dims[k] moves to (i + shifts[k]) mod n. Shifts may be negative or
// larger than the axis. Without dims, t is flattened, rolled by the one
// shift and given its shape back (torch.roll(t, shift)). A dimension may
// be named twice, its shifts adding up. It panics when shifts and dims
// differ in length (or, without dims, there is not exactly one shift).
func Roll(t *Tensor, shifts []int, dims ...int) *Tensor {
	if len(dims) == 0 {
		if len(shifts) != 1 {
			panic(fmt.Sprintf("autograd: Roll: %d shifts without dims (the flattened form takes one shift)", len(shifts)))
		}
		flat := Reshape(t, t.Len())
		return Reshape(Roll(flat, shifts, 0), t.shape...)
	}
	if len(shifts) != len(dims) {
		panic(fmt.Sprintf("autograd: Roll: %d shifts for %d dims (want one shift per dim)", len(shifts), len(dims)))
	}
	total := make([]int, t.Dim())
	for k, d := range dims {
		a := normAxis("Roll", d, t.Dim())
		total[a] += shifts[k]
	}
	if t.Len() == 0 {
		return t
	}
	return permuteElements("Roll", t, func(coord []int) {
		for a, s := range total {
			if n := t.shape[a]; s%n != 0 {
				coord[a] = ((coord[a]-s)%n + n) % n // out[i] = t[i - shift]
			}
		}
	})
}

// permuteElements returns the tensor of t's shape whose element at each
// coordinate is t's element at the coordinate source makes of it (in
// place). It is one IndexSelect of the flattened t, so its gradient
// scatters back with IndexAdd, on any device.
func permuteElements(op string, t *Tensor, source func(coord []int)) *Tensor {
	strides := stridesOf(t.shape)
	idx := make([]int, t.Len())
	coord := make([]int, t.Dim())
	src := make([]int, t.Dim())
	for i := range idx {
		copy(src, coord)
		source(src)
		for d, c := range src {
			idx[i] += c * strides[d]
		}
		for d := len(coord) - 1; d >= 0; d-- { // next row-major coordinate
			if coord[d]++; coord[d] < t.shape[d] {
				break
			}
			coord[d] = 0
		}
	}
	return Reshape(IndexSelect(Reshape(t, t.Len()), 0, idx), t.shape...)
}

// distinctAxes normalises dims, panicking (naming op) on one out of range
// or named twice.
func distinctAxes(op string, t *Tensor, dims []int) []int {
	axes := make([]int, len(dims))
	for i, d := range dims {
		axes[i] = normAxis(op, d, t.Dim())
		if slices.Contains(axes[:i], axes[i]) {
			panic(fmt.Sprintf("autograd: %s: dims %v name axis %d twice", op, dims, axes[i]))
		}
	}
	return axes
}

// Repeat tiles t, as torch.Tensor.repeat(sizes): the result's dimension d
// is t's times sizes[d]. sizes has at least t.Dim() entries; when it has
// more, t is first given leading dimensions of length 1, so [3].Repeat(4,
// 2) is [4, 6]. The gradient of each element of t is the sum over its
// copies. It panics on fewer sizes than dimensions or a negative size.
func Repeat(t *Tensor, sizes ...int) *Tensor {
	if len(sizes) < t.Dim() {
		panic(fmt.Sprintf("autograd: Repeat: %d sizes %v for the %d dimensions of %v (want at least one per dimension)", len(sizes), sizes, t.Dim(), t.shape))
	}
	lead := len(sizes) - t.Dim()
	// t as [1, s0, 1, s1, ...], expanded to [r0, s0, r1, s1, ...] and
	// merged to [r0·s0, r1·s1, ...]: the copies of each axis lie outside it.
	pairs, expanded, out := make([]int, 0, 2*len(sizes)), make([]int, 0, 2*len(sizes)), make([]int, len(sizes))
	for d, r := range sizes {
		if r < 0 {
			panic(fmt.Sprintf("autograd: Repeat: negative size %d in %v", r, sizes))
		}
		s := 1
		if d >= lead {
			s = t.shape[d-lead]
		}
		pairs = append(pairs, 1, s)
		expanded = append(expanded, r, s)
		out[d] = r * s
	}
	return Reshape(Expand(Reshape(t, pairs...), expanded...), out...)
}

// Split cuts t along axis into pieces of size elements, the last one
// shorter when size does not divide the axis, as torch.split(t, size,
// axis). An empty axis gives one empty piece. Each piece is a copy whose
// gradient flows back into its slice of t. It panics on a size below 1
// (unless the axis is empty).
func Split(t *Tensor, size, axis int) []*Tensor {
	a := normAxis("Split", axis, t.Dim())
	n := t.shape[a]
	if size < 1 && !(size == 0 && n == 0) {
		panic(fmt.Sprintf("autograd: Split: piece size %d for axis %d of %v (want at least 1)", size, axis, t.shape))
	}
	if n == 0 {
		return []*Tensor{t}
	}
	var sizes []int
	for start := 0; start < n; start += size {
		sizes = append(sizes, min(size, n-start))
	}
	return SplitSizes(t, sizes, a)
}

// SplitSizes cuts t along axis into consecutive pieces of the given sizes,
// which must add up to the axis's length, as torch.split(t, sizes, axis).
func SplitSizes(t *Tensor, sizes []int, axis int) []*Tensor {
	a := normAxis("Split", axis, t.Dim())
	total := 0
	for _, s := range sizes {
		if s < 0 {
			panic(fmt.Sprintf("autograd: Split: negative size in %v", sizes))
		}
		total += s
	}
	if total != t.shape[a] {
		panic(fmt.Sprintf("autograd: Split: sizes %v add up to %d, but axis %d of %v has %d elements", sizes, total, axis, t.shape, t.shape[a]))
	}
	pieces := make([]*Tensor, len(sizes))
	start := 0
	for i, s := range sizes {
		pieces[i] = Narrow(t, a, start, s)
		start += s
	}
	return pieces
}

// Chunk cuts t along axis into at most n pieces of ceil(len/n) elements,
// the last one shorter, as torch.chunk(t, n, axis); like PyTorch it may
// return fewer than n pieces (an axis of 5 in 4 chunks gives 2, 2, 1),
// and an empty axis gives n empty pieces. It panics when n < 1.
func Chunk(t *Tensor, n, axis int) []*Tensor {
	a := normAxis("Chunk", axis, t.Dim())
	if n < 1 {
		panic(fmt.Sprintf("autograd: Chunk: %d chunks (want at least 1)", n))
	}
	if t.shape[a] == 0 {
		return SplitSizes(t, make([]int, n), a)
	}
	return Split(t, (t.shape[a]+n-1)/n, a)
}
