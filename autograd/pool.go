package autograd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Pool2dConfig holds a 2-D pooling's options, each as (height, width), as
// the arguments of torch.nn.functional.max_pool2d and avg_pool2d.
type Pool2dConfig struct {
	Kernel [2]int
	// Stride zero (per axis) means the kernel, as PyTorch's default.
	Stride [2]int
	// Padding is implicit on both sides: -Inf for max, zero for average
	// pooling. At most half the kernel, as PyTorch.
	Padding [2]int
	// Dilation zero means 1. Max pooling only (avg_pool2d has none).
	Dilation [2]int
	// CeilMode rounds the output length up (ceil_mode=True), dropping a
	// last window that would start in the right padding, as PyTorch.
	CeilMode bool
	// ExcludePad leaves the padding out of the averages' divisors:
	// count_include_pad=False. Average pooling only.
	ExcludePad bool
	// DivisorOverride, when not zero, divides every window's sum:
	// divisor_override. Average pooling only.
	DivisorOverride int
}

// Pool1dConfig holds a 1-D pooling's options, as Pool2dConfig's.
type Pool1dConfig struct {
	Kernel, Stride, Padding, Dilation int
	CeilMode, ExcludePad              bool
	DivisorOverride                   int
}

func (c Pool1dConfig) to2d() Pool2dConfig {
	return Pool2dConfig{Kernel: [2]int{1, c.Kernel}, Stride: [2]int{1, c.Stride}, Padding: [2]int{0, c.Padding},
		Dilation: [2]int{1, c.Dilation}, CeilMode: c.CeilMode, ExcludePad: c.ExcludePad, DivisorOverride: c.DivisorOverride}
}

// poolGeom is the geometry of one 2-D pooling over planes planes.
type poolGeom struct {
	planes, h, w, oh, ow int
	kh, kw, sh, sw       int
	ph, pw, dh, dw       int
}

// poolGeometry checks x and cfg and returns the pooling's geometry.
func poolGeometry(op string, x *Tensor, cfg Pool2dConfig) poolGeom {
	bad := x.Dim() != 4 || cfg.DivisorOverride < 0
	for i := range 2 {
		if cfg.Stride[i] == 0 {
			cfg.Stride[i] = cfg.Kernel[i]
		}
		if cfg.Dilation[i] == 0 {
			cfg.Dilation[i] = 1
		}
		bad = bad || cfg.Kernel[i] <= 0 || cfg.Stride[i] <= 0 || cfg.Dilation[i] <= 0 || cfg.Padding[i] < 0 || 2*cfg.Padding[i] > cfg.Kernel[i]
	}
	if bad {
		panic(fmt.Sprintf("autograd: %s: input %v with %+v (want [N, C, H, W], positive kernel, stride and dilation, padding at most half the kernel)", op, x.shape, cfg))
	}
	g := poolGeom{planes: x.shape[0] * x.shape[1], h: x.shape[2], w: x.shape[3],
		kh: cfg.Kernel[0], kw: cfg.Kernel[1], sh: cfg.Stride[0], sw: cfg.Stride[1],
		ph: cfg.Padding[0], pw: cfg.Padding[1], dh: cfg.Dilation[0], dw: cfg.Dilation[1]}
	g.oh = poolLen(g.h, g.kh, g.sh, g.ph, g.dh, cfg.CeilMode)
	g.ow = poolLen(g.w, g.kw, g.sw, g.pw, g.dw, cfg.CeilMode)
	if g.oh <= 0 || g.ow <= 0 {
		panic(fmt.Sprintf("autograd: %s: kernel %v with dilation %v larger than the padded input %v", op, cfg.Kernel, cfg.Dilation, x.shape))
	}
	return g
}

// poolLen is PyTorch's pooling_output_shape: the number of windows of
// length k (dilated by d) at stride s over n cells padded by p on both
// sides, rounded up with ceil, where the last window must then start inside
// the input or the left padding.
func poolLen(n, k, s, p, d int, ceil bool) int {
	span := n + 2*p - d*(k-1) - 1
	if span < 0 {
		return 0
	}
	if ceil {
		span += s - 1
	}
	out := span/s + 1
	if ceil && (out-1)*s >= n+p {
		out--
	}
	return out
}

// MaxPool2d is torch.nn.functional.max_pool2d(x, kernel, stride, padding)
// over x [N, C, H, W] with a square kernel (stride 0 means kernel). See
// MaxPool2dWith for the other options.
func MaxPool2d(x *Tensor, kernel, stride, padding int) *Tensor {
	out, _ := maxPool2d(x, Pool2dConfig{Kernel: [2]int{kernel, kernel}, Stride: [2]int{stride, stride}, Padding: [2]int{padding, padding}})
	return out
}

// MaxPool2dWith is torch.nn.functional.max_pool2d(x, ..., return_indices=True)
// over x [N, C, H, W], giving [N, C, Hout, Wout] and, for each output cell,
// the index of the chosen input cell within its H·W plane (ih·W + iw), as
// PyTorch. Ties keep the first cell in row-major order, and NaN wins, so it
// propagates, as PyTorch. The gradient is scattered to the indices
// (ScatterAdd, whose own gradient is a Gather). A window lying wholly in the
// padding (possible only with dilation) gives -Inf, index -1 and no
// gradient; PyTorch gives -Inf and an index outside the window there. It
// panics, naming the shape, when the options do not fit the input. On a
// device the indices are computed, and the gradient scattered, there;
// returning them reads them back, which waits for the device (MaxPool2d,
// which returns none, does not).
func MaxPool2dWith(x *Tensor, cfg Pool2dConfig) (*Tensor, []int) {
	out, indices := maxPool2d(x, cfg)
	return out, indices() // a copy of its own: the caller may change it
}

// maxPool2d is MaxPool2dWith, with the indices as a function, which on a
// device reads them back on its first call.
func maxPool2d(x *Tensor, cfg Pool2dConfig) (*Tensor, func() []int) {
	g := poolGeometry("MaxPool2dWith", x, cfg)
	out := emptyFor(x.dev, x.dtype, x.shape[0], x.shape[1], g.oh, g.ow) // every element written
	if x.dev != nil {
		return maxPoolOn(g, out, x)
	}
	idx := poolIndices.takeDirty(out.Len()) // every element written
	if x.dtype == Float64 {
		maxPoolKernel(g, out.f64, idx, x.f64)
	} else {
		maxPoolKernel(g, out.f32, idx, x.f32)
	}
	return Record("MaxPool2d", out, []*Tensor{x}, func(gy *Tensor) []*Tensor {
		if gy.dev == nil && !slices.Contains(idx, -1) {
			return []*Tensor{maxPoolGrad(g, gy, idx, x.shape)}
		}
		at := widen(idx)
		gy = Reshape(gy, g.planes, g.oh*g.ow)
		if slices.Contains(idx, -1) {
			// Empty windows send their gradient to cell 0, times 0.
			keep := Zeros(x.dtype, g.planes, g.oh*g.ow)
			for i, k := range idx {
				at[i] = max(int(k), 0)
				if k >= 0 {
					keep.SetAt(i, 1)
				}
			}
			gy = Mul(gy, keep)
		}
		flat := ScatterAdd(Zeros(x.dtype, g.planes, g.h*g.w), 1, at, gy)
		return []*Tensor{Reshape(flat, x.shape...)}
	}), func() []int { return widen(idx) }
}

// widen returns max pooling's indices, kept as int32 (half the memory
// traffic of int), as the []int of the API.
func widen(idx []int32) []int {
	out := make([]int, len(idx))
	for i, k := range idx {
		out[i] = int(k)
	}
	return out
}

// MaxPool1d is torch.nn.functional.max_pool1d(x, ..., return_indices=True)
// over x [N, C, L]: MaxPool2dWith over a height of 1, the indices within
// each row.
func MaxPool1d(x *Tensor, cfg Pool1dConfig) (*Tensor, []int) {
	if x.Dim() != 3 {
		panic(fmt.Sprintf("autograd: MaxPool1d: input %v (want [N, C, L])", x.shape))
	}
	out, idx := MaxPool2dWith(Unsqueeze(x, 2), cfg.to2d())
	return Squeeze(out, 2), idx
}

// maxPoolGrad is max pooling's input gradient (of shape xShape) on the
// CPU for the output gradient gy and the windows' indices idx (none -1):
// the ScatterAdd of the general rule in one pass, without its copies. Its
// rule is the matching gather (maxPoolGather), so gradients of any order
// are recorded, as on a device (maxPoolGradOn).
func maxPoolGrad(g poolGeom, gy *Tensor, idx []int32, xShape []int) *Tensor {
	gx := Zeros(gy.dtype, xShape...)
	if gy.dtype == Float64 {
		maxPoolScatter(g, gx.f64, gy.f64, idx)
	} else {
		maxPoolScatter(g, gx.f32, gy.f32, idx)
	}
	return Record("MaxPool2dBackward", gx, []*Tensor{gy}, func(h *Tensor) []*Tensor {
		return []*Tensor{maxPoolGather(g, h, idx, gy.shape)}
	})
}

// maxPoolGather is h (input-shaped) at the windows' indices, of the
// output's shape yShape: maxPoolGrad's transpose and gradient.
func maxPoolGather(g poolGeom, h *Tensor, idx []int32, yShape []int) *Tensor {
	if h.dev != nil {
		h = mustTo(h, CPU) // NOTE: the indices live on the CPU here
	}
	out := Zeros(h.dtype, yShape...)
	if h.dtype == Float64 {
		maxPoolPick(g, out.f64, h.f64, idx)
	} else {
		maxPoolPick(g, out.f32, h.f32, idx)
	}
	return Record("MaxPoolGather", out, []*Tensor{h}, func(k *Tensor) []*Tensor {
		return []*Tensor{maxPoolGrad(g, k, idx, h.shape)}
	})
}

// maxPoolScatter adds each output's gradient gy[o] to its window's
// maximum in gx, plane by plane, in output order (as ScatterAdd).
func maxPoolScatter[T Float](g poolGeom, gx, gy []T, idx []int32) {
	in, out := g.h*g.w, g.oh*g.ow
	parallelForCost(g.planes, out, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			dst, src, at := gx[p*in:(p+1)*in], gy[p*out:(p+1)*out], idx[p*out:(p+1)*out]
			for o, k := range at {
				dst[k] += src[o]
			}
		}
	})
}

// maxPoolPick sets dst[o] to h at output o's window maximum.
func maxPoolPick[T Float](g poolGeom, dst, h []T, idx []int32) {
	in, out := g.h*g.w, g.oh*g.ow
	parallelForCost(g.planes, out, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			d, src, at := dst[p*out:(p+1)*out], h[p*in:(p+1)*in], idx[p*out:(p+1)*out]
			for o, k := range at {
				d[o] = src[k]
			}
		}
	})
}

// maxPoolOn is maxPool2d on x's device: the indices stay there (the
// gradient scatters by them on the device), and the function returned
// reads them back on its first call, which waits for the work recorded so
// far.
func maxPoolOn(g poolGeom, out, x *Tensor) (*Tensor, func() []int) {
	at := newOn(x.dev, x.dtype, out.shape)
	kernelsOf[PoolKernels]("MaxPool2d", x.dev, "PoolKernels").MaxPool2d(out, at, x, g.export())
	indices := sync.OnceValue(func() []int {
		host := mustTo(at, CPU)
		idx := make([]int, host.Len())
		for i := range idx {
			idx[i] = int(host.At(i))
		}
		return idx
	})
	return Record("MaxPool2d", out, []*Tensor{x}, func(gy *Tensor) []*Tensor {
		return []*Tensor{maxPoolGradOn(g, gy, at, x.shape)}
	}), indices
}

// maxPoolGradOn is max pooling's input gradient (of shape xShape) for the
// output gradient gy, on the device, from the indices at: the device form
// of the ScatterAdd of the CPU's rule, and its rule is the matching Gather
// (maxPoolGatherOn), so gradients of any order are recorded.
func maxPoolGradOn(g poolGeom, gy, at *Tensor, xShape []int) *Tensor {
	gx := newOn(gy.dev, gy.dtype, xShape)
	kernelsOf[PoolKernels]("MaxPool2d", gy.dev, "PoolKernels").MaxPool2dBackward(gx, gy, at, g.export())
	return Record("MaxPool2dBackward", gx, []*Tensor{gy}, func(h *Tensor) []*Tensor {
		return []*Tensor{maxPoolGatherOn(g, h, at, gy.shape)}
	})
}

// maxPoolGatherOn is h (an input-shaped tensor) at the indices at, of the
// output's shape yShape: maxPoolGradOn's transpose and gradient.
func maxPoolGatherOn(g poolGeom, h, at *Tensor, yShape []int) *Tensor {
	out := newOn(h.dev, h.dtype, yShape)
	kernelsOf[PoolKernels]("MaxPool2d", h.dev, "PoolKernels").MaxPoolGather(out, h, at, g.export())
	return Record("MaxPoolGather", out, []*Tensor{h}, func(k *Tensor) []*Tensor {
		return []*Tensor{maxPoolGradOn(g, k, at, h.shape)}
	})
}

// maxPoolKernel writes each window's maximum to out and its index within
// the plane to idx (-1 for an empty window). NaN wins, so it propagates as
// in PyTorch.
func maxPoolKernel[T Float](g poolGeom, out []T, idx []int32, x []T) {
	parallelForCost(g.planes, g.oh*g.ow*g.kh*g.kw, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			plane := x[p*g.h*g.w : (p+1)*g.h*g.w]
			if g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1 && 2*g.oh <= g.h && 2*g.ow <= g.w {
				o, at := out[p*g.oh*g.ow:(p+1)*g.oh*g.ow], idx[p*g.oh*g.ow:(p+1)*g.oh*g.ow]
				if o32, ok := any(o).([]float32); ok {
					maxPool2x2Float32(g, o32, at, any(plane).([]float32))
				} else {
					maxPool2x2(g, o, at, plane)
				}
				continue
			}
			for i := range g.oh {
				for j := range g.ow {
					best, bv := -1, T(math.Inf(-1))
					for ki := range g.kh {
						ih := i*g.sh - g.ph + ki*g.dh
						if ih < 0 || ih >= g.h {
							continue
						}
						for kj := range g.kw {
							iw := j*g.sw - g.pw + kj*g.dw
							if iw < 0 || iw >= g.w {
								continue
							}
							at := ih*g.w + iw
							if v := plane[at]; best < 0 || v > bv || v != v {
								best, bv = at, v
							}
						}
					}
					o := (p*g.oh+i)*g.ow + j
					idx[o], out[o] = int32(best), bv
				}
			}
		}
	})
}

// maxPool2x2 is maxPoolKernel for one plane of the common 2×2 window with
// stride 2, no padding and no dilation, every window inside the plane. It
// picks what the general loop picks, the first cell holding the maximum
// (the last NaN when there is one), without a branch on the data where no
// NaN is present: the maximum first, then its first cell by comparisons a
// conditional move resolves (activations after ReLU tie at 0 half the
// time, which a branch predictor loses).
func maxPool2x2[T Float](g poolGeom, out []T, idx []int32, plane []T) {
	for i := range g.oh {
		top, bottom := 2*i*g.w, (2*i+1)*g.w
		r0, r1 := plane[top:top+2*g.ow], plane[bottom:bottom+2*g.ow]
		o, at := out[i*g.ow:(i+1)*g.ow], idx[i*g.ow:(i+1)*g.ow]
		for j := range o {
			a, b, c, d := r0[2*j], r0[2*j+1], r1[2*j], r1[2*j+1]
			m := max(max(a, b), max(c, d))
			if m != m { // a NaN: the general order of comparisons
				o[j], at[j] = maxPoolNaNWindow(plane, top+2*j, bottom+2*j)
				continue
			}
			k := bottom + 2*j + 1
			if c == m {
				k = bottom + 2*j
			}
			if b == m {
				k = top + 2*j + 1
			}
			if a == m {
				k = top + 2*j
			}
			o[j], at[j] = plane[k], int32(k)
		}
	}
}

// maxPool2x2Float32 is maxPool2x2 for float32, without a branch on the
// data but the one for a NaN: the four values compared as integers of the
// same order (orderKey32) and the first maximum found by one integer max
// (arithmetic), where the compiler's float comparisons (unordered
// for NaN) become branches that activations after ReLU, tied at 0 half the
// time, make a predictor lose (the generic form took 3.6 ms on a CNN layer's
// [128, 8, 28, 28], this one 0.4).
func maxPool2x2Float32(g poolGeom, out []float32, idx []int32, plane []float32) {
	const abs, inf = 0x7fffffff, 0x7f800000
	for i := range g.oh {
		top, bottom := 2*i*g.w, (2*i+1)*g.w
		r0, r1 := plane[top:top+2*g.ow], plane[bottom:bottom+2*g.ow]
		o, at := out[i*g.ow:(i+1)*g.ow], idx[i*g.ow:(i+1)*g.ow]
		for j := range o {
			a, b := math.Float32bits(r0[2*j]), math.Float32bits(r0[2*j+1])
			c, d := math.Float32bits(r1[2*j]), math.Float32bits(r1[2*j+1])
			if max(a&abs, b&abs, c&abs, d&abs) > inf { // a NaN
				o[j], at[j] = maxPoolNaNWindow(plane, top+2*j, bottom+2*j)
				continue
			}
			// Each key with its cell's rank from the end in the low bits:
			// the largest is the maximum's first cell.
			m := maxArith(maxArith(orderKey32(a)<<2|3, orderKey32(b)<<2|2), maxArith(orderKey32(c)<<2|1, orderKey32(d)<<2))
			cell := 3 - int(m&3) // 0 a, 1 b, 2 c, 3 d
			k := top + 2*j + cell&1 + (cell>>1)*g.w
			o[j], at[j] = plane[k], int32(k)
		}
	}
}

// orderKey32 maps the bits of a float32 other than NaN to an integer of
// the same order, -0 and +0 both to 0 (they compare equal as floats): the
// magnitude, negated for a negative sign.
func orderKey32(bits uint32) int64 {
	sign := int64(int32(bits) >> 31) // 0 or -1
	return (int64(bits&0x7fffffff) ^ sign) - sign
}

// maxArith is max(a, b) for |a|, |b| < 2^62 by arithmetic: the compiler
// turns the builtin max of int64 values into branches.
func maxArith(a, b int64) int64 {
	d := a - b
	return a - d&(d>>63)
}

// maxPoolNaNWindow is the general loop's pick in the 2×2 window whose rows
// start at plane[top] and plane[bottom]. It is a call of its own so that
// maxPool2x2's loop keeps its values in registers.
//
//go:noinline
func maxPoolNaNWindow[T Float](plane []T, top, bottom int) (T, int32) {
	best, bv := top, plane[top]
	for _, k := range [3]int{top + 1, bottom, bottom + 1} {
		if v := plane[k]; v > bv || v != v {
			best, bv = k, v
		}
	}
	return bv, int32(best)
}

// AvgPool2d is torch.nn.functional.avg_pool2d(x, kernel, stride, padding)
// over x [N, C, H, W] with a square kernel (stride 0 means kernel), the zero
// padding counted in the average. See AvgPool2dWith for the other options.
func AvgPool2d(x *Tensor, kernel, stride, padding int) *Tensor {
	return AvgPool2dWith(x, Pool2dConfig{Kernel: [2]int{kernel, kernel}, Stride: [2]int{stride, stride}, Padding: [2]int{padding, padding}})
}

// AvgPool2dWith is torch.nn.functional.avg_pool2d(x, kernel, stride,
// padding, ceil_mode, count_include_pad, divisor_override) over
// x [N, C, H, W]. Each window's divisor is DivisorOverride if set, else its
// cells inside the input plus, unless ExcludePad, those in the padding (not
// those past it, which only ceil_mode reaches), as PyTorch. It is composed
// as a depthwise convolution with a kernel of ones times a constant tensor
// of reciprocal divisors, so its gradients of any order are Conv2d's. It
// panics when the options do not fit the input, or Dilation is set.
func AvgPool2dWith(x *Tensor, cfg Pool2dConfig) *Tensor {
	if max(cfg.Dilation[0], cfg.Dilation[1]) > 1 {
		panic(fmt.Sprintf("autograd: AvgPool2dWith: dilation %v (avg_pool2d has none)", cfg.Dilation))
	}
	g := poolGeometry("AvgPool2dWith", x, cfg)
	c := x.shape[1]
	cg := convGeom{n: x.shape[0], c: c, h: g.h, w: g.w, o: c, kh: g.kh, kw: g.kw, groups: c,
		sh: g.sh, sw: g.sw, ph: g.ph, pw: g.pw, dh: 1, dw: 1, oh: g.oh, ow: g.ow}
	sum := convOp(cg, x, constantOn(x.dev, Ones(x.dtype, c, 1, g.kh, g.kw)), nil)
	inv := Zeros(x.dtype, g.oh, g.ow)
	for i := range g.oh {
		inH, padH := windowCells(i*g.sh-g.ph, g.kh, g.h, g.ph)
		for j := range g.ow {
			inW, padW := windowCells(j*g.sw-g.pw, g.kw, g.w, g.pw)
			div := padH * padW
			if cfg.ExcludePad {
				div = inH * inW
			}
			if cfg.DivisorOverride != 0 {
				div = cfg.DivisorOverride
			}
			if inH > 0 && inW > 0 {
				inv.SetAt(i*g.ow+j, 1/float64(div))
			}
		}
	}
	return Mul(sum, constantOn(x.dev, inv))
}

// windowCells returns how many cells of a window of length k starting at
// start lie inside an axis of length n, and how many lie inside it or its
// padding p on either side.
func windowCells(start, k, n, p int) (inside, padded int) {
	end := min(start+k, n+p)
	return min(end, n) - max(start, 0), end - start
}

// AvgPool1d is torch.nn.functional.avg_pool1d over x [N, C, L]: AvgPool2dWith
// over a height of 1.
func AvgPool1d(x *Tensor, cfg Pool1dConfig) *Tensor {
	if x.Dim() != 3 {
		panic(fmt.Sprintf("autograd: AvgPool1d: input %v (want [N, C, L])", x.shape))
	}
	return Squeeze(AvgPool2dWith(Unsqueeze(x, 2), cfg.to2d()), 2)
}

// Dropout zeroes each element of x with probability p and scales the rest by
// 1/(1-p) when train is true (inverted dropout, as PyTorch); when train is
// false, or p is 0, it returns x unchanged. The mask comes from a
// counter-based random stream (see DropoutKeeps) seeded by one draw from
// rng, so a seeded rng gives the same mask, on every device: a GPU computes
// each element's draw from its index alone. It panics if p is outside
// [0, 1], or if rng is nil in training mode.
func Dropout(x *Tensor, p float64, train bool, rng *rand.Rand) *Tensor {
	if p < 0 || p > 1 {
		panic(fmt.Sprintf("autograd: Dropout: probability %v outside [0, 1]", p))
	}
	if !train || p == 0 {
		return x
	}
	if rng == nil {
		panic("autograd: Dropout in training mode needs a random source (rng is nil)")
	}
	seed, threshold, scale := rng.Uint64(), DropoutThreshold(p), 0.0
	if p < 1 {
		scale = 1 / (1 - p)
	}
	mask := Empty(x.dev, x.dtype, x.shape...)
	if x.dev != nil {
		kernelsOf[RandomKernels]("Dropout", x.dev, "RandomKernels").DropoutMask(mask, seed, threshold, scale)
	} else {
		for i := range mask.Len() {
			if DropoutKeeps(seed, uint32(i), threshold) {
				mask.SetAt(i, scale)
			}
		}
	}
	return Mul(x, mask)
}

// DropoutThreshold is the least 24-bit draw that Dropout keeps with
// probability p: ceil(p·2^24), so that a draw uniform on [0, 2^24) is
// dropped with probability p (to within 2^-24).
func DropoutThreshold(p float64) uint32 { return uint32(math.Ceil(p * (1 << 24))) }

// DropoutKeeps reports whether Dropout keeps element i of the stream seed:
// whether the top 24 bits of a hash of (seed, i) reach threshold. The hash
// is two rounds of the PCG hash of Jarzynski and Olano ("Hash Functions for
// GPU Rendering", 2020) in 32-bit arithmetic, which a GPU kernel computes
// alike (gpu's dropout_mask.wgsl).
func DropoutKeeps(seed uint64, i, threshold uint32) bool {
	key := pcgHash(uint32(seed))
	return pcgHash(pcgHash(i^key)^uint32(seed>>32))>>8 >= threshold
}

// pcgHash is the PCG hash: one step of a 32-bit PCG generator from state v,
// and its output permutation.
func pcgHash(v uint32) uint32 {
	state := v*747796405 + 2891336453
	word := ((state >> ((state >> 28) + 4)) ^ state) * 277803737
	return (word >> 22) ^ word
}
