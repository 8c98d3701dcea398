package gpu

import (
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
)

// tensorKernels are the kernels that run autograd's general ops (matrix
// products, shape and index ops, convolutions) on row-major float32 tensors,
// as functions on host slices. Their CPU twins are autograd's own ops, so a
// test holds each kernel to the CPU autograd's result. GPU and CPUTwin
// implement them in the tests only (the library records these kernels
// through Ops, for autograd's device).
type tensorKernels interface {
	// MatMul returns op(a)·op(b) as s describes, of shape s.OutShape().
	MatMul(a, b []float32, s MatMulSpec) ([]float32, error)

	// The shape ops take x's shape and return a row-major result.
	Permute(x []float32, shape, perm []int) ([]float32, error)
	Expand(x []float32, shape, to []int) ([]float32, error)
	Narrow(x []float32, shape []int, axis, start, length int) ([]float32, error)
	Cat(xs [][]float32, shapes [][]int, axis int) ([]float32, error)
	Stack(xs [][]float32, shape []int, axis int) ([]float32, error)
	// PadZero pads (or, where negative, crops) by before[d] and after[d]
	// elements on each axis d.
	PadZero(x []float32, shape, before, after []int) ([]float32, error)
	// SumTo sums x to shape to, as the gradient of a broadcast operand.
	SumTo(x []float32, shape, to []int) ([]float32, error)

	// The index ops take indices as autograd's ops do.
	IndexSelect(x []float32, shape []int, axis int, idx []int) ([]float32, error)
	Gather(x []float32, shape []int, axis int, index, indexShape []int) ([]float32, error)
	// ScatterAdd returns t with src, of the index's shape, added at the
	// positions the index names along axis.
	ScatterAdd(t []float32, shape []int, axis int, index, indexShape []int, src []float32) ([]float32, error)
	// IndexAdd returns t with src's slices added at positions idx along
	// axis.
	IndexAdd(t []float32, shape []int, axis int, idx []int, src []float32) ([]float32, error)

	// MaxPool returns the maxima of x's windows and their indices within
	// their planes.
	MaxPool(x []float32, shape []int, cfg autograd.Pool2dConfig) (out []float32, idx []int, err error)
	// MaxPoolBackward returns the gradient of max pooling's input x for the
	// output gradient gy.
	MaxPoolBackward(x, gy []float32, shape []int, cfg autograd.Pool2dConfig) ([]float32, error)
	// MaxPoolGather returns h, of x's shape, at the cells max pooling of x
	// chose (0 for a window wholly in the padding).
	MaxPoolGather(x, h []float32, shape []int, cfg autograd.Pool2dConfig) ([]float32, error)

	// Conv2d returns the convolution of x with w (no bias).
	Conv2d(x, w []float32, xShape, wShape []int, cfg autograd.Conv2dConfig) ([]float32, error)
	// Conv2dInputGrad returns the gradient of Conv2d's input for the output
	// gradient gy.
	Conv2dInputGrad(gy, w []float32, xShape, wShape []int, cfg autograd.Conv2dConfig) ([]float32, error)

	// DropoutMask returns the mask autograd.Dropout multiplies n elements
	// by, drawing its seed from rng.
	DropoutMask(n int, p float64, rng *rand.Rand) ([]float32, error)
}

var _, _ tensorKernels = GPU{}, CPUTwin{}

// MatMul runs matmul.wgsl.
func (k GPU) MatMul(a, b []float32, s MatMulSpec) ([]float32, error) {
	n := numel(s.OutShape())
	sh := k.start()
	defer sh.close()
	ba, bb, bc := sh.in("a", a, 0), sh.in("b", b, 0), sh.in("c", nil, n)
	if sh.err == nil {
		sh.record(sh.p.MatMul(bc, ba, bb, s))
	}
	return sh.read(bc, n), sh.err
}

// unary runs the program rec records from x into a result of n elements.
func (k GPU) unary(x []float32, n int, rec func(o Ops, dst, x *Buffer) error) ([]float32, error) {
	s := k.start()
	defer s.close()
	bx, bd := s.in("x", x, 0), s.in("dst", nil, n)
	if s.err == nil {
		s.record(rec(s.p.Ops, bd, bx))
	}
	return s.read(bd, n), s.err
}

// Permute runs strided_copy.wgsl.
func (k GPU) Permute(x []float32, shape, perm []int) ([]float32, error) {
	return k.unary(x, len(x), func(o Ops, dst, x *Buffer) error { return o.Permute(dst, x, shape, perm...) })
}

// Expand runs strided_copy.wgsl.
func (k GPU) Expand(x []float32, shape, to []int) ([]float32, error) {
	return k.unary(x, numel(to), func(o Ops, dst, x *Buffer) error { return o.Expand(dst, x, shape, to) })
}

// Narrow runs strided_copy.wgsl.
func (k GPU) Narrow(x []float32, shape []int, axis, start, length int) ([]float32, error) {
	return k.unary(x, len(x)/max(shape[axis], 1)*length, func(o Ops, dst, x *Buffer) error {
		return o.Narrow(dst, x, shape, axis, start, length)
	})
}

// Cat runs strided_copy.wgsl once per input.
func (k GPU) Cat(xs [][]float32, shapes [][]int, axis int) ([]float32, error) {
	return k.joined(xs, func(o Ops, dst *Buffer, bs []*Buffer) error { return o.Cat(dst, axis, bs, shapes) })
}

// Stack runs strided_copy.wgsl once per input.
func (k GPU) Stack(xs [][]float32, shape []int, axis int) ([]float32, error) {
	return k.joined(xs, func(o Ops, dst *Buffer, bs []*Buffer) error { return o.Stack(dst, axis, bs, shape) })
}

// joined runs the program rec records from xs into a result holding them all.
func (k GPU) joined(xs [][]float32, rec func(o Ops, dst *Buffer, xs []*Buffer) error) ([]float32, error) {
	s := k.start()
	defer s.close()
	n := 0
	bs := make([]*Buffer, len(xs))
	for i, x := range xs {
		bs[i], n = s.in("x", x, 0), n+len(x)
	}
	dst := s.in("dst", nil, n)
	if s.err == nil {
		s.record(rec(s.p.Ops, dst, bs))
	}
	return s.read(dst, n), s.err
}

// PadZero runs strided_copy.wgsl into a cleared buffer.
func (k GPU) PadZero(x []float32, shape, before, after []int) ([]float32, error) {
	n := 1
	for d := range shape {
		n *= shape[d] + before[d] + after[d]
	}
	return k.unary(x, n, func(o Ops, dst, x *Buffer) error { return o.PadZero(dst, x, shape, before, after) })
}

// SumTo runs sum_to.wgsl.
func (k GPU) SumTo(x []float32, shape, to []int) ([]float32, error) {
	return k.unary(x, numel(to), func(o Ops, dst, x *Buffer) error { return o.SumTo(dst, x, shape, to) })
}

// selectIndex returns IndexSelect's idx as a Gather index: idx[j] at every
// position whose coordinate along axis is j.
func selectIndex(shape []int, axis int, idx []int) (index, indexShape []int) {
	indexShape = selectShape(shape, axis, idx)
	inner := numel(shape[axis+1:])
	index = make([]int, numel(indexShape))
	for p := range index {
		index[p] = idx[p/inner%len(idx)]
	}
	return index, indexShape
}

// IndexSelect runs gather.wgsl.
func (k GPU) IndexSelect(x []float32, shape []int, axis int, idx []int) ([]float32, error) {
	index, indexShape := selectIndex(shape, axis, idx)
	return k.Gather(x, shape, axis, index, indexShape)
}

// Gather runs gather.wgsl.
func (k GPU) Gather(x []float32, shape []int, axis int, index, indexShape []int) ([]float32, error) {
	s := k.start()
	defer s.close()
	ix := s.index(autograd.GatherOffsets(shape, axis, index, indexShape), len(x))
	bx, bd := s.in("x", x, 0), s.in("dst", nil, len(index))
	if s.err == nil {
		s.record(s.p.Gather(bd, bx, ix, 0))
	}
	return s.read(bd, len(index)), s.err
}

// ScatterAdd runs scatter_add.wgsl.
func (k GPU) ScatterAdd(t []float32, shape []int, axis int, index, indexShape []int, src []float32) ([]float32, error) {
	s := k.start()
	defer s.close()
	ix := s.index(autograd.GatherOffsets(shape, axis, index, indexShape), len(t))
	bt, bs := s.in("t", t, 0), s.in("src", src, 0)
	if s.err == nil {
		s.record(s.p.ScatterAdd(bt, bs, ix, true))
	}
	return s.read(bt, len(t)), s.err
}

// IndexAdd runs scatter_add.wgsl.
func (k GPU) IndexAdd(t []float32, shape []int, axis int, idx []int, src []float32) ([]float32, error) {
	index, indexShape := selectIndex(shape, axis, idx)
	return k.ScatterAdd(t, shape, axis, index, indexShape, src)
}

// MaxPool runs max_pool.wgsl.
func (k GPU) MaxPool(x []float32, shape []int, cfg autograd.Pool2dConfig) ([]float32, []int, error) {
	g := autograd.Pool2dGeometry(shape, cfg)
	n := g.Planes * g.OutH * g.OutW
	s := k.start()
	defer s.close()
	bx, bo, bi := s.in("x", x, 0), s.in("out", nil, n), s.in("idx", nil, n)
	if s.err == nil {
		s.record(s.p.MaxPool2d(bo, bi, bx, g))
	}
	out, at := s.read(bo, n), s.read(bi, n)
	idx := make([]int, len(at))
	for i, v := range at {
		idx[i] = int(v)
	}
	return out, idx, s.err
}

// DropoutMask runs dropout_mask.wgsl with the seed autograd.Dropout draws.
func (k GPU) DropoutMask(n int, p float64, rng *rand.Rand) ([]float32, error) {
	s := k.start()
	defer s.close()
	mask := s.in("mask", nil, n)
	scale := 0.0 // p = 1 keeps nothing
	if p < 1 {
		scale = 1 / (1 - p)
	}
	if s.err == nil {
		s.record(s.p.DropoutMask(mask, n, rng.Uint64(), autograd.DropoutThreshold(p), float32(scale)))
	}
	return s.read(mask, n), s.err
}

// Conv2d runs im2col.wgsl and matmul.wgsl.
func (k GPU) Conv2d(x, w []float32, xShape, wShape []int, cfg autograd.Conv2dConfig) ([]float32, error) {
	g := autograd.Conv2dGeometry(xShape, wShape, cfg)
	n := g.N * g.O * g.OutH * g.OutW
	s := k.start()
	defer s.close()
	bx, bw, cols, by := s.in("x", x, 0), s.in("w", w, 0), s.in("cols", nil, ColsLen(g)), s.in("y", nil, n)
	if s.err == nil {
		s.record(s.p.Conv2d(by, bx, bw, cols, g))
	}
	return s.read(by, n), s.err
}

// Conv2dInputGrad runs matmul.wgsl and col2im.wgsl.
func (k GPU) Conv2dInputGrad(gy, w []float32, xShape, wShape []int, cfg autograd.Conv2dConfig) ([]float32, error) {
	g := autograd.Conv2dGeometry(xShape, wShape, cfg)
	n := numel(xShape)
	s := k.start()
	defer s.close()
	bgy, bw, dcols, bgx := s.in("gy", gy, 0), s.in("w", w, 0), s.in("dcols", nil, ColsLen(g)), s.in("gx", nil, n)
	if s.err == nil {
		s.record(s.p.Conv2dInputGrad(bgx, bgy, bw, dcols, g))
	}
	return s.read(bgx, n), s.err
}

// maxPoolThen runs max_pool.wgsl on x, then the program rec records from
// its indices, into a result of n elements.
func (k GPU) maxPoolThen(x, in []float32, shape []int, cfg autograd.Pool2dConfig, n int,
	rec func(o Ops, dst, in, idx *Buffer, g autograd.PoolGeometry) error) ([]float32, error) {
	g := autograd.Pool2dGeometry(shape, cfg)
	windows := g.Planes * g.OutH * g.OutW
	s := k.start()
	defer s.close()
	bx, bo, bi := s.in("x", x, 0), s.in("out", nil, windows), s.in("idx", nil, windows)
	bin, dst := s.in("in", in, 0), s.in("dst", nil, n)
	if s.err == nil {
		s.record(s.p.MaxPool2d(bo, bi, bx, g))
		s.record(rec(s.p.Ops, dst, bin, bi, g))
	}
	return s.read(dst, n), s.err
}

// MaxPoolBackward runs max_pool.wgsl, then max_pool_backward.wgsl.
func (k GPU) MaxPoolBackward(x, gy []float32, shape []int, cfg autograd.Pool2dConfig) ([]float32, error) {
	return k.maxPoolThen(x, gy, shape, cfg, len(x), func(o Ops, gx, gy, idx *Buffer, g autograd.PoolGeometry) error {
		return o.MaxPool2dBackward(gx, gy, idx, g)
	})
}

// MaxPoolGather runs max_pool.wgsl, then max_pool_gather.wgsl.
func (k GPU) MaxPoolGather(x, h []float32, shape []int, cfg autograd.Pool2dConfig) ([]float32, error) {
	g := autograd.Pool2dGeometry(shape, cfg)
	return k.maxPoolThen(x, h, shape, cfg, g.Planes*g.OutH*g.OutW, func(o Ops, out, h, idx *Buffer, g autograd.PoolGeometry) error {
		return o.MaxPoolGather(out, h, idx, g)
	})
}
