package autograd

// The kernel sets of the ops that move, gather and multiply tensors rather
// than map them elementwise: matrix products, block copies (Narrow, Cat,
// Stack, Pad), gathers and scatters (IndexSelect, Gather, IndexAdd,
// ScatterAdd), and convolutions. The conventions of device_kernels.go hold:
// every kernel writes out, which the op has just allocated on the device
// with the result's shape, from operands on the same device, row-major and
// contiguous, whose shapes the op has checked.

// MatMulKernels computes matrix products.
type MatMulKernels interface {
	// MatMul sets out to op(a)·op(b) over the last two dimensions, where op
	// transposes when ta (tb) is set; a's and b's batch (leading)
	// dimensions broadcast to out's, as MatMul's.
	MatMul(out, a, b *Tensor, ta, tb bool)
}

// CopyKernels copies blocks between tensors of one number of dimensions.
type CopyKernels interface {
	// CopyBlock copies the block of src of the given size that starts at
	// index srcStart to the block of dst that starts at dstStart, leaving
	// the rest of dst as it was.
	CopyBlock(dst *Tensor, dstStart []int, src *Tensor, srcStart, size []int)
}

// IndexKernels gathers elements by flat offsets, which the op computes and
// checks, and scatters them back.
type IndexKernels interface {
	// Gather sets out[i] = in[offs[i]]; len(offs) == out.Len().
	Gather(out, in *Tensor, offs []int)
	// ScatterAdd adds src[i] to out[offs[i]] for every i, the additions
	// into one element in increasing i (as the CPU does, so that results
	// agree); len(offs) == src.Len().
	ScatterAdd(out, src *Tensor, offs []int)
}

// ConvKernels computes a 2-D convolution without bias and its gradients,
// for the geometry g (input x, weight w and output of g's shapes).
type ConvKernels interface {
	// Conv2d sets out to the convolution of x with w.
	Conv2d(out, x, w *Tensor, g ConvGeometry)
	// Conv2dInputGrad sets gx to the gradient of the input for the
	// output gradient gy: the transposed convolution of gy with w.
	Conv2dInputGrad(gx, gy, w *Tensor, g ConvGeometry)
	// Conv2dWeightGrad sets gw to the gradient of the weight for the input
	// x and the output gradient gy.
	Conv2dWeightGrad(gw, x, gy *Tensor, g ConvGeometry)
}

// kernelsOf returns dev as the kernel set K, or panics naming op and set.
func kernelsOf[K any](op string, dev Device, set string) K {
	k, ok := dev.(K)
	if !ok {
		noKernel(op, dev, set)
	}
	return k
}

// Empty returns a tensor of the given dtype and shape on dev for a kernel
// to write: zeros on the CPU (or a nil dev), undefined contents on another
// device. A CustomOp that runs on a device allocates its result with it.
func Empty(dev Device, dtype DType, shape ...int) *Tensor {
	if dev == nil || dev == CPU {
		return Zeros(dtype, shape...)
	}
	return newOn(dev, dtype, shape)
}

// selectOffsets returns, for each element of a tensor of shape with axis a
// of length len(idx), the flat offset in a tensor of shape of the element
// with the same coordinates except idx[j] for coordinate j along a: where
// IndexSelect reads and IndexAdd adds.
func selectOffsets(shape []int, a int, idx []int) []int {
	outer, n, inner := splitAxis(shape, a)
	offs := make([]int, 0, outer*len(idx)*inner)
	for o := range outer {
		for _, k := range idx {
			for i := range inner {
				offs = append(offs, (o*n+k)*inner+i)
			}
		}
	}
	return offs
}

// PoolKernels computes max pooling (average pooling is a convolution).
type PoolKernels interface {
	// MaxPool2d sets out to the maximum of each window of x ([N, C, H, W])
	// and idx, of out's shape, to the index within its plane (ih·W + iw)
	// of the cell chosen, as MaxPool2dWith: the first maximum in row-major
	// order, NaN winning; a window wholly in the padding gives -Inf and
	// index -1.
	MaxPool2d(out, idx, x *Tensor, g PoolGeometry)
	// MaxPool2dBackward sets gx (x's shape) to the gradient of MaxPool2d's
	// input for the output gradient gy, from the indices idx it wrote:
	// each cell sums gy over the windows that chose it, in window order.
	MaxPool2dBackward(gx, gy, idx *Tensor, g PoolGeometry)
	// MaxPoolGather sets out (idx's shape) to h (x's shape) at the indices
	// idx, 0 for a window wholly in the padding: MaxPool2dBackward's
	// transpose.
	MaxPoolGather(out, h, idx *Tensor, g PoolGeometry)
}

// PoolGeometry is the geometry of a 2-D pooling as a device's kernels see
// it: Planes = N·C planes of H×W cells, OutH×OutW windows of KH×KW cells.
type PoolGeometry struct {
	Planes, H, W         int
	OutH, OutW           int
	KH, KW               int
	StrideH, StrideW     int
	PadH, PadW           int
	DilationH, DilationW int
}

func (g poolGeom) export() PoolGeometry {
	return PoolGeometry{Planes: g.planes, H: g.h, W: g.w, OutH: g.oh, OutW: g.ow, KH: g.kh, KW: g.kw,
		StrideH: g.sh, StrideW: g.sw, PadH: g.ph, PadW: g.pw, DilationH: g.dh, DilationW: g.dw}
}

// constantOn returns the CPU constant t (a tensor the op built, requiring no
// gradient) on dev, or t itself when dev is nil (the CPU).
func constantOn(dev Device, t *Tensor) *Tensor {
	if dev == nil {
		return t
	}
	return mustTo(t, dev)
}

// Pool2dGeometry returns the geometry of MaxPool2dWith and AvgPool2dWith
// over an input of shape xShape with cfg. It panics as they do when the
// options do not fit the input.
func Pool2dGeometry(xShape []int, cfg Pool2dConfig) PoolGeometry {
	return poolGeometry("Pool2dGeometry", &Tensor{shape: xShape}, cfg).export()
}

// RandomKernels computes random masks from a counter-based stream.
type RandomKernels interface {
	// DropoutMask sets out[i] to scale where DropoutKeeps(seed, i,
	// threshold) and to 0 elsewhere.
	DropoutMask(out *Tensor, seed uint64, threshold uint32, scale float64)
}
