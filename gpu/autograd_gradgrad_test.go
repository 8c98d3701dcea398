package gpu

import (
	"testing"

	"github.com/dlca/dlca/autograd"
)

// gradientPenalty returns f's output plus the squared norm of its gradient
// with respect to every input, the gradient recorded (CreateGraph), so that
// the harness's backward pass differentiates f twice.
func gradientPenalty(t *testing.T, f func(xs ...*autograd.Tensor) *autograd.Tensor) func(xs ...*autograd.Tensor) *autograd.Tensor {
	return func(xs ...*autograd.Tensor) *autograd.Tensor {
		y := autograd.Sum(autograd.Square(f(xs...)), false)
		gs, err := autograd.Grad(y, xs, autograd.BackwardOptions{CreateGraph: true})
		if err != nil {
			t.Fatal(err)
		}
		total := y
		for _, g := range gs {
			total = autograd.Add(total, autograd.Sum(autograd.Square(g), false))
		}
		return total
	}
}

// TestSecondOrderTensorOpParity holds second derivatives on the GPU to the
// CPU's: the backward rules of products, convolutions, copies and gathers
// are ops with GPU kernels too, so a gradient penalty through them runs on
// the device. The tolerance is 1e-3: chains of four float32 products
// cancel, and at the worst element of the convolution's case the CPU's
// float32 result is itself 1.5e-4 from float64's (the GPU's 1.8e-4, on the
// same side).
func TestSecondOrderTensorOpParity(t *testing.T) {
	idx := []int{3, 0, 3, 1}
	checkCases(t, 1e-3, []opCase{
		{"MatMul", [][]int{{2, 7, 5}, {5, 3}}, gradientPenalty(t, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.MatMul(xs[0], xs[1])
		})},
		{"Conv2d", [][]int{{2, 4, 6, 5}, {6, 2, 3, 3}}, gradientPenalty(t, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.Conv2d(xs[0], xs[1], nil, autograd.Conv2dConfig{Stride: [2]int{2, 1}, Padding: [2]int{1, 1}, Groups: 2})
		})},
		{"NarrowCatPad", [][]int{{3, 7}}, gradientPenalty(t, func(xs ...*autograd.Tensor) *autograd.Tensor {
			x := autograd.Pad(xs[0], 0, 1, 2)
			return autograd.Mul(autograd.Cat(1, x, autograd.Narrow(x, 1, 2, 4)), autograd.Cat(1, x, autograd.Narrow(x, 1, 2, 4)))
		})},
		{"MaxPool2d", [][]int{{2, 3, 7, 6}}, gradientPenalty(t, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.MaxPool2d(autograd.Mul(xs[0], xs[0]), 3, 2, 1)
		})},
		{"IndexSelect", [][]int{{5, 4}}, gradientPenalty(t, func(xs ...*autograd.Tensor) *autograd.Tensor {
			s := autograd.IndexSelect(xs[0], 1, idx)
			return autograd.Mul(s, s)
		})},
	})
}
