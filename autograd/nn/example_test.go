package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
)

// Fit y = 2x + 3 with one Linear layer, MSE and SGD.
func Example() {
	rng := rand.New(rand.NewPCG(1, 0))
	x := autograd.Zeros(autograd.Float32, 64, 1)
	nn.Uniform(x, -1, 1, rng)
	y := autograd.AddScalar(autograd.MulScalar(x, 2), 3)

	model := nn.NewLinear(1, 1, true, autograd.Float32, rng)
	opt := optim.NewSGD(model.Parameters(), optim.SGDConfig{LR: 0.3})
	for range 300 {
		opt.ZeroGrad()
		loss := nn.MSELoss(model.Forward(x), y, nn.ReduceMean)
		if err := loss.Backward(); err != nil {
			panic(err)
		}
		if err := opt.Step(); err != nil {
			panic(err)
		}
	}
	fmt.Printf("y = %.2fx + %.2f\n", model.Weight.Item(), model.Bias.Item())
	// Output: y = 2.00x + 3.00
}

// Cross-entropy with an ignored padding class: only the first sample
// counts, and its logits are uniform over 3 classes, so the loss is ln 3.
func ExampleCrossEntropyLossWith() {
	logits := autograd.New64([]float64{0, 0, 0, 1, 2, 3}, 2, 3)
	loss := nn.CrossEntropyLossWith(logits, []int{2, 0}, nn.ClassOptions{Ignore: true, IgnoreIndex: 0})
	fmt.Printf("%.4f\n", loss.Item())
	// Output: 1.0986
}
