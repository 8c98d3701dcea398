package autograd_test

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// A batched matrix product and a trace with Einsum, as torch.einsum.
func ExampleEinsum() {
	a := autograd.New64([]float64{1, 2, 3, 4}, 1, 2, 2)
	b := autograd.New64([]float64{5, 6, 7, 8}, 1, 2, 2)
	fmt.Println(autograd.Einsum("bij,bjk->bik", a, b).Data64())
	fmt.Println(autograd.Einsum("ii->", autograd.Reshape(a, 2, 2)).Item())
	// Output:
	// [19 22 43 50]
	// 5
}

// Quantile interpolates between the sorted elements around q·(n-1), as
// torch.quantile; the gradient goes to those two elements.
func ExampleQuantile() {
	x := autograd.New64([]float64{3, 0, 2, 1}, 4).SetRequiresGrad(true)
	q := autograd.Quantile(x, 0.6, autograd.QuantileConfig{})
	if err := q.Backward(); err != nil {
		panic(err)
	}
	fmt.Printf("%.2f %.2f\n", q.Item(), x.Grad().Data64())
	// Output: 1.80 [0.00 0.00 0.80 0.20]
}
