package autograd

import (
	"fmt"
	"slices"
)

// Shape ops. Reshape returns a view sharing its input's storage; the others
// copy. Each panics, naming the op and the shapes, on an invalid axis, range
// or shape.

// Reshape returns t with a new shape holding the same number of elements.
// One dimension may be -1, inferred from the others. The result shares t's
// storage.
func Reshape(t *Tensor, shape ...int) *Tensor {
	shape = inferShape(t, shape)
	out := &Tensor{shape: shape, dtype: t.dtype, f32: t.f32, f64: t.f64, dev: t.dev, store: t.store}
	return Record("Reshape", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Reshape(g, t.shape...)}
	})
}

func inferShape(t *Tensor, shape []int) []int {
	shape = cloneInts(shape)
	infer, known := -1, 1
	for d, s := range shape {
		switch {
		case s == -1 && infer < 0:
			infer = d
		case s < 0:
			panic(fmt.Sprintf("autograd: Reshape: invalid shape %v for a tensor of shape %v", shape, t.shape))
		default:
			known *= s
		}
	}
	if infer >= 0 && known > 0 && t.Len()%known == 0 {
		shape[infer] = t.Len() / known
	}
	if infer >= 0 && shape[infer] < 0 || numel(shape) != t.Len() {
		panic(fmt.Sprintf("autograd: Reshape: cannot reshape %v (%d elements) to %v", t.shape, t.Len(), shape))
	}
	return shape
}

// Flatten returns t reshaped to [d0, d1*d2*...]: one row per leading index.
// It panics on a 0-D tensor.
func Flatten(t *Tensor) *Tensor {
	if t.Dim() == 0 {
		panic("autograd: Flatten of a 0-D tensor")
	}
	return Reshape(t, t.shape[0], numel(t.shape[1:]))
}

// Unsqueeze returns t with a dimension of length 1 inserted at axis (which
// may be t.Dim(), or negative counting from the end of the result).
func Unsqueeze(t *Tensor, axis int) *Tensor {
	a := normAxis("Unsqueeze", axis, t.Dim()+1)
	return Reshape(t, slices.Insert(cloneInts(t.shape), a, 1)...)
}

// Squeeze returns t without dimension axis, which must have length 1.
func Squeeze(t *Tensor, axis int) *Tensor {
	a := normAxis("Squeeze", axis, t.Dim())
	if t.shape[a] != 1 {
		panic(fmt.Sprintf("autograd: Squeeze: axis %d of shape %v has length %d, not 1", axis, t.shape, t.shape[a]))
	}
	return Reshape(t, slices.Delete(cloneInts(t.shape), a, a+1)...)
}

// Permute returns t with its dimensions reordered: dimension i of the result
// is dimension perm[i] of t. It panics unless perm is a permutation of
// 0..t.Dim()-1.
func Permute(t *Tensor, perm ...int) *Tensor {
	if len(perm) != t.Dim() {
		panic(fmt.Sprintf("autograd: Permute: permutation %v for shape %v", perm, t.shape))
	}
	seen := make([]bool, len(perm))
	shape, strides := make([]int, len(perm)), make([]int, len(perm))
	own := stridesOf(t.shape)
	inv := make([]int, len(perm))
	for i, p := range perm {
		p = normAxis("Permute", p, t.Dim())
		if seen[p] {
			panic(fmt.Sprintf("autograd: Permute: permutation %v for shape %v repeats an axis", perm, t.shape))
		}
		seen[p] = true
		shape[i], strides[i], inv[p] = t.shape[p], own[p], i
	}
	out := strided(t, shape, strides)
	return Record("Permute", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Permute(g, inv...)}
	})
}

// Transpose returns t with axes a and b swapped.
func Transpose(t *Tensor, a, b int) *Tensor {
	perm := make([]int, t.Dim())
	for i := range perm {
		perm[i] = i
	}
	a, b = normAxis("Transpose", a, t.Dim()), normAxis("Transpose", b, t.Dim())
	perm[a], perm[b] = perm[b], perm[a]
	return Permute(t, perm...)
}

// Expand returns t broadcast to shape (a copy). t's dimensions align with the
// trailing ones of shape and must equal them or be 1; -1 keeps t's length.
func Expand(t *Tensor, shape ...int) *Tensor {
	shape = cloneInts(shape)
	off := len(shape) - t.Dim()
	if off < 0 {
		panic(fmt.Sprintf("autograd: Expand: cannot expand %v to %v", t.shape, shape))
	}
	for d, s := range t.shape {
		if shape[off+d] == -1 {
			shape[off+d] = s
		}
		if s != 1 && s != shape[off+d] {
			panic(fmt.Sprintf("autograd: Expand: cannot expand %v to %v", t.shape, shape))
		}
	}
	if sameShape(shape, t.shape) {
		return t
	}
	out := strided(t, shape, broadcastStrides(t.shape, shape))
	return Record("Expand", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{sumTo(g, t.shape)}
	})
}

// strided returns a contiguous tensor of the given shape whose element at
// index i is t's element at offset sum(i[d]*strides[d]).
func strided(t *Tensor, shape, strides []int) *Tensor {
	if t.dev != nil {
		out := newOn(t.dev, t.dtype, shape)
		elementwiseOf("Expand and Permute", t.dev).Strided(out, t, strides)
		return out
	}
	out := Zeros(t.dtype, shape...)
	if t.dtype == Float64 {
		stridedKernel(out.f64, t.f64, shape, strides)
	} else {
		stridedKernel(out.f32, t.f32, shape, strides)
	}
	return out
}

func stridedKernel[T Float](dst, src []T, shape, strides []int) {
	if len(dst) == 0 {
		return
	}
	inner, step := 1, 0
	if n := len(shape); n > 0 {
		inner, step = shape[n-1], strides[n-1]
	}
	parallelForCost(len(dst)/inner, inner, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			off := rowOffset(r, shape, strides)
			row := dst[r*inner : (r+1)*inner]
			for j := range row {
				row[j] = src[off+j*step]
			}
		}
	})
}

// Narrow returns the slice of t along axis from start, length elements long.
func Narrow(t *Tensor, axis, start, length int) *Tensor {
	a := normAxis("Narrow", axis, t.Dim())
	if start < 0 || length < 0 || start+length > t.shape[a] {
		panic(fmt.Sprintf("autograd: Narrow: range [%d, %d) out of bounds for axis %d of shape %v", start, start+length, axis, t.shape))
	}
	size := cloneInts(t.shape)
	size[a] = length
	out := Empty(t.dev, t.dtype, size...)
	soff := make([]int, t.Dim())
	soff[a] = start
	copyBlock(out, make([]int, t.Dim()), t, soff, size)
	return Record("Narrow", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		before := make([]int, t.Dim())
		after := make([]int, t.Dim())
		before[a], after[a] = start, t.shape[a]-start-length
		return []*Tensor{padAxes(g, before, after, 0)}
	})
}

// Cat concatenates tensors along axis. All must have the same dtype and the
// same shape except along axis. It panics when ts is empty or shapes differ.
func Cat(axis int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		panic("autograd: Cat of no tensors")
	}
	a := normAxis("Cat", axis, ts[0].Dim())
	shape := cloneInts(ts[0].shape)
	shape[a] = 0
	for _, t := range ts {
		checkDType("Cat", ts[0], t)
		for d := range shape {
			if t.Dim() != len(shape) || d != a && t.shape[d] != shape[d] {
				panic(fmt.Sprintf("autograd: Cat: shapes %v and %v differ outside axis %d", ts[0].shape, t.shape, axis))
			}
		}
		shape[a] += t.shape[a]
	}
	out := Empty(deviceOf("Cat", ts...), ts[0].dtype, shape...)
	offsets := make([]int, len(ts))
	doff := make([]int, len(shape))
	for i, t := range ts {
		offsets[i] = doff[a]
		copyBlock(out, doff, t, make([]int, len(shape)), t.shape)
		doff[a] += t.shape[a]
	}
	return Record("Cat", out, ts, func(g *Tensor) []*Tensor {
		gs := make([]*Tensor, len(ts))
		for i, t := range ts {
			gs[i] = Narrow(g, a, offsets[i], t.shape[a])
		}
		return gs
	})
}

// Stack joins tensors of one shape along a new axis.
func Stack(axis int, ts ...*Tensor) *Tensor {
	if len(ts) == 0 {
		panic("autograd: Stack of no tensors")
	}
	us := make([]*Tensor, len(ts))
	for i, t := range ts {
		if !sameShape(t.shape, ts[0].shape) {
			panic(fmt.Sprintf("autograd: Stack: shapes %v and %v differ", ts[0].shape, t.shape))
		}
		us[i] = Unsqueeze(t, axis)
	}
	return Cat(axis, us...)
}

// Cast returns t converted to dtype (t itself when it already has it). The
// gradient is cast back.
func Cast(t *Tensor, dtype DType) *Tensor {
	if t.dtype == dtype {
		return t
	}
	var out *Tensor
	switch {
	case t.dev != nil:
		// A device that holds one dtype alone fails the Alloc (see Device).
		out = newOn(t.dev, dtype, t.shape)
		elementwiseOf("Cast", t.dev).Unary("Copy", out, t)
	case dtype == Float64:
		out = Zeros(dtype, t.shape...)
		convert(out.f64, t.f32)
	default:
		out = Zeros(dtype, t.shape...)
		convert(out.f32, t.f64)
	}
	return Record("Cast", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{Cast(g, t.dtype)}
	})
}

// splitAxis returns the sizes before, along and after axis a of shape.
func splitAxis(shape []int, a int) (outer, n, inner int) {
	return numel(shape[:a]), shape[a], numel(shape[a+1:])
}
