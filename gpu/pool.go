package gpu

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// MaxPool2d records max_pool.wgsl: out = the maximum of each window of x
// and idx = its index within the plane, as float32 (-1 for a window wholly
// in the padding), as autograd.MaxPool2dWith.
func (o Ops) MaxPool2d(out, idx, x *Buffer, g autograd.PoolGeometry) error {
	checkPool("MaxPool2d", g, x, out, idx)
	return o.dispatch("max_pool.wgsl", g.Planes*g.OutH*g.OutW, poolParamsOf(g), x, out, idx)
}

// MaxPool2dBackward records max_pool_backward.wgsl: gx = the gradient of
// max pooling's input for the output gradient gy, from the indices idx
// that MaxPool2d wrote, without reading them back.
func (o Ops) MaxPool2dBackward(gx, gy, idx *Buffer, g autograd.PoolGeometry) error {
	checkPool("MaxPool2dBackward", g, gx, gy, idx)
	return o.dispatch("max_pool_backward.wgsl", g.Planes*g.H*g.W, poolParamsOf(g), gy, idx, gx)
}

// MaxPoolGather records max_pool_gather.wgsl: out = h at the indices idx
// (0 for an empty window), the transpose of MaxPool2dBackward.
func (o Ops) MaxPoolGather(out, h, idx *Buffer, g autograd.PoolGeometry) error {
	checkPool("MaxPoolGather", g, h, out, idx)
	return o.dispatch("max_pool_gather.wgsl", g.Planes*g.OutH*g.OutW, poolParamsOf(g), h, idx, out)
}

// checkPool panics unless plane holds g's input planes and windows and idx
// its windows.
func checkPool(op string, g autograd.PoolGeometry, plane, windows, idx *Buffer) {
	n := g.Planes * g.OutH * g.OutW
	if plane.N < g.Planes*g.H*g.W || windows.N < n || idx.N < n {
		panic(fmt.Sprintf("gpu: %s of %d planes of %dx%d: buffers of %d, %d and %d elements", op, g.Planes, g.H, g.W, plane.N, windows.N, idx.N))
	}
}

// poolParamsOf returns the uniform of the max pooling kernels.
func poolParamsOf(g autograd.PoolGeometry) poolParams {
	return poolParams{Planes: uint32(g.Planes), H: uint32(g.H), W: uint32(g.W), OutH: uint32(g.OutH), OutW: uint32(g.OutW),
		KH: uint32(g.KH), KW: uint32(g.KW), StrideH: uint32(g.StrideH), StrideW: uint32(g.StrideW),
		PadH: uint32(g.PadH), PadW: uint32(g.PadW), DilH: uint32(g.DilationH), DilW: uint32(g.DilationW)}
}
