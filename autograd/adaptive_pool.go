package autograd

import "fmt"

// AdaptiveAvgPool2d averages x [N, C, H, W] (or [C, H, W]) over windows
// chosen so that the result has height and width size, as
// torch.nn.functional.adaptive_avg_pool2d(x, size): output cell (i, j)
// is the mean of rows floor(i·H/outH) to ceil((i+1)·H/outH) - 1 and
// columns floor(j·W/outW) to ceil((j+1)·W/outW) - 1, PyTorch's windows
// (they overlap when the size does not divide evenly). A size of 0 keeps
// that axis's input length (PyTorch's None).
//
// The windows are rectangles, so the average is separable: with Ah
// [outH, H] holding 1/rows in each output row's window, and Aw likewise,
// the result is Ah · x · Awᵀ, two MatMuls with constant matrices. Its
// gradient is PyTorch's (each cell's gradient spread evenly over its
// window), on every device. It panics on another rank or a negative size.
func AdaptiveAvgPool2d(x *Tensor, size [2]int) *Tensor {
	if x.Dim() != 3 && x.Dim() != 4 || size[0] < 0 || size[1] < 0 {
		panic(fmt.Sprintf("autograd: AdaptiveAvgPool2d: input %v to size %v (want [N, C, H, W] or [C, H, W] and sizes >= 0)", x.shape, size))
	}
	h, w := x.shape[x.Dim()-2], x.shape[x.Dim()-1]
	if size[0] == 0 {
		size[0] = h
	}
	if size[1] == 0 {
		size[1] = w
	}
	ah := constantOn(x.dev, Cast(adaptiveWindows(size[0], h), x.dtype))
	awT := constantOn(x.dev, Cast(Transpose(adaptiveWindows(size[1], w), 0, 1), x.dtype))
	return MatMul(MatMul(ah, x), awT)
}

// adaptiveWindows returns the [out, in] float64 matrix whose row i holds
// 1/len over PyTorch's adaptive window [floor(i·in/out), ceil((i+1)·in/out)).
func adaptiveWindows(out, in int) *Tensor {
	m := Zeros(Float64, out, in)
	for i := range out {
		start, end := i*in/out, ((i+1)*in+out-1)/out
		for k := start; k < end; k++ {
			m.f64[i*in+k] = 1 / float64(end-start)
		}
	}
	return m
}
