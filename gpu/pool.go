package gpu

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// MaxPool2d records max_pool.wgsl: out = the maximum of each window of x
// and idx = its index within the plane, as float32 (-1 for a window wholly
// in the padding), as autograd.MaxPool2dWith.
func (o Ops) MaxPool2d(out, idx, x *Buffer, g autograd.PoolGeometry) error {
	n := g.Planes * g.OutH * g.OutW
	if x.N < g.Planes*g.H*g.W || out.N < n || idx.N < n {
		panic(fmt.Sprintf("gpu: MaxPool2d of %d planes of %dx%d: buffers of %d, %d and %d elements", g.Planes, g.H, g.W, x.N, out.N, idx.N))
	}
	par := poolParams{Planes: uint32(g.Planes), H: uint32(g.H), W: uint32(g.W), OutH: uint32(g.OutH), OutW: uint32(g.OutW),
		KH: uint32(g.KH), KW: uint32(g.KW), StrideH: uint32(g.StrideH), StrideW: uint32(g.StrideW),
		PadH: uint32(g.PadH), PadW: uint32(g.PadW), DilH: uint32(g.DilationH), DilW: uint32(g.DilationW)}
	return o.dispatch("max_pool.wgsl", n, par, x, out, idx)
}
