package gpu

import (
	"github.com/dlca/dlca/autograd"
)

// Conv is a 2-D convolution's fixed structure on the device: its geometry
// and its im2col gather pattern. A convolution runs as that gather followed
// by one batched product (matmul.wgsl) over samples and groups, and its
// gradients as two more products, one of them followed by the pattern's
// scatter (col2im), as autograd's Conv2d does on the CPU.
type Conv struct {
	G    autograd.ConvGeometry
	cols *Index
}

// NewConv uploads the im2col pattern of geometry g.
func (d *Device) NewConv(g autograd.ConvGeometry) (*Conv, error) {
	ix, err := d.NewIndex("im2col", im2colOffsets(g), g.N*g.C*g.H*g.W)
	if err != nil {
		return nil, err
	}
	return &Conv{G: g, cols: ix}, nil
}

// Release frees the pattern.
func (c *Conv) Release() { c.cols.Release() }

// ColsLen is the length of the im2col matrices of all samples and groups,
// [N][Groups][C/Groups·KH·KW][OutH·OutW]: the scratch buffer Conv2d fills
// and Conv2dWeightGrad reads, and the one Conv2dInputGrad uses.
func (c *Conv) ColsLen() int { return c.cols.N }

// im2colOffsets returns, for every element of the im2col matrices, the
// input element it copies, or Outside in the padding.
func im2colOffsets(g autograd.ConvGeometry) []int {
	offs := make([]int, 0, g.N*g.C*g.KH*g.KW*g.OutH*g.OutW)
	for n := range g.N {
		for c := range g.C { // row (c%cg, ki, kj) of group c/cg's matrix
			for ki := range g.KH {
				for kj := range g.KW {
					for oh := range g.OutH {
						ih := oh*g.StrideH - g.PadH + ki*g.DilationH
						for ow := range g.OutW {
							iw := ow*g.StrideW - g.PadW + kj*g.DilationW
							if ih < 0 || ih >= g.H || iw < 0 || iw >= g.W {
								offs = append(offs, Outside)
							} else {
								offs = append(offs, ((n*g.C+c)*g.H+ih)*g.W+iw)
							}
						}
					}
				}
			}
		}
	}
	return offs
}

// specs returns the products of the forward pass and of both gradients.
func (c *Conv) specs() (forward, inputGrad, weightGrad MatMulSpec) {
	g := c.G
	og, rows, cols := g.O/g.Groups, g.C/g.Groups*g.KH*g.KW, g.OutH*g.OutW
	w := []int{g.Groups, og, rows}
	x := []int{g.N, g.Groups, rows, cols}
	y := []int{g.N, g.Groups, og, cols}
	forward = MatMulSpec{AShape: w, BShape: x}
	inputGrad = MatMulSpec{AShape: w, BShape: y, TransA: true}
	weightGrad = MatMulSpec{AShape: y, BShape: x, TransB: true, OutBatch: []int{g.Groups}}
	return forward, inputGrad, weightGrad
}

// Conv2d records out = conv(x, w) without bias ([N, O, OutH, OutW]),
// leaving the im2col matrices in cols (ColsLen elements).
func (o Ops) Conv2d(out, x, w, cols *Buffer, c *Conv) error {
	forward, _, _ := c.specs()
	if err := o.Gather(cols, x, c.cols, 0); err != nil {
		return err
	}
	return o.MatMul(out, w, cols, forward)
}

// Conv2dInputGrad records gx = dL/dx for the output gradient gy: the
// product Wᵀ·gy into dcols (ColsLen elements of scratch), scattered back
// onto the input.
func (o Ops) Conv2dInputGrad(gx, gy, w, dcols *Buffer, c *Conv) error {
	_, inputGrad, _ := c.specs()
	if err := o.MatMul(dcols, w, gy, inputGrad); err != nil {
		return err
	}
	return o.ScatterAdd(gx, dcols, c.cols, false)
}

// Conv2dWeightGrad records gw = dL/dw for the output gradient gy from the
// im2col matrices cols that Conv2d left: gy·colsᵀ summed over the samples.
func (o Ops) Conv2dWeightGrad(gw, gy, cols *Buffer, c *Conv) error {
	_, _, weightGrad := c.specs()
	return o.MatMul(gw, gy, cols, weightGrad)
}
