package gpu

import (
	"runtime"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/dlca/dlca/autograd"
)

// The kernel sets of AutogradDevice for autograd's general ops:
// autograd.MatMulKernels, CopyKernels, IndexKernels and ConvKernels, each
// method the Ops of the tensor kernels (matmul.wgsl, strided_copy.wgsl,
// gather.wgsl, scatter_add.wgsl) recorded into the device's work.

var (
	_ autograd.MatMulKernels = (*AutogradDevice)(nil)
	_ autograd.CopyKernels   = (*AutogradDevice)(nil)
	_ autograd.IndexKernels  = (*AutogradDevice)(nil)
	_ autograd.ConvKernels   = (*AutogradDevice)(nil)
	_ autograd.PoolKernels   = (*AutogradDevice)(nil)
	_ autograd.RandomKernels = (*AutogradDevice)(nil)
)

// deviceOps records Ops into an AutogradDevice's work: a dispatcher whose
// failures are the device's sticky error.
type deviceOps struct{ a *AutogradDevice }

// DispatchGroups records shader over workgroups workgroups.
func (r deviceOps) DispatchGroups(shader string, workgroups int, params any, bufs ...*Buffer) error {
	raw := make([]*wgpu.Buffer, len(bufs))
	for i, b := range bufs {
		raw[i] = b.buf
	}
	r.a.dispatch(shader, workgroups*workgroupSize, params, raw...)
	return nil
}

// device returns the WebGPU device underneath.
func (r deviceOps) device() *Device { return r.a.d }

// Clear records zeroing b.
func (r deviceOps) Clear(b *Buffer) { r.a.clear(b) }

// ops returns the tensor kernels recorded into a's work.
func (a *AutogradDevice) ops() Ops { return Ops{deviceOps{a}} }

// run keeps the error of an Ops call (a shape the kernels cannot address).
func (a *AutogradDevice) run(err error) {
	if err != nil {
		a.fail(err)
	}
}

// buf returns t's storage as a Buffer for Ops (with a nil buffer when its
// allocation failed: the dispatch is then skipped).
func (a *AutogradDevice) buf(t *autograd.Tensor) *Buffer {
	return &Buffer{Label: "autograd tensor", N: t.Len(), buf: a.buffer(t)}
}

// scratch returns pooled storage of n elements for an op's intermediate
// values, and its Buffer. The storage goes back to the pool once the
// caller drops it and the work reading it is submitted.
func (a *AutogradDevice) scratch(n int) (autograd.Storage, *Buffer) {
	s := a.Alloc(autograd.Float32, n).(*storage)
	return s, s.buffer()
}

// upload returns pooled storage holding data, and its Buffer.
func (a *AutogradDevice) upload(data []uint32) (autograd.Storage, *Buffer) {
	s, b := a.scratch(len(data))
	if b.buf != nil && len(data) > 0 {
		a.run(write(a, b, data))
	}
	return s, b
}

// index returns the gather pattern offs into a source of src elements and
// its reverse index, for a gather or a scatter, from the cache (see
// indexCache): IndexSelect and its gradient IndexAdd share one.
func (a *AutogradDevice) index(offs []int, src int) *cachedIndex {
	raw := make([]uint32, len(offs))
	for i, o := range offs {
		raw[i] = uint32(o)
	}
	return a.cachedIndex("gather offsets", raw, src, func() (start, pos []uint32) { return reverseIndex(offs, src) })
}

// MatMul sets out = op(x)·op(y) (see autograd.MatMulKernels).
func (a *AutogradDevice) MatMul(out, x, y *autograd.Tensor, tx, ty bool) {
	s := MatMulSpec{AShape: x.Shape(), BShape: y.Shape(), TransA: tx, TransB: ty}
	a.run(a.ops().MatMul(a.buf(out), a.buf(x), a.buf(y), s))
}

// CopyBlock copies a block of src into dst (see autograd.CopyKernels).
func (a *AutogradDevice) CopyBlock(dst *autograd.Tensor, dstStart []int, src *autograd.Tensor, srcStart, size []int) {
	a.run(a.ops().CopyBlock(a.buf(dst), dst.Shape(), dstStart, a.buf(src), src.Shape(), srcStart, size))
}

// Gather sets out[i] = in[offs[i]] (see autograd.IndexKernels).
func (a *AutogradDevice) Gather(out, in *autograd.Tensor, offs []int) {
	ix := a.index(offs, in.Len())
	a.run(a.ops().Gather(a.buf(out), a.buf(in), ix.ix, 0))
	runtime.KeepAlive(ix)
}

// ScatterAdd adds src[i] to out[offs[i]] (see autograd.IndexKernels).
func (a *AutogradDevice) ScatterAdd(out, src *autograd.Tensor, offs []int) {
	ix := a.index(offs, out.Len())
	a.run(a.ops().ScatterAdd(a.buf(out), a.buf(src), ix.ix, true))
	runtime.KeepAlive(ix)
}

// withCols records f with pooled scratch for geometry g's im2col matrices.
func (a *AutogradDevice) withCols(g autograd.ConvGeometry, f func(ops Ops, cols *Buffer) error) {
	s, cols := a.scratch(ColsLen(g))
	a.run(f(a.ops(), cols))
	runtime.KeepAlive(s)
}

// Conv2d sets out to the convolution of x with w (see autograd.ConvKernels).
func (a *AutogradDevice) Conv2d(out, x, w *autograd.Tensor, g autograd.ConvGeometry) {
	a.withCols(g, func(ops Ops, cols *Buffer) error { return ops.Conv2d(a.buf(out), a.buf(x), a.buf(w), cols, g) })
}

// Conv2dInputGrad sets gx to the input's gradient (see
// autograd.ConvKernels).
func (a *AutogradDevice) Conv2dInputGrad(gx, gy, w *autograd.Tensor, g autograd.ConvGeometry) {
	a.withCols(g, func(ops Ops, dcols *Buffer) error {
		return ops.Conv2dInputGrad(a.buf(gx), a.buf(gy), a.buf(w), dcols, g)
	})
}

// Conv2dWeightGrad sets gw to the weight's gradient (see
// autograd.ConvKernels): the im2col matrices of x again, then one product.
func (a *AutogradDevice) Conv2dWeightGrad(gw, x, gy *autograd.Tensor, g autograd.ConvGeometry) {
	a.withCols(g, func(ops Ops, cols *Buffer) error {
		if err := ops.Im2col(cols, a.buf(x), g); err != nil {
			return err
		}
		return ops.Conv2dWeightGrad(a.buf(gw), a.buf(gy), cols, g)
	})
}

// MaxPool2d sets out and idx to each window's maximum and its index (see
// autograd.PoolKernels).
func (a *AutogradDevice) MaxPool2d(out, idx, x *autograd.Tensor, g autograd.PoolGeometry) {
	a.run(a.ops().MaxPool2d(a.buf(out), a.buf(idx), a.buf(x), g))
}

// MaxPool2dBackward sets gx to max pooling's input gradient (see
// autograd.PoolKernels).
func (a *AutogradDevice) MaxPool2dBackward(gx, gy, idx *autograd.Tensor, g autograd.PoolGeometry) {
	a.run(a.ops().MaxPool2dBackward(a.buf(gx), a.buf(gy), a.buf(idx), g))
}

// MaxPoolGather sets out to h at the indices (see autograd.PoolKernels).
func (a *AutogradDevice) MaxPoolGather(out, h, idx *autograd.Tensor, g autograd.PoolGeometry) {
	a.run(a.ops().MaxPoolGather(a.buf(out), a.buf(h), a.buf(idx), g))
}

// DropoutMask sets out to Dropout's mask (see autograd.RandomKernels).
func (a *AutogradDevice) DropoutMask(out *autograd.Tensor, seed uint64, threshold uint32, scale float64) {
	a.run(a.ops().DropoutMask(a.buf(out), out.Len(), seed, threshold, float32(scale)))
}
