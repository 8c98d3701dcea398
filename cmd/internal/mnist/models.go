package mnist

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// Models lists the model names NewModel knows.
var Models = []string{"mlp", "cnn"}

// NewMLP returns the 784-128-10 perceptron with a ReLU hidden layer, its
// parameters of the given dtype.
func NewMLP(dtype autograd.DType, rng *rand.Rand) nn.Module {
	return nn.NewSequential(
		nn.Flatten,
		nn.NewLinear(784, 128, true, dtype, rng),
		nn.ReLU,
		nn.NewLinear(128, Classes, true, dtype, rng),
	)
}

// NewCNN returns a small convolutional network: two 3x3 convolutions (8 and
// 16 channels, padding 1) each followed by ReLU and 2x2 max pooling, then a
// 64-unit hidden layer (about 52,000 parameters).
func NewCNN(dtype autograd.DType, rng *rand.Rand) nn.Module {
	pad := autograd.Conv2dConfig{Padding: [2]int{1, 1}}
	return nn.NewSequential(
		nn.NewConv2d(1, 8, 3, pad, true, dtype, rng),
		nn.ReLU,
		nn.MaxPool2d{Kernel: 2},
		nn.NewConv2d(8, 16, 3, pad, true, dtype, rng),
		nn.ReLU,
		nn.MaxPool2d{Kernel: 2},
		nn.Flatten,
		nn.NewLinear(16*7*7, 64, true, dtype, rng),
		nn.ReLU,
		nn.NewLinear(64, Classes, true, dtype, rng),
	)
}

// NewModel returns the model named kind ("mlp" or "cnn") with parameters
// of the given dtype.
func NewModel(kind string, dtype autograd.DType, rng *rand.Rand) (nn.Module, error) {
	switch kind {
	case "mlp":
		return NewMLP(dtype, rng), nil
	case "cnn":
		return NewCNN(dtype, rng), nil
	}
	return nil, fmt.Errorf("mnist: unknown model %q (want mlp or cnn)", kind)
}
