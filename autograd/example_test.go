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
