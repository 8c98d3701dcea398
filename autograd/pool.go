package autograd

import (
	"fmt"
	"math/rand/v2"
)

// MaxPool2d is torch.nn.functional.max_pool2d over x [N, C, H, W] with a
// square kernel, stride (0 means kernel) and implicit -Inf padding, giving
// [N, C, Hout, Wout]. The forward saves the index of each window's maximum
// (the first one on ties); the backward scatters the gradient to those
// indices. It panics, naming the shape, when the window does not fit.
func MaxPool2d(x *Tensor, kernel, stride, padding int) *Tensor {
	if stride == 0 {
		stride = kernel
	}
	oh, ow := poolShape("MaxPool2d", x, kernel, stride, padding)
	n, c, h, w := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	out := Zeros(x.dtype, n, c, oh, ow)
	idx := make([]int, out.Len())
	geom := poolGeom{planes: n * c, h: h, w: w, oh: oh, ow: ow, k: kernel, stride: stride, pad: padding}
	if x.dtype == Float64 {
		maxPoolKernel(geom, out.f64, idx, x.f64)
	} else {
		maxPoolKernel(geom, out.f32, idx, x.f32)
	}
	return Record("MaxPool2d", out, []*Tensor{x}, func(g *Tensor) []*Tensor {
		flat := ScatterAdd(Zeros(x.dtype, x.Len()), 0, idx, Reshape(g, -1))
		return []*Tensor{Reshape(flat, x.shape...)}
	})
}

type poolGeom struct {
	planes, h, w, oh, ow, k, stride, pad int
}

// maxPoolKernel writes each window's maximum to out and its flat index in x
// to idx. NaN wins, so it propagates as in PyTorch.
func maxPoolKernel[T Float](g poolGeom, out []T, idx []int, x []T) {
	parallelForCost(g.planes, g.oh*g.ow*g.k*g.k, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			for i := range g.oh {
				for j := range g.ow {
					best := -1
					var bv T
					for ki := range g.k {
						ih := i*g.stride - g.pad + ki
						if ih < 0 || ih >= g.h {
							continue
						}
						for kj := range g.k {
							iw := j*g.stride - g.pad + kj
							if iw < 0 || iw >= g.w {
								continue
							}
							at := (p*g.h+ih)*g.w + iw
							if v := x[at]; best < 0 || v > bv || v != v {
								best, bv = at, v
							}
						}
					}
					o := (p*g.oh+i)*g.ow + j
					idx[o], out[o] = best, bv
				}
			}
		}
	})
}

// AvgPool2d is torch.nn.functional.avg_pool2d over x [N, C, H, W] with a
// square kernel, stride (0 means kernel) and zero padding counted in the
// average (PyTorch's count_include_pad=True). It is composed as a depthwise
// Conv2d with constant weights 1/kernel², so its gradient is Conv2d's.
func AvgPool2d(x *Tensor, kernel, stride, padding int) *Tensor {
	if stride == 0 {
		stride = kernel
	}
	poolShape("AvgPool2d", x, kernel, stride, padding)
	c := x.shape[1]
	w := Full(x.dtype, 1/float64(kernel*kernel), c, 1, kernel, kernel)
	return Conv2d(x, w, nil, Conv2dConfig{Stride: [2]int{stride, stride}, Padding: [2]int{padding, padding}, Groups: c})
}

func poolShape(op string, x *Tensor, kernel, stride, padding int) (oh, ow int) {
	if x.Dim() != 4 || kernel <= 0 || stride <= 0 || padding < 0 || 2*padding > kernel {
		panic(fmt.Sprintf("autograd: %s: input %v with kernel %d, stride %d, padding %d (want [N, C, H, W] and padding at most half the kernel)", op, x.shape, kernel, stride, padding))
	}
	oh = (x.shape[2]+2*padding-kernel)/stride + 1
	ow = (x.shape[3]+2*padding-kernel)/stride + 1
	if oh <= 0 || ow <= 0 {
		panic(fmt.Sprintf("autograd: %s: kernel %d larger than the padded input %v", op, kernel, x.shape))
	}
	return oh, ow
}

// Dropout zeroes each element of x with probability p and scales the rest by
// 1/(1-p) when train is true (inverted dropout, as PyTorch); when train is
// false, or p is 0, it returns x unchanged. The mask is drawn from rng, so
// a seeded rng gives the same mask. It panics if p is outside [0, 1], or if
// rng is nil in training mode.
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
	mask := ZerosLike(x)
	if p < 1 {
		keep := 1 / (1 - p)
		for i := range mask.Len() {
			if rng.Float64() >= p {
				mask.SetAt(i, keep)
			}
		}
	}
	return Mul(x, mask)
}
