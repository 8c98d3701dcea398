package gpu

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// A 2-D convolution of geometry g (autograd.Conv2dGeometry) runs as
// im2col.wgsl, which lays the receptive fields out as one matrix per
// sample and group, followed by one batched product (matmul.wgsl) over
// samples and groups; its gradients are two more products, the input's
// followed by col2im.wgsl, the adjoint of im2col. So autograd's Conv2d
// computes on the CPU too.

// ColsLen returns the length of the im2col matrices of all samples and
// groups of geometry g, [N][Groups][C/Groups·KH·KW][OutH·OutW]: the scratch
// that Conv2d fills and Conv2dWeightGrad reads, and the one
// Conv2dInputGrad uses.
func ColsLen(g autograd.ConvGeometry) int { return g.N * g.C * g.KH * g.KW * g.OutH * g.OutW }

// convParamsOf returns the uniform of im2col.wgsl and col2im.wgsl.
func convParamsOf(g autograd.ConvGeometry) convParams {
	return convParams{N: uint32(g.N), C: uint32(g.C), H: uint32(g.H), W: uint32(g.W), KH: uint32(g.KH), KW: uint32(g.KW),
		OutH: uint32(g.OutH), OutW: uint32(g.OutW), StrideH: uint32(g.StrideH), StrideW: uint32(g.StrideW),
		PadH: uint32(g.PadH), PadW: uint32(g.PadW), DilH: uint32(g.DilationH), DilW: uint32(g.DilationW)}
}

// convSpecs returns the products of the forward pass and of both
// gradients of geometry g.
func convSpecs(g autograd.ConvGeometry) (forward, inputGrad, weightGrad MatMulSpec) {
	og, rows, cols := g.O/g.Groups, g.C/g.Groups*g.KH*g.KW, g.OutH*g.OutW
	w := []int{g.Groups, og, rows}
	x := []int{g.N, g.Groups, rows, cols}
	y := []int{g.N, g.Groups, og, cols}
	forward = MatMulSpec{AShape: w, BShape: x}
	inputGrad = MatMulSpec{AShape: w, BShape: y, TransA: true}
	weightGrad = MatMulSpec{AShape: y, BShape: x, TransB: true, OutBatch: []int{g.Groups}}
	return forward, inputGrad, weightGrad
}

// checkConv panics unless x and cols hold geometry g's input and im2col
// matrices.
func checkConv(op string, g autograd.ConvGeometry, x, cols *Buffer) {
	if x.N < g.N*g.C*g.H*g.W || cols.N < ColsLen(g) {
		panic(fmt.Sprintf("gpu: %s of %+v: buffers of %d and %d elements, want %d and %d", op, g, x.N, cols.N, g.N*g.C*g.H*g.W, ColsLen(g)))
	}
}

// Im2col records im2col.wgsl: cols = the im2col matrices of x.
func (o Ops) Im2col(cols, x *Buffer, g autograd.ConvGeometry) error {
	checkConv("Im2col", g, x, cols)
	return o.dispatch("im2col.wgsl", ColsLen(g), convParamsOf(g), x, cols)
}

// Col2im records col2im.wgsl: gx = the sum of dcols' entries copied from
// each input element.
func (o Ops) Col2im(gx, dcols *Buffer, g autograd.ConvGeometry) error {
	checkConv("Col2im", g, gx, dcols)
	return o.dispatch("col2im.wgsl", g.N*g.C*g.H*g.W, convParamsOf(g), dcols, gx)
}

// Conv2d records out = conv(x, w) without bias ([N, O, OutH, OutW]),
// leaving the im2col matrices in cols (ColsLen elements).
func (o Ops) Conv2d(out, x, w, cols *Buffer, g autograd.ConvGeometry) error {
	forward, _, _ := convSpecs(g)
	if err := o.Im2col(cols, x, g); err != nil {
		return err
	}
	return o.MatMul(out, w, cols, forward)
}

// Conv2dInputGrad records gx = dL/dx for the output gradient gy: the
// product Wᵀ·gy into dcols (ColsLen elements of scratch), folded back onto
// the input by col2im.
func (o Ops) Conv2dInputGrad(gx, gy, w, dcols *Buffer, g autograd.ConvGeometry) error {
	_, inputGrad, _ := convSpecs(g)
	if err := o.MatMul(dcols, w, gy, inputGrad); err != nil {
		return err
	}
	return o.Col2im(gx, dcols, g)
}

// Conv2dWeightGrad records gw = dL/dw for the output gradient gy from the
// im2col matrices cols of the input (as Conv2d left them): gy·colsᵀ summed
// over the samples.
func (o Ops) Conv2dWeightGrad(gw, gy, cols *Buffer, g autograd.ConvGeometry) error {
	_, _, weightGrad := convSpecs(g)
	return o.MatMul(gw, gy, cols, weightGrad)
}
