package autograd_test

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// The gradient of y = sum(x²) is 2x.
func Example() {
	x := autograd.New64([]float64{1, 2, 3}, 3).SetRequiresGrad(true)
	y := autograd.Sum(autograd.Square(x), false)
	if err := y.Backward(); err != nil {
		panic(err)
	}
	fmt.Println(y.Item(), x.Grad().Data64())
	// Output: 14 [2 4 6]
}

// Broadcasting sums the gradient back to each operand's shape: b, added to
// each of a's three rows, gets 3 per element.
func ExampleAdd() {
	a := autograd.Zeros(autograd.Float32, 3, 2).SetRequiresGrad(true)
	b := autograd.New([]float32{10, 20}, 2).SetRequiresGrad(true)
	c := autograd.Add(a, b)
	if err := autograd.Sum(c, false).Backward(); err != nil {
		panic(err)
	}
	fmt.Println(c.Shape(), b.Grad().Data32())
	// Output: [3 2] [3 3]
}

// CheckGrad compares Backward with finite differences; here for
// f(a, b) = a·sin(b).
func ExampleCheckGrad() {
	f := func(x []*autograd.Tensor) *autograd.Tensor {
		return autograd.Mul(x[0], autograd.Sin(x[1]))
	}
	a := autograd.New64([]float64{0.5, -1}, 2)
	b := autograd.New64([]float64{2, 0.25}, 2)
	fmt.Println(autograd.CheckGrad(f, []*autograd.Tensor{a, b}, 1e-6, 1e-6))
	// Output: <nil>
}

// Grad with CreateGraph gives a gradient that can be differentiated again:
// y = x³ has dy/dx = 3x² and d²y/dx² = 6x.
func ExampleGrad() {
	x := autograd.New64([]float64{1, 2}, 2).SetRequiresGrad(true)
	y := autograd.Sum(autograd.PowScalar(x, 3), false)
	dy, err := autograd.Grad(y, []*autograd.Tensor{x}, autograd.BackwardOptions{CreateGraph: true})
	if err != nil {
		panic(err)
	}
	d2y, err := autograd.Grad(autograd.Sum(dy[0], false), []*autograd.Tensor{x}, autograd.BackwardOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(dy[0].Data64(), d2y[0].Data64())
	// Output: [3 12] [6 12]
}

// A NoGrad value records nothing, whatever the other operands require: the
// way to evaluate a model, scoped to the data rather than to a goroutine.
func ExampleTensor_NoGrad() {
	w := autograd.New64([]float64{2}, 1).SetRequiresGrad(true)
	x := autograd.New64([]float64{3}, 1)
	train := autograd.Mul(w, x)
	eval := autograd.Mul(w, x.NoGrad())
	fmt.Println(train.RequiresGrad(), eval.RequiresGrad(), eval.Data64())
	// Output: true false [6]
}
