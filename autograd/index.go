package autograd

import "fmt"

// Index ops. Indices are plain []int; each op panics, naming the op, the
// offending index and the shape, when an index is out of range.

// IndexSelect returns the entries of t at positions idx along axis, in that
// order (repeats allowed): the result's axis has length len(idx).
func IndexSelect(t *Tensor, axis int, idx []int) *Tensor {
	a := normAxis("IndexSelect", axis, t.Dim())
	outer, n, inner := splitAxis(t.shape, a)
	checkIndices("IndexSelect", idx, n, t.shape)
	shape := cloneInts(t.shape)
	shape[a] = len(idx)
	out := Empty(t.dev, t.dtype, shape...)
	switch {
	case t.dev != nil:
		kernelsOf[IndexKernels]("IndexSelect", t.dev, "IndexKernels").Gather(out, t, selectOffsets(t.shape, a, idx))
	case t.dtype == Float64:
		indexSelectKernel(out.f64, t.f64, idx, outer, n, inner)
	default:
		indexSelectKernel(out.f32, t.f32, idx, outer, n, inner)
	}
	return Record("IndexSelect", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{IndexAdd(ZerosLike(t), a, idx, g)}
	})
}

func indexSelectKernel[T Float](dst, src []T, idx []int, outer, n, inner int) {
	m := len(idx)
	for o := 0; o < outer; o++ {
		for j, k := range idx {
			copy(dst[(o*m+j)*inner:(o*m+j+1)*inner], src[(o*n+k)*inner:(o*n+k+1)*inner])
		}
	}
}

// IndexAdd returns a copy of t with src's slices added at positions idx
// along axis: out[..., idx[j], ...] += src[..., j, ...]. src has t's shape
// except that its axis has length len(idx).
func IndexAdd(t *Tensor, axis int, idx []int, src *Tensor) *Tensor {
	a := normAxis("IndexAdd", axis, t.Dim())
	checkDType("IndexAdd", t, src)
	outer, n, inner := splitAxis(t.shape, a)
	checkIndices("IndexAdd", idx, n, t.shape)
	want := cloneInts(t.shape)
	want[a] = len(idx)
	if !sameShape(want, src.shape) {
		panic(fmt.Sprintf("autograd: IndexAdd: source shape %v, want %v for %d indices into %v", src.shape, want, len(idx), t.shape))
	}
	out := t.Clone()
	switch {
	case deviceOf("IndexAdd", t, src) != nil:
		kernelsOf[IndexKernels]("IndexAdd", t.dev, "IndexKernels").ScatterAdd(out, src, selectOffsets(t.shape, a, idx))
	case t.dtype == Float64:
		indexAddKernel(out.f64, src.f64, idx, outer, n, inner)
	default:
		indexAddKernel(out.f32, src.f32, idx, outer, n, inner)
	}
	return Record("IndexAdd", out, []*Tensor{t, src}, func(g *Tensor) []*Tensor {
		return []*Tensor{g, IndexSelect(g, a, idx)}
	})
}

// IndexAddAlpha returns a copy of t with alpha·src added at positions idx
// along axis, as torch.index_add(t, axis, idx, src, alpha=alpha).
func IndexAddAlpha(t *Tensor, axis int, idx []int, src *Tensor, alpha float64) *Tensor {
	return IndexAdd(t, axis, idx, MulScalar(src, alpha))
}

func indexAddKernel[T Float](dst, src []T, idx []int, outer, n, inner int) {
	m := len(idx)
	for o := 0; o < outer; o++ {
		for j, k := range idx {
			d, s := dst[(o*n+k)*inner:(o*n+k+1)*inner], src[(o*m+j)*inner:]
			for i := range d {
				d[i] += s[i]
			}
		}
	}
}

// Gather picks one entry of t along axis for every entry of index, as
// torch.gather: out[o, j, i] = t[o, index[o, j, i], i], where o runs over the
// dimensions before axis and i over those after. index is row-major with t's
// shape except along axis, whose length is len(index)/(the other lengths);
// GatherShaped takes smaller index shapes.
func Gather(t *Tensor, axis int, index []int) *Tensor {
	return GatherShaped(t, axis, index, inferIndexShape("Gather", t, axis, index))
}

// GatherShaped is torch.gather(t, axis, index) with index given as
// row-major entries and its shape: out[p] = t[p with its coordinate along
// axis replaced by index[p]], for every position p of the index, so the
// result has the index's shape. As in PyTorch, the index has t's number of
// dimensions and indexShape[d] <= t.Size(d) for every d != axis (any
// length along axis). The gradient scatters back with ScatterAddShaped.
func GatherShaped(t *Tensor, axis int, index, indexShape []int) *Tensor {
	a := normAxis("Gather", axis, t.Dim())
	offs := indexOffsets("Gather", t.shape, a, index, indexShape)
	out := Empty(t.dev, t.dtype, indexShape...)
	switch {
	case t.dev != nil:
		kernelsOf[IndexKernels]("Gather", t.dev, "IndexKernels").Gather(out, t, offs)
	case t.dtype == Float64:
		gatherKernel(out.f64, t.f64, offs)
	default:
		gatherKernel(out.f32, t.f32, offs)
	}
	return Record("Gather", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{ScatterAddShaped(ZerosLike(t), a, index, indexShape, g)}
	})
}

func gatherKernel[T Float](dst, src []T, offs []int) {
	for p, o := range offs {
		dst[p] = src[o]
	}
}

// ScatterAdd returns a copy of t with every entry of src added at the
// position index names along axis, as torch.scatter_add:
// out[o, index[o, j, i], i] += src[o, j, i]. index has src's shape, which is
// t's shape except along axis; ScatterAddShaped takes smaller index shapes.
func ScatterAdd(t *Tensor, axis int, index []int, src *Tensor) *Tensor {
	a := normAxis("ScatterAdd", axis, t.Dim())
	want := cloneInts(t.shape)
	if src.Dim() == t.Dim() {
		want[a] = src.shape[a]
	}
	if !sameShape(want, src.shape) || len(index) != src.Len() {
		panic(fmt.Sprintf("autograd: ScatterAdd: source %v with %d indices into %v along axis %d", src.shape, len(index), t.shape, axis))
	}
	return ScatterAddShaped(t, axis, index, src.shape, src)
}

// ScatterAddShaped is torch.scatter_add(t, axis, index, src) with index
// given as row-major entries and its shape: for every position p of the
// index, out[p with its coordinate along axis replaced by index[p]] +=
// src[p]. As in PyTorch, indexShape[d] <= src.Size(d) for every d and
// indexShape[d] <= t.Size(d) for d != axis; entries of src outside the
// index's shape are not used (their gradient is 0). The gradient of t is
// the upstream gradient, that of src gathers it back (GatherShaped).
func ScatterAddShaped(t *Tensor, axis int, index, indexShape []int, src *Tensor) *Tensor {
	a := normAxis("ScatterAdd", axis, t.Dim())
	checkDType("ScatterAdd", t, src)
	if src.Dim() != len(indexShape) {
		panic(fmt.Sprintf("autograd: ScatterAdd: source %v for an index of shape %v", src.shape, indexShape))
	}
	for d, n := range indexShape {
		if n > src.shape[d] {
			panic(fmt.Sprintf("autograd: ScatterAdd: index shape %v larger than source %v along axis %d", indexShape, src.shape, d))
		}
		if n < src.shape[d] { // PyTorch reads only the index's block of src
			src = Narrow(src, d, 0, n)
		}
	}
	offs := indexOffsets("ScatterAdd", t.shape, a, index, indexShape)
	out := t.Clone()
	switch {
	case deviceOf("ScatterAdd", t, src) != nil:
		kernelsOf[IndexKernels]("ScatterAdd", t.dev, "IndexKernels").ScatterAdd(out, src, offs)
	case t.dtype == Float64:
		scatterAddKernel(out.f64, src.f64, offs)
	default:
		scatterAddKernel(out.f32, src.f32, offs)
	}
	return Record("ScatterAdd", out, []*Tensor{t, src}, func(g *Tensor) []*Tensor {
		return []*Tensor{g, GatherShaped(g, a, index, indexShape)}
	})
}

func scatterAddKernel[T Float](dst, src []T, offs []int) {
	for p, o := range offs {
		dst[o] += src[p]
	}
}

// GatherOffsets returns, for every position of index (row-major, of shape
// indexShape), the flat offset in a tensor of the given shape that
// GatherShaped reads there and ScatterAddShaped adds to. It panics as they
// do on a bad index. A device runs both ops as this one pattern, a gather
// and its transpose.
func GatherOffsets(shape []int, axis int, index, indexShape []int) []int {
	return indexOffsets("Gather", shape, normAxis("Gather", axis, len(shape)), index, indexShape)
}

// indexOffsets checks index against PyTorch's rule for gather and scatter
// into a tensor of the given shape (same number of dimensions,
// indexShape[d] <= shape[d] for d != axis, entries in [0, shape[axis]))
// and returns, for every position of the index, the flat offset in that
// tensor of the same coordinates with the one along axis replaced by the
// index entry.
func indexOffsets(op string, shape []int, axis int, index, indexShape []int) []int {
	if len(indexShape) != len(shape) || numel(indexShape) != len(index) {
		panic(fmt.Sprintf("autograd: %s: %d indices of shape %v for a tensor of shape %v", op, len(index), indexShape, shape))
	}
	for d, n := range indexShape {
		if n < 0 || d != axis && n > shape[d] {
			panic(fmt.Sprintf("autograd: %s: index shape %v does not fit shape %v along axis %d", op, indexShape, shape, d))
		}
	}
	checkIndices(op, index, shape[axis], shape)
	strides := stridesOf(shape)
	offs := make([]int, len(index))
	coord := make([]int, len(indexShape))
	for p, k := range index {
		off := k * strides[axis]
		for d, c := range coord {
			if d != axis {
				off += c * strides[d]
			}
		}
		offs[p] = off
		for d := len(coord) - 1; d >= 0; d-- { // next row-major position
			if coord[d]++; coord[d] < indexShape[d] {
				break
			}
			coord[d] = 0
		}
	}
	return offs
}

// inferIndexShape is t's shape with the length along axis that len(index)
// implies.
func inferIndexShape(op string, t *Tensor, axis int, index []int) []int {
	a := normAxis(op, axis, t.Dim())
	outer, _, inner := splitAxis(t.shape, a)
	shape := cloneInts(t.shape)
	shape[a] = gatherLen(op, t.shape, outer*inner, len(index))
	return shape
}

func gatherLen(op string, shape []int, others, count int) int {
	if others == 0 {
		if count != 0 {
			panic(fmt.Sprintf("autograd: %s: %d indices for the empty shape %v", op, count, shape))
		}
		return 0
	}
	if count%others != 0 {
		panic(fmt.Sprintf("autograd: %s: %d indices do not fill whole slices of shape %v", op, count, shape))
	}
	return count / others
}

func checkIndices(op string, idx []int, n int, shape []int) {
	for _, k := range idx {
		if k < 0 || k >= n {
			panic(fmt.Sprintf("autograd: %s: index %d out of range [0, %d) for shape %v", op, k, n, shape))
		}
	}
}
