package autograd

import "fmt"

// PaddingRule chooses how a convolution's padding is set: from the Padding
// field, or by one of the string values of PyTorch's padding argument.
type PaddingRule int

const (
	// PaddingExplicit pads by the Padding field (the default).
	PaddingExplicit PaddingRule = iota
	// PaddingValid does not pad: padding='valid'. Padding must be zero.
	PaddingValid
	// PaddingSame pads so that the output has the input's length:
	// padding='same'. The total dilation·(kernel-1) is split with the
	// extra cell, when it is odd, after the input (right, bottom), as
	// PyTorch. Stride must be 1 and Padding zero.
	PaddingSame
)

// Conv2dConfig holds a 2-D convolution's options, each as (height, width).
// Zero Stride and Dilation mean 1, zero Groups means 1, as PyTorch's
// defaults; Padding pads both sides of each axis. Kernels are rectangular
// through the weight's shape.
type Conv2dConfig struct {
	Stride   [2]int
	Padding  [2]int
	Dilation [2]int
	Groups   int
	// Rule is padding='same' or 'valid' (PaddingSame, PaddingValid), or
	// the Padding field (PaddingExplicit, the default).
	Rule PaddingRule
	// Mode fills the padding as torch.nn.Conv2d's padding_mode: PadConstant
	// is 'zeros' (the default), and the other modes pad the input with
	// PadWith and then convolve without padding, as PyTorch does.
	Mode PadMode
}

func (c Conv2dConfig) withDefaults() Conv2dConfig {
	for i := range 2 {
		c.Stride[i] = max(c.Stride[i], 1)
		c.Dilation[i] = max(c.Dilation[i], 1)
	}
	c.Groups = max(c.Groups, 1)
	return c
}

// pads returns the padding (before, after) of axis i (0 height, 1 width)
// for a kernel of length k, by the rule. It panics on a rule that does not
// fit the other fields.
func (c Conv2dConfig) pads(i, k int) (before, after int) {
	switch c.Rule {
	case PaddingExplicit:
		return c.Padding[i], c.Padding[i]
	case PaddingValid, PaddingSame:
		if c.Padding != [2]int{} {
			panic(fmt.Sprintf("autograd: Conv2d: padding %v with a padding rule (PaddingValid or PaddingSame take no Padding)", c.Padding))
		}
		if c.Rule == PaddingValid {
			return 0, 0
		}
		if c.Stride != [2]int{1, 1} {
			panic(fmt.Sprintf("autograd: Conv2d: PaddingSame with stride %v (PyTorch's padding='same' needs stride 1)", c.Stride))
		}
		total := c.Dilation[i] * (k - 1)
		return total / 2, total - total/2
	}
	panic(fmt.Sprintf("autograd: Conv2d: unknown padding rule %d", int(c.Rule)))
}

// Conv1dConfig holds a 1-D convolution's options; zero values, Rule and
// Mode as in Conv2dConfig.
type Conv1dConfig struct {
	Stride, Padding, Dilation, Groups int
	Rule                              PaddingRule
	Mode                              PadMode
}

// Conv1d is torch.nn.functional.conv1d: x [N, C, L], w [O, C/groups, K],
// bias [O] or nil, giving [N, O, Lout]; with cfg.Mode, torch.nn.Conv1d's
// padding_mode. It runs as Conv2d over a height of 1.
func Conv1d(x, w, bias *Tensor, cfg Conv1dConfig) *Tensor {
	if x.Dim() != 3 || w.Dim() != 3 {
		panic(fmt.Sprintf("autograd: Conv1d: input %v and weight %v (want [N, C, L] and [O, C/groups, K])", x.shape, w.shape))
	}
	c2 := Conv2dConfig{Stride: [2]int{1, cfg.Stride}, Padding: [2]int{0, cfg.Padding}, Dilation: [2]int{1, cfg.Dilation}, Groups: cfg.Groups, Rule: cfg.Rule, Mode: cfg.Mode}
	y := Conv2d(Unsqueeze(x, 2), Unsqueeze(w, 2), bias, c2)
	return Squeeze(y, 2)
}

// convGeom is the geometry of one 2-D convolution. The padding before each
// axis is ph, pw; the padding after it only shows in oh, ow.
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
// Hout = (H + padTop + padBottom - dil·(KH-1) - 1)/stride + 1; with
// cfg.Mode, torch.nn.Conv2d's padding_mode. For each block of convBlock
// samples and each group, the forward is an im2col followed by one Gemm.
// The input gradient (a transposed convolution of the output gradient) and
// the weight gradient (a correlation of input and output gradient) are ops
// of their own whose gradients are again convolutions, so gradients of any
// order are recorded. It panics, naming the shapes, when they are
// inconsistent.
func Conv2d(x, w, bias *Tensor, cfg Conv2dConfig) *Tensor {
	checkDType("Conv2d", x, w)
	cfg = cfg.withDefaults()
	if x.Dim() != 4 || w.Dim() != 4 || cfg.Groups <= 0 || x.shape[1]%cfg.Groups != 0 || w.shape[0]%cfg.Groups != 0 || w.shape[1]*cfg.Groups != x.shape[1] {
		panic(fmt.Sprintf("autograd: Conv2d: input %v, weight %v, groups %d (want [N, C, H, W], [O, C/groups, KH, KW], groups dividing C and O)", x.shape, w.shape, cfg.Groups))
	}
	g := conv2dGeom(x.shape, w.shape, cfg)
	if cfg.Mode != PadConstant {
		top, bottom := cfg.pads(0, w.shape[2])
		left, right := cfg.pads(1, w.shape[3])
		x = PadWith(x, cfg.Mode, left, right, top, bottom)
	}
	if bias != nil && (bias.Dim() != 1 || bias.shape[0] != g.o) {
		panic(fmt.Sprintf("autograd: Conv2d: bias %v for weight %v (want [%d])", bias.shape, w.shape, g.o))
	}
	if bias != nil {
		checkDType("Conv2d", x, bias)
	}
	return convOp(g, x, w, bias)
}

// conv2dGeom returns the geometry of Conv2d for an input of shape xShape,
// a weight of shape wShape and cfg (with its defaults): with a padding mode
// other than zeros, that of the unpadded convolution of the padded input.
// It panics when the kernel is larger than the padded input.
func conv2dGeom(xShape, wShape []int, cfg Conv2dConfig) convGeom {
	top, bottom := cfg.pads(0, wShape[2])
	left, right := cfg.pads(1, wShape[3])
	g := convGeom{n: xShape[0], c: xShape[1], h: xShape[2], w: xShape[3],
		o: wShape[0], kh: wShape[2], kw: wShape[3], groups: cfg.Groups,
		sh: cfg.Stride[0], sw: cfg.Stride[1], ph: top, pw: left, dh: cfg.Dilation[0], dw: cfg.Dilation[1]}
	if cfg.Mode != PadConstant {
		g.h, g.w = g.h+top+bottom, g.w+left+right
		top, bottom, left, right = 0, 0, 0, 0
		g.ph, g.pw = 0, 0
	}
	g.oh = (g.h+top+bottom-g.dh*(g.kh-1)-1)/g.sh + 1
	g.ow = (g.w+left+right-g.dw*(g.kw-1)-1)/g.sw + 1
	if g.h+top+bottom < g.dh*(g.kh-1)+1 || g.w+left+right < g.dw*(g.kw-1)+1 {
		panic(fmt.Sprintf("autograd: Conv2d: kernel %v larger than padded input %v", wShape, xShape))
	}
	return g
}

// convOp is the convolution of geometry g, plus bias (nil for none).
func convOp(g convGeom, x, w, bias *Tensor) *Tensor {
	out := emptyFor(deviceOf("Conv2d", x, w, bias), x.dtype, g.n, g.o, g.oh, g.ow) // every element written
	switch {
	case out.dev != nil:
		kernelsOf[ConvKernels]("Conv2d", out.dev, "ConvKernels").Conv2d(out, x, w, g.export())
		if bias != nil { // added unrecorded: the rule below is the bias's
			out = arith("Add", out, Reshape(bias.NoGrad(), g.o, 1, 1), opAdd)
		}
	case x.dtype == Float64:
		convForward(g, out.f64, x.f64, w.f64, data64(bias))
	default:
		convForward(g, out.f32, x.f32, w.f32, data32(bias))
	}
	return Record("Conv2d", out, []*Tensor{x, w, bias}, func(gy *Tensor) []*Tensor {
		// Gradients nobody needs are skipped: the data x, the constant
		// kernel of AvgPool2d.
		var gx, gw, gb *Tensor
		if x.requiresGrad {
			gx = convInputGrad(g, gy, w)
		}
		if w.requiresGrad {
			gw = convWeightGrad(g, x, gy)
		}
		if bias != nil {
			gb = Sum(gy, false, 0, 2, 3)
		}
		return []*Tensor{gx, gw, gb}
	})
}

// convInputGrad is the gradient of convOp with respect to its input x for
// the output gradient gy: the transposed convolution of gy with w. It is
// linear in gy and in w, and its gradients are convOp (for gy) and
// convWeightGrad (for w).
func convInputGrad(g convGeom, gy, w *Tensor) *Tensor {
	gx := Empty(deviceOf("Conv2d", gy, w), gy.dtype, g.n, g.c, g.h, g.w)
	switch {
	case gx.dev != nil:
		kernelsOf[ConvKernels]("Conv2d", gx.dev, "ConvKernels").Conv2dInputGrad(gx, gy, w, g.export())
	case gy.dtype == Float64:
		convInputGradKernel(g, gx.f64, gy.f64, w.f64)
	default:
		convInputGradKernel(g, gx.f32, gy.f32, w.f32)
	}
	return Record("Conv2dInputGrad", gx, []*Tensor{gy, w}, func(h *Tensor) []*Tensor {
		var ggy, gw *Tensor
		if gy.requiresGrad {
			ggy = convOp(g, h, w, nil)
		}
		if w.requiresGrad {
			gw = convWeightGrad(g, h, gy)
		}
		return []*Tensor{ggy, gw}
	})
}

// convWeightGrad is the gradient of convOp with respect to its weight for
// input x and output gradient gy: the correlation of x with gy. Its
// gradients are convInputGrad (for x) and convOp (for gy).
func convWeightGrad(g convGeom, x, gy *Tensor) *Tensor {
	gw := Empty(deviceOf("Conv2d", x, gy), x.dtype, g.o, g.cg(), g.kh, g.kw)
	switch {
	case gw.dev != nil:
		kernelsOf[ConvKernels]("Conv2d", gw.dev, "ConvKernels").Conv2dWeightGrad(gw, x, gy, g.export())
	case x.dtype == Float64:
		convWeightGradKernel(g, gw.f64, gy.f64, x.f64)
	default:
		convWeightGradKernel(g, gw.f32, gy.f32, x.f32)
	}
	return Record("Conv2dWeightGrad", gw, []*Tensor{x, gy}, func(k *Tensor) []*Tensor {
		var gx, ggy *Tensor
		if x.requiresGrad {
			gx = convInputGrad(g, gy, k)
		}
		if gy.requiresGrad {
			ggy = convOp(g, x, k, nil)
		}
		return []*Tensor{gx, ggy}
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
			if g.sw == 1 { // the columns inside the image are one run: a copy
				off := kj*g.dw - g.pw // iw = ow + off
				lo, hi := max(0, -off), min(g.ow, g.w-off)
				if lo >= hi {
					clear(row)
					continue
				}
				clear(row[:lo])
				copy(row[lo:hi], src[lo+off:hi+off])
				clear(row[hi:])
				continue
			}
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
			if g.sw == 1 { // im2col's run of columns inside the image
				off := kj*g.dw - g.pw
				lo, hi := max(0, -off), min(g.ow, g.w-off)
				if lo < hi {
					d, s := dst[lo+off:hi+off], src[oh*g.ow+lo:oh*g.ow+hi]
					for i := range d {
						d[i] += s[i]
					}
				}
				continue
			}
			for ow := range g.ow {
				if iw := ow*g.sw - g.pw + kj*g.dw; iw >= 0 && iw < g.w {
					dst[iw] += src[oh*g.ow+ow]
				}
			}
		}
	}
}

// convBlock is the number of samples in a unit of parallel work. The
// weight gradient is summed per block and the blocks combined in order:
// the block size is fixed, so results do not depend on the number of CPUs.
// Within a block each sample is one Gemm per group, whose output (or
// gradient) planes are the Gemm's rows as they lie in the tensor, so
// nothing is copied into a block layout and back.
const convBlock = 8

// blockRange returns the samples [n0, n1) of block b.
func (g convGeom) blockRange(b int) (n0, n1 int) {
	return b * convBlock, min((b+1)*convBlock, g.n)
}

func (g convGeom) blocks() int { return (g.n + convBlock - 1) / convBlock }

// convForward computes out = conv(x, w) + bias (bias may be nil): per
// sample and group, im2col then one Gemm W_g · col written straight into
// the sample's output planes (rows o, columns oh·ow). The bias is the
// product's last term: a row of ones under the columns and the bias as
// the weight's last column, so the Gemm adds it to each finished sum
// without a pass of its own. While the product's terms fit in one of the
// Gemm's blocks (fewer than 256 rows of columns: C/groups·KH·KW < 256),
// that is the sum and then one rounded addition, the bits of adding the
// bias afterwards; past it, the bias joins the last block's sum.
func convForward[T Float](g convGeom, out, x, w, bias []T) {
	inPlane, cols, og, k := g.cg()*g.h*g.w, g.cols(), g.og(), g.rows()
	wk := w
	if bias != nil { // [W_g | b_g] per group
		k++
		wkBuf := getScratch[T](g.o * k)
		defer putScratch(wkBuf)
		wk = *wkBuf
		for oc := range g.o {
			copy(wk[oc*k:], w[oc*g.rows():(oc+1)*g.rows()])
			wk[oc*k+g.rows()] = bias[oc]
		}
	}
	parallelForCost(g.blocks(), convBlock*g.o*k*cols, func(lo, hi int) {
		colBuf := getScratch[T](k * cols)
		defer putScratch(colBuf)
		col := *colBuf
		if bias != nil { // im2col leaves the last row as it is
			ones := col[g.rows()*cols : (g.rows()+1)*cols]
			for i := range ones {
				ones[i] = 1
			}
		}
		for b := lo; b < hi; b++ {
			n0, n1 := g.blockRange(b)
			for n := n0; n < n1; n++ {
				for gi := range g.groups {
					im2col(g, col, cols, x[(n*g.groups+gi)*inPlane:])
					dst := out[(n*g.o+gi*og)*cols : (n*g.o+(gi+1)*og)*cols]
					gemm(false, false, og, cols, k, wk[gi*og*k:(gi+1)*og*k], k, col, cols, 0, dst, cols, 1)
				}
			}
		}
	})
}

// convWeightGradKernel adds the weight gradient into gw: per block, sample
// and group dW_g += dY_g · colᵀ, each block into a partial sum of its own,
// and the partial sums combined in block order (the blocks are fixed, so
// the sums do not depend on the number of goroutines).
func convWeightGradKernel[T Float](g convGeom, gw, gy, x []T) {
	inPlane, wGroup, cols, og := g.cg()*g.h*g.w, g.og()*g.rows(), g.cols(), g.og()
	partialBuf := getScratch[T](g.blocks() * len(gw))
	defer putScratch(partialBuf)
	partial := *partialBuf
	clear(partial)
	parallelForCost(g.blocks(), convBlock*g.o*g.rows()*cols, func(lo, hi int) {
		colBuf := getScratch[T](g.rows() * cols)
		defer putScratch(colBuf)
		col := *colBuf
		for b := lo; b < hi; b++ {
			n0, n1 := g.blockRange(b)
			pw := partial[b*len(gw) : (b+1)*len(gw)]
			for n := n0; n < n1; n++ {
				for gi := range g.groups {
					im2col(g, col, cols, x[(n*g.groups+gi)*inPlane:])
					dy := gy[(n*g.o+gi*og)*cols : (n*g.o+(gi+1)*og)*cols]
					gemm(false, true, og, g.rows(), cols, dy, cols, col, cols, 1, pw[gi*wGroup:(gi+1)*wGroup], g.rows(), 1)
				}
			}
		}
	})
	for b := range g.blocks() {
		for i, v := range partial[b*len(gw) : (b+1)*len(gw)] {
			gw[i] += v
		}
	}
}

// convInputGradKernel adds the input gradient into gx: per sample and
// group dcol = W_gᵀ · dY_g, folded back into dX by col2im.
func convInputGradKernel[T Float](g convGeom, gx, gy, w []T) {
	inPlane, wGroup, cols, og := g.cg()*g.h*g.w, g.og()*g.rows(), g.cols(), g.og()
	parallelForCost(g.blocks(), convBlock*g.o*g.rows()*cols, func(lo, hi int) {
		colBuf := getScratch[T](g.rows() * cols)
		defer putScratch(colBuf)
		col := *colBuf
		for b := lo; b < hi; b++ {
			n0, n1 := g.blockRange(b)
			for n := n0; n < n1; n++ {
				for gi := range g.groups {
					dy := gy[(n*g.o+gi*og)*cols : (n*g.o+(gi+1)*og)*cols]
					gemm(true, false, g.rows(), cols, og, w[gi*wGroup:(gi+1)*wGroup], g.rows(), dy, cols, 0, col, cols, 1)
					col2im(g, gx[(n*g.groups+gi)*inPlane:(n*g.groups+gi+1)*inPlane], col, cols)
				}
			}
		}
	})
}
