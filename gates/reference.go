package gates

import "github.com/dlca/dlca/autograd"

// ForwardReference is Forward written the slow, readable way, composed from
// autograd primitives as the paper defines the layer:
//
//	a, b = x[..., Wiring.A], x[..., Wiring.B]       (IndexSelect)
//	p    = softmax(Logits)                          (over the 16 ops)
//	y    = sum over ops o of p[..., o] * o(a, b)    (o's relaxed form)
//
// Every gradient comes from the primitives' own backward rules, so it shares
// no code with the fused kernels (no coefficient collapse, no four sums, no
// feature-major layout) and tests hold the two to each other. It is many times
// slower and allocates a tensor per op. It takes and returns the same shapes
// as Forward and panics in the same cases.
func (l *Layer) ForwardReference(x *autograd.Tensor) *autograd.Tensor {
	d := l.dims(x)
	axis := x.Dim() - 1
	a := autograd.IndexSelect(x, axis, ints(l.Wiring.A))
	b := autograd.IndexSelect(x, axis, ints(l.Wiring.B))
	if d.SharedInput { // [rows, Out] -> [rows, 1, Out], broadcast over groups
		a = autograd.Reshape(a, d.Rows, 1, d.Out)
		b = autograd.Reshape(b, d.Rows, 1, d.Out)
	}
	ab := autograd.Mul(a, b)
	p := autograd.Softmax(l.Logits, 2)
	var y *autograd.Tensor
	for o := range Op(NumOps) {
		po := autograd.Reshape(autograd.Narrow(p, 2, int(o), 1), d.Groups, d.Out)
		term := autograd.Mul(po, relaxedTensor(o, a, b, ab))
		if y == nil {
			y = term
		} else {
			y = autograd.Add(y, term)
		}
	}
	return y
}

// relaxedTensor evaluates op o's relaxed form c0 + c1 a + c2 b + c3 ab on
// tensors, skipping the zero coefficients.
func relaxedTensor(o Op, a, b, ab *autograd.Tensor) *autograd.Tensor {
	c := o.Coeffs()
	var t *autograd.Tensor
	for j, basis := range []*autograd.Tensor{a, b, ab} {
		if c[j+1] == 0 {
			continue
		}
		term := autograd.MulScalar(basis, c[j+1])
		if t == nil {
			t = term
		} else {
			t = autograd.Add(t, term)
		}
	}
	if t == nil { // a constant op
		return autograd.Full(ab.DType(), c[0], ab.Shape()...)
	}
	if c[0] != 0 {
		t = autograd.AddScalar(t, c[0])
	}
	return t
}

func ints(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}
