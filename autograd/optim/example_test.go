package optim_test

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
)

// Minimise (w - 3)² with AdamW, clipping each gradient element to ±1.
func ExampleNewAdamW() {
	w := autograd.Scalar64(0).SetRequiresGrad(true)
	cfg := optim.DefaultAdamW()
	cfg.LR = 0.1
	opt := optim.NewAdamW([]*autograd.Tensor{w}, cfg)
	for range 500 {
		opt.ZeroGrad()
		loss := autograd.Square(autograd.SubScalar(w, 3))
		if err := loss.Backward(); err != nil {
			panic(err)
		}
		optim.ClipGradValue([]*autograd.Tensor{w}, 1)
		if err := opt.Step(); err != nil {
			panic(err)
		}
	}
	fmt.Printf("%.2f\n", w.Item())
	// Output: 3.00
}
