package gpu

import (
	"slices"

	"github.com/dlca/dlca/autograd"
)

// TensorKernels are the kernels that run autograd's general ops (matrix
// products, shape and index ops, convolutions) on row-major float32 tensors,
// as functions on host slices. Their CPU twins are autograd's own ops, so a
// test holds each kernel to the CPU autograd's result.
type TensorKernels interface {
	// MatMul returns op(a)·op(b) as s describes, of shape s.OutShape().
	MatMul(a, b []float32, s MatMulSpec) ([]float32, error)
}

// MatMul is autograd.MatMul of the (transposed) operands, summed to
// s.OutBatch.
func (CPU) MatMul(a, b []float32, s MatMulSpec) ([]float32, error) {
	x, y := autograd.New(slices.Clone(a), s.AShape...), autograd.New(slices.Clone(b), s.BShape...)
	if s.TransA {
		x = autograd.Transpose(x, -1, -2)
	}
	if s.TransB {
		y = autograd.Transpose(y, -1, -2)
	}
	return sumTo(autograd.MatMul(x, y), s.OutShape()).Data32(), nil
}

// sumTo sums t over the leading dimensions it has beyond shape and over
// those that are 1 in shape, as autograd sums a broadcast operand's
// gradient.
func sumTo(t *autograd.Tensor, shape []int) *autograd.Tensor {
	lead := t.Dim() - len(shape)
	var axes []int
	for d, size := range t.Shape() {
		if d < lead || shape[d-lead] == 1 && size != 1 {
			axes = append(axes, d)
		}
	}
	if len(axes) == 0 {
		return t
	}
	return autograd.Reshape(autograd.Sum(t, false, axes...), shape...)
}

// MatMul runs matmul.wgsl.
func (k GPU) MatMul(a, b []float32, s MatMulSpec) ([]float32, error) {
	n := numel(s.OutShape())
	sh := k.start()
	defer sh.close()
	ba, bb, bc := sh.in("a", a, 0), sh.in("b", b, 0), sh.in("c", nil, n)
	if sh.err == nil {
		sh.record(sh.p.MatMul(bc, ba, bb, s))
	}
	return sh.read(bc, n), sh.err
}
