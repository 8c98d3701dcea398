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
	out := Zeros(t.dtype, shape...)
	if t.dtype == Float64 {
		indexSelectKernel(out.f64, t.f64, idx, outer, n, inner)
	} else {
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
	if t.dtype == Float64 {
		indexAddKernel(out.f64, src.f64, idx, outer, n, inner)
	} else {
		indexAddKernel(out.f32, src.f32, idx, outer, n, inner)
	}
	return Record("IndexAdd", out, []*Tensor{t, src}, func(g *Tensor) []*Tensor {
		return []*Tensor{g, IndexSelect(g, a, idx)}
	})
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
// shape except along axis, whose length is len(index)/(the other lengths).
func Gather(t *Tensor, axis int, index []int) *Tensor {
	a := normAxis("Gather", axis, t.Dim())
	outer, n, inner := splitAxis(t.shape, a)
	m := gatherLen("Gather", t.shape, outer*inner, len(index))
	checkIndices("Gather", index, n, t.shape)
	shape := cloneInts(t.shape)
	shape[a] = m
	out := Zeros(t.dtype, shape...)
	if t.dtype == Float64 {
		gatherKernel(out.f64, t.f64, index, outer, n, m, inner)
	} else {
		gatherKernel(out.f32, t.f32, index, outer, n, m, inner)
	}
	return Record("Gather", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{ScatterAdd(ZerosLike(t), a, index, g)}
	})
}

func gatherKernel[T Float](dst, src []T, index []int, outer, n, m, inner int) {
	for o := 0; o < outer; o++ {
		for j := 0; j < m; j++ {
			for i := 0; i < inner; i++ {
				p := (o*m+j)*inner + i
				dst[p] = src[(o*n+index[p])*inner+i]
			}
		}
	}
}

// ScatterAdd returns a copy of t with every entry of src added at the
// position index names along axis, as torch.scatter_add:
// out[o, index[o, j, i], i] += src[o, j, i]. index has src's shape, which is
// t's shape except along axis.
func ScatterAdd(t *Tensor, axis int, index []int, src *Tensor) *Tensor {
	a := normAxis("ScatterAdd", axis, t.Dim())
	checkDType("ScatterAdd", t, src)
	outer, n, inner := splitAxis(t.shape, a)
	want := cloneInts(t.shape)
	want[a] = src.shape[a]
	if src.Dim() != t.Dim() || !sameShape(want, src.shape) || len(index) != src.Len() {
		panic(fmt.Sprintf("autograd: ScatterAdd: source %v with %d indices into %v along axis %d", src.shape, len(index), t.shape, axis))
	}
	checkIndices("ScatterAdd", index, n, t.shape)
	m := src.shape[a]
	out := t.Clone()
	if t.dtype == Float64 {
		scatterAddKernel(out.f64, src.f64, index, outer, n, m, inner)
	} else {
		scatterAddKernel(out.f32, src.f32, index, outer, n, m, inner)
	}
	return Record("ScatterAdd", out, []*Tensor{t, src}, func(g *Tensor) []*Tensor {
		return []*Tensor{g, Gather(g, a, index)}
	})
}

func scatterAddKernel[T Float](dst, src []T, index []int, outer, n, m, inner int) {
	for o := 0; o < outer; o++ {
		for j := 0; j < m; j++ {
			for i := 0; i < inner; i++ {
				p := (o*m+j)*inner + i
				dst[(o*n+index[p])*inner+i] += src[p]
			}
		}
	}
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
