package autograd

import "fmt"

// Conv2dConfig holds a 2-D convolution's options, each as (height, width).
// Zero Stride and Dilation mean 1, zero Groups means 1, as PyTorch's
// defaults; Padding is zero padding on both sides.
type Conv2dConfig struct {
	Stride   [2]int
	Padding  [2]int
	Dilation [2]int
	Groups   int
}

func (c Conv2dConfig) withDefaults() Conv2dConfig {
	for i := range 2 {
		c.Stride[i] = max(c.Stride[i], 1)
		c.Dilation[i] = max(c.Dilation[i], 1)
	}
	c.Groups = max(c.Groups, 1)
	return c
}

// Conv1dConfig holds a 1-D convolution's options; zero values as in
// Conv2dConfig.
type Conv1dConfig struct {
	Stride, Padding, Dilation, Groups int
}

// Conv1d is torch.nn.functional.conv1d: x [N, C, L], w [O, C/groups, K],
// bias [O] or nil, giving [N, O, Lout]. It runs as Conv2d over a height of 1.
func Conv1d(x, w, bias *Tensor, cfg Conv1dConfig) *Tensor {
	if x.Dim() != 3 || w.Dim() != 3 {
		panic(fmt.Sprintf("autograd: Conv1d: input %v and weight %v (want [N, C, L] and [O, C/groups, K])", x.shape, w.shape))
	}
	c2 := Conv2dConfig{Stride: [2]int{1, cfg.Stride}, Padding: [2]int{0, cfg.Padding}, Dilation: [2]int{1, cfg.Dilation}, Groups: cfg.Groups}
	y := Conv2d(Unsqueeze(x, 2), Unsqueeze(w, 2), bias, c2)
	return Squeeze(y, 2)
}

// convGeom is the geometry of one 2-D convolution.
type convGeom struct {
	n, c, h, w     int // input
	o, kh, kw      int // weight [o, c/groups, kh, kw]
	groups         int
	sh, sw, ph, pw int
	dh, dw         int
	oh, ow         int // output height and width
}

func (g convGeom) cg() int   { return g.c / g.groups }       // input channels per group
func (g convGeom) og() int   { return g.o / g.groups }       // output channels per group
func (g convGeom) rows() int { return g.cg() * g.kh * g.kw } // im2col rows
func (g convGeom) cols() int { return g.oh * g.ow }          // im2col columns

// Conv2d is torch.nn.functional.conv2d: x [N, C, H, W], w [O, C/groups, KH,
// KW], bias [O] or nil, giving [N, O, Hout, Wout] with
// Hout = (H + 2·pad - dil·(KH-1) - 1)/stride + 1. For each block of
// convBlock samples and each group, the forward is an im2col followed by one
// Gemm; the backward computes the input gradient by Gemm and col2im (skipped
// when x needs no gradient), the weight gradient by Gemm summed per block
// and then over blocks in order (deterministic), and the bias gradient by
// Sum. It panics, naming the shapes, when they are inconsistent.
func Conv2d(x, w, bias *Tensor, cfg Conv2dConfig) *Tensor {
	checkDType("Conv2d", x, w)
	cfg = cfg.withDefaults()
	if x.Dim() != 4 || w.Dim() != 4 || cfg.Groups <= 0 || x.shape[1]%cfg.Groups != 0 || w.shape[0]%cfg.Groups != 0 || w.shape[1]*cfg.Groups != x.shape[1] {
		panic(fmt.Sprintf("autograd: Conv2d: input %v, weight %v, groups %d (want [N, C, H, W], [O, C/groups, KH, KW], groups dividing C and O)", x.shape, w.shape, cfg.Groups))
	}
	g := convGeom{n: x.shape[0], c: x.shape[1], h: x.shape[2], w: x.shape[3],
		o: w.shape[0], kh: w.shape[2], kw: w.shape[3], groups: cfg.Groups,
		sh: cfg.Stride[0], sw: cfg.Stride[1], ph: cfg.Padding[0], pw: cfg.Padding[1], dh: cfg.Dilation[0], dw: cfg.Dilation[1]}
	g.oh = (g.h+2*g.ph-g.dh*(g.kh-1)-1)/g.sh + 1
	g.ow = (g.w+2*g.pw-g.dw*(g.kw-1)-1)/g.sw + 1
	if g.oh <= 0 || g.ow <= 0 {
		panic(fmt.Sprintf("autograd: Conv2d: kernel %v larger than padded input %v", w.shape, x.shape))
	}
	if bias != nil && (bias.Dim() != 1 || bias.shape[0] != g.o) {
		panic(fmt.Sprintf("autograd: Conv2d: bias %v for weight %v (want [%d])", bias.shape, w.shape, g.o))
	}
	if bias != nil {
		checkDType("Conv2d", x, bias)
	}
	out := Zeros(x.dtype, g.n, g.o, g.oh, g.ow)
	if x.dtype == Float64 {
		convForward(g, out.f64, x.f64, w.f64, data64(bias))
	} else {
		convForward(g, out.f32, x.f32, w.f32, data32(bias))
	}
	return Record("Conv2d", out, []*Tensor{x, w, bias}, func(gr *Tensor) []*Tensor {
		// The input gradient is skipped when x needs none (the data).
		gx, gw := ZerosLike(x), ZerosLike(w)
		if !x.requiresGrad {
			gx = nil
		}
		if x.dtype == Float64 {
			convBackward(g, data64(gx), gw.f64, gr.f64, x.f64, w.f64)
		} else {
			convBackward(g, data32(gx), gw.f32, gr.f32, x.f32, w.f32)
		}
		var gb *Tensor
		if bias != nil {
			gb = Sum(gr, false, 0, 2, 3)
		}
		return []*Tensor{gx, gw, gb}
	})
}

func data32(t *Tensor) []float32 {
	if t == nil {
		return nil
	}
	return t.f32
}

func data64(t *Tensor) []float64 {
	if t == nil {
		return nil
	}
	return t.f64
}

// im2col fills the columns of col (row stride ld) with the receptive
// fields of one group's input channels x [cg, h, w] (zero outside the
// image): row (c, ki, kj), column (oh, ow).
func im2col[T Float](g convGeom, col []T, ld int, x []T) {
	for r := range g.rows() {
		c, ki, kj := r/(g.kh*g.kw), (r/g.kw)%g.kh, r%g.kw
		dst := col[r*ld:]
		for oh := range g.oh {
			ih := oh*g.sh - g.ph + ki*g.dh
			row := dst[oh*g.ow : (oh+1)*g.ow]
			if ih < 0 || ih >= g.h {
				clear(row)
				continue
			}
			src := x[(c*g.h+ih)*g.w:]
			for ow := range row {
				iw := ow*g.sw - g.pw + kj*g.dw
				if iw >= 0 && iw < g.w {
					row[ow] = src[iw]
				} else {
					row[ow] = 0
				}
			}
		}
	}
}

// col2im adds the columns of col (row stride ld) back into the
// input-shaped gx [cg, h, w]: the adjoint of im2col.
func col2im[T Float](g convGeom, gx, col []T, ld int) {
	for r := range g.rows() {
		c, ki, kj := r/(g.kh*g.kw), (r/g.kw)%g.kh, r%g.kw
		src := col[r*ld:]
		for oh := range g.oh {
			ih := oh*g.sh - g.ph + ki*g.dh
			if ih < 0 || ih >= g.h {
				continue
			}
			dst := gx[(c*g.h+ih)*g.w:]
			for ow := range g.ow {
				if iw := ow*g.sw - g.pw + kj*g.dw; iw >= 0 && iw < g.w {
					dst[iw] += src[oh*g.ow+ow]
				}
			}
		}
	}
}

// convBlock is the number of samples whose im2col columns sit side by side
// in one Gemm (larger products run faster). Blocks are also the unit of
// parallel work, and the weight gradient is summed per block and the blocks
// combined in order: the block size is fixed, so results do not depend on
// the number of CPUs.
const convBlock = 8

// blockRange returns the samples [n0, n1) of block b and the im2col row
// stride ld of the block.
func (g convGeom) blockRange(b int) (n0, n1, ld int) {
	n0, n1 = b*convBlock, min((b+1)*convBlock, g.n)
	return n0, n1, (n1 - n0) * g.cols()
}

func (g convGeom) blocks() int { return (g.n + convBlock - 1) / convBlock }

// convForward computes out = conv(x, w) + bias (bias may be nil): per block
// of samples and group, im2col then one Gemm W_g · col.
func convForward[T Float](g convGeom, out, x, w, bias []T) {
	inPlane, wGroup, cols, og := g.cg()*g.h*g.w, g.og()*g.rows(), g.cols(), g.og()
	parallelForCost(g.blocks(), convBlock*g.o*g.rows()*cols, func(lo, hi int) {
		col := make([]T, g.rows()*convBlock*cols)
		prod := make([]T, og*convBlock*cols)
		for b := lo; b < hi; b++ {
			n0, n1, ld := g.blockRange(b)
			for gi := range g.groups {
				for n := n0; n < n1; n++ {
					im2col(g, col[(n-n0)*cols:], ld, x[(n*g.groups+gi)*inPlane:])
				}
				gemm(false, false, og, ld, g.rows(), w[gi*wGroup:(gi+1)*wGroup], g.rows(), col, ld, 0, prod, ld)
				for n := n0; n < n1; n++ {
					for o := range og {
						oc := gi*og + o
						dst := out[(n*g.o+oc)*cols : (n*g.o+oc+1)*cols]
						copy(dst, prod[o*ld+(n-n0)*cols:])
						if bias != nil {
							for i := range dst {
								dst[i] += bias[oc]
							}
						}
					}
				}
			}
		}
	})
}

// convBackward adds the weight gradient into gw and, unless gx is nil, the
// input gradient into gx: per block and group, dW_g += dY_g · colᵀ and
// dcol = W_gᵀ · dY_g folded back into dX by col2im.
func convBackward[T Float](g convGeom, gx, gw, gout, x, w []T) {
	inPlane, wGroup, cols, og := g.cg()*g.h*g.w, g.og()*g.rows(), g.cols(), g.og()
	partial := make([][]T, g.blocks())
	parallelForCost(g.blocks(), 2*convBlock*g.o*g.rows()*cols, func(lo, hi int) {
		col := make([]T, g.rows()*convBlock*cols)
		gy := make([]T, og*convBlock*cols)
		for b := lo; b < hi; b++ {
			n0, n1, ld := g.blockRange(b)
			pw := make([]T, len(gw))
			for gi := range g.groups {
				for n := n0; n < n1; n++ {
					im2col(g, col[(n-n0)*cols:], ld, x[(n*g.groups+gi)*inPlane:])
					for o := range og {
						oc := gi*og + o
						copy(gy[o*ld+(n-n0)*cols:], gout[(n*g.o+oc)*cols:(n*g.o+oc+1)*cols])
					}
				}
				gemm(false, true, og, g.rows(), ld, gy, ld, col, ld, 1, pw[gi*wGroup:(gi+1)*wGroup], g.rows())
				if gx == nil {
					continue
				}
				gemm(true, false, g.rows(), ld, og, w[gi*wGroup:(gi+1)*wGroup], g.rows(), gy, ld, 0, col, ld)
				for n := n0; n < n1; n++ {
					col2im(g, gx[(n*g.groups+gi)*inPlane:(n*g.groups+gi+1)*inPlane], col[(n-n0)*cols:], ld)
				}
			}
			partial[b] = pw
		}
	})
	for _, pw := range partial {
		for i, v := range pw {
			gw[i] += v
		}
	}
}
