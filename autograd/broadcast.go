package autograd

import "fmt"

// broadcastShapes returns the shape that a and b broadcast to, by PyTorch's
// (NumPy's) rule: align trailing dimensions; each pair must be equal or
// contain a 1. It panics naming op and both shapes otherwise.
func broadcastShapes(op string, a, b []int) []int {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := 1; i <= n; i++ {
		da, db := 1, 1
		if i <= len(a) {
			da = a[len(a)-i]
		}
		if i <= len(b) {
			db = b[len(b)-i]
		}
		switch {
		case da == db, db == 1:
			out[n-i] = da
		case da == 1:
			out[n-i] = db
		default:
			panic(fmt.Sprintf("autograd: %s: shapes %v and %v do not broadcast", op, a, b))
		}
	}
	return out
}

// broadcastStrides returns strides for reading a tensor of shape from within
// the larger shape out it broadcasts to: 0 along broadcast dimensions.
func broadcastStrides(shape, out []int) []int {
	s := make([]int, len(out))
	own := stridesOf(shape)
	off := len(out) - len(shape)
	for d := range shape {
		if shape[d] != 1 || out[off+d] == 1 {
			s[off+d] = own[d]
		}
	}
	return s
}

// sumTo sums g over the dimensions that broadcasting added to reach shape:
// the gradient of broadcasting a tensor of that shape up to g's shape. It
// returns g itself when the shapes already match.
func sumTo(g *Tensor, shape []int) *Tensor {
	if g == nil || sameShape(g.shape, shape) {
		return g
	}
	lead := len(g.shape) - len(shape)
	var axes []int
	for d := range g.shape {
		if d < lead || (shape[d-lead] == 1 && g.shape[d] != 1) {
			axes = append(axes, d)
		}
	}
	return Reshape(Sum(g, false, axes...), shape...)
}

// checkDType panics when a and b have different dtypes.
func checkDType(op string, a, b *Tensor) {
	if a.dtype != b.dtype {
		panic(fmt.Sprintf("autograd: %s: mixed dtypes %v %v and %v %v (use Cast)", op, a.shape, a.dtype, b.shape, b.dtype))
	}
}
