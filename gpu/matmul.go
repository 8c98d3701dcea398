package gpu

import (
	"fmt"
	"slices"
)

// MatMulSpec describes a batched matrix product op(A)·op(B) over the last
// two dimensions of two row-major tensors, as autograd.MatMul: op
// transposes when TransA (TransB) is set, and the leading (batch)
// dimensions broadcast. The result's batch dimensions are OutBatch when it
// is set, which must be what broadcasting gives or a shape it can be summed
// to (autograd's sumTo: leading dimensions dropped, others kept or 1); the
// dimensions it drops or shrinks to 1 are summed over, as a gradient of a
// broadcast operand needs.
type MatMulSpec struct {
	AShape, BShape []int // at least 2-D each
	TransA, TransB bool
	OutBatch       []int // nil: the broadcast batch shape
}

// maxBatchDims is how many batch dimensions matmul.wgsl addresses after
// dimensions of length 1 are dropped and adjacent ones merged.
const maxBatchDims = 4

// matMulTile is the side of the output tile one workgroup computes.
const matMulTile = 32

// dims returns m, k and n of op(A) (m×k) and op(B) (k×n).
func (s MatMulSpec) dims() (m, k, n int) {
	if len(s.AShape) < 2 || len(s.BShape) < 2 {
		panic(fmt.Sprintf("gpu: MatMul of shapes %v and %v: both need at least 2 dimensions", s.AShape, s.BShape))
	}
	ar, ac := s.AShape[len(s.AShape)-2], s.AShape[len(s.AShape)-1]
	br, bc := s.BShape[len(s.BShape)-2], s.BShape[len(s.BShape)-1]
	m, k = ar, ac
	if s.TransA {
		m, k = ac, ar
	}
	k2, n := br, bc
	if s.TransB {
		k2, n = bc, br
	}
	if k != k2 {
		panic(fmt.Sprintf("gpu: MatMul: inner dimensions differ in %v × %v (transposed: %v, %v)", s.AShape, s.BShape, s.TransA, s.TransB))
	}
	return m, k, n
}

// batch returns the broadcast batch shape of A and B.
func (s MatMulSpec) batch() []int {
	a, b := s.AShape[:len(s.AShape)-2], s.BShape[:len(s.BShape)-2]
	out := make([]int, max(len(a), len(b)))
	for i := 1; i <= len(out); i++ {
		da, db := dimFromEnd(a, i), dimFromEnd(b, i)
		switch {
		case da == db || db == 1:
			out[len(out)-i] = da
		case da == 1:
			out[len(out)-i] = db
		default:
			panic(fmt.Sprintf("gpu: MatMul: batch dimensions of %v and %v do not broadcast", s.AShape, s.BShape))
		}
	}
	return out
}

// dimFromEnd returns shape[len(shape)-i], or 1 past its start.
func dimFromEnd(shape []int, i int) int {
	if i > len(shape) {
		return 1
	}
	return shape[len(shape)-i]
}

// OutShape returns the shape of the result: the output batch, m, n.
func (s MatMulSpec) OutShape() []int {
	m, _, n := s.dims()
	return append(slices.Clone(s.outBatch()), m, n)
}

func (s MatMulSpec) outBatch() []int {
	full := s.batch()
	if s.OutBatch == nil {
		return full
	}
	ok := len(s.OutBatch) <= len(full)
	for i := 1; ok && i <= len(s.OutBatch); i++ {
		d := dimFromEnd(s.OutBatch, i)
		ok = d == dimFromEnd(full, i) || d == 1
	}
	if !ok {
		panic(fmt.Sprintf("gpu: MatMul of %v and %v: cannot sum batch %v to %v", s.AShape, s.BShape, full, s.OutBatch))
	}
	return s.OutBatch
}

// walkDim is one dimension of a loop over two tensors at once: its length
// and the element strides it moves each by (0 where one broadcasts).
type walkDim struct{ size, a, b int }

// batchWalk returns the batch dimensions of the product as the kernel
// walks them: those of the output (kept), then those it sums over, each run
// merged where the strides allow, with the number of matrices summed into
// each output.
func (s MatMulSpec) batchWalk() (kept, summed []walkDim, reduce int) {
	m, k, n := s.dims()
	full, out := s.batch(), s.outBatch()
	aBatch, bBatch := s.AShape[:len(s.AShape)-2], s.BShape[:len(s.BShape)-2]
	aStrides, bStrides := batchStrides(aBatch, len(full), m*k), batchStrides(bBatch, len(full), k*n)
	reduce = 1
	for d, size := range full {
		if size == 1 {
			continue
		}
		dim := walkDim{size, aStrides[d], bStrides[d]}
		if dimFromEnd(out, len(full)-d) == size {
			kept = append(kept, dim)
		} else {
			summed = append(summed, dim)
			reduce *= size
		}
	}
	return mergeWalk(kept), mergeWalk(summed), reduce
}

// params returns the kernel's uniform for the batch dimensions kept and
// summed (at most maxBatchDims in all), reduce matrices summed into each
// output, and the offsets of a's, b's and c's first elements.
func (s MatMulSpec) params(kept, summed []walkDim, reduce, offA, offB, offC int) matMulParams {
	m, k, n := s.dims()
	batches := 1
	for _, d := range kept {
		batches *= d.size
	}
	dims := append(slices.Clone(kept), summed...)
	for len(dims) < maxBatchDims {
		dims = append([]walkDim{{1, 0, 0}}, dims...)
	}
	p := matMulParams{M: uint32(m), N: uint32(n), K: uint32(k), Reduce: uint32(reduce), Batches: uint32(batches)}
	p.ARS, p.ACS = matrixStrides(s.TransA, s.AShape)
	p.BRS, p.BCS = matrixStrides(s.TransB, s.BShape)
	for d, dim := range dims {
		p.Dims[d], p.AStrides[d], p.BStrides[d] = uint32(dim.size), uint32(dim.a), uint32(dim.b)
	}
	p.AOff, p.BOff, p.COff = uint32(offA), uint32(offB), uint32(offC)
	return p
}

// batchStrides returns the element strides of a tensor's batch dimensions,
// aligned to the last of rank broadcast dimensions: 0 where it broadcasts.
func batchStrides(batch []int, rank, matrix int) []int {
	s := make([]int, rank)
	stride := matrix
	for i := 1; i <= len(batch); i++ {
		if d := batch[len(batch)-i]; d != 1 {
			s[rank-i] = stride
		}
		stride *= batch[len(batch)-i]
	}
	return s
}

// mergeWalk drops dimensions of length 1 and merges each dimension into
// the one before it (outer) where walking both as one gives the same
// offsets in both tensors (mergeDims, which the elementwise kernels use).
func mergeWalk(dims []walkDim) []walkDim {
	shape, a, b := make([]int, len(dims)), make([]int, len(dims)), make([]int, len(dims))
	for i, d := range dims {
		shape[i], a[i], b[i] = d.size, d.a, d.b
	}
	ms, mst := mergeDims(shape, [][]int{a, b})
	out := make([]walkDim, len(ms))
	for i := range ms {
		out[i] = walkDim{ms[i], mst[0][i], mst[1][i]}
	}
	return out
}

// matrixStrides returns the row and column strides of op(X) for a row-major
// matrix X of shape [..., r, c].
func matrixStrides(trans bool, shape []int) (rs, cs uint32) {
	c := uint32(shape[len(shape)-1])
	if trans {
		return 1, c
	}
	return c, 1
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// MatMul records matmul.wgsl: c = op(a)·op(b) as s describes, c holding
// s.OutShape(). One workgroup computes each 32×32 output tile. A product
// with more batch dimensions than the kernel addresses, after merging,
// runs as one dispatch per index of its outermost kept ones; it panics
// when the summed ones alone are too many.
func (o Ops) MatMul(c, a, b *Buffer, s MatMulSpec) error {
	if a.N < numel(s.AShape) || b.N < numel(s.BShape) || c.N < numel(s.OutShape()) {
		panic(fmt.Sprintf("gpu: MatMul of %v and %v into %v: buffers of %d, %d and %d elements",
			s.AShape, s.BShape, s.OutShape(), a.N, b.N, c.N))
	}
	kept, summed, reduce := s.batchWalk()
	if len(summed) > maxBatchDims {
		panic(fmt.Sprintf("gpu: MatMul of %v and %v summed to batch %v: %d summed batch dimensions that cannot be merged, at most %d",
			s.AShape, s.BShape, s.OutBatch, len(summed), maxBatchDims))
	}
	return o.matMul(c, a, b, s, kept, summed, reduce, 0, 0, 0)
}

// matMul records the product over the kept batch dimensions kept from the
// given offsets, splitting the outermost one while too many remain.
func (o Ops) matMul(c, a, b *Buffer, s MatMulSpec, kept, summed []walkDim, reduce, offA, offB, offC int) error {
	if len(kept)+len(summed) > maxBatchDims {
		m, _, n := s.dims()
		outer, inner := kept[0], m*n
		for _, d := range kept[1:] {
			inner *= d.size
		}
		for i := range outer.size {
			if err := o.matMul(c, a, b, s, kept[1:], summed, reduce, offA+i*outer.a, offB+i*outer.b, offC+i*inner); err != nil {
				return err
			}
		}
		return nil
	}
	par := s.params(kept, summed, reduce, offA, offB, offC)
	tiles := int(par.Batches) * ceilDiv(int(par.M), matMulTile) * ceilDiv(int(par.N), matMulTile)
	return o.r.DispatchGroups("matmul.wgsl", tiles, par, a, b, c)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
