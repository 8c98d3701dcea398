package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
)

func mlpBatch(rng *rand.Rand) (*autograd.Tensor, []int) {
	x := autograd.Zeros(autograd.Float32, 128, 784)
	Uniform(x, 0, 1, rng)
	y := make([]int, 128)
	for i := range y {
		y[i] = rng.IntN(10)
	}
	return x, y
}

// BenchmarkMLPStep times one full training step of the 784-128-10
// perceptron at batch 128: forward, cross-entropy, backward, Adam.
func BenchmarkMLPStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	l1, l2 := NewLinear(784, 128, true, autograd.Float32, rng), NewLinear(128, 10, true, autograd.Float32, rng)
	net := NewSequential(l1, ReLU, l2)
	opt := optim.NewAdam(net.Parameters(), optim.AdamConfig{})
	x, y := mlpBatch(rng)
	for b.Loop() {
		opt.ZeroGrad()
		if err := CrossEntropyLoss(net.Forward(x), y, ReduceMean).Backward(); err != nil {
			b.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMLPMatMuls times only the five matrix products of that step
// (two forward; weight gradients of both layers and the hidden-layer
// gradient backward) through MatMul: the floor against which the step's
// graph overhead is measured.
func BenchmarkMLPMatMuls(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, _ := mlpBatch(rng)
	w1, w2 := autograd.Zeros(autograd.Float32, 784, 128), autograd.Zeros(autograd.Float32, 128, 10)
	Uniform(w1, -0.05, 0.05, rng)
	Uniform(w2, -0.05, 0.05, rng)
	g := autograd.Zeros(autograd.Float32, 128, 10)
	Uniform(g, -1, 1, rng)
	xt := autograd.Transpose(x, 0, 1)
	w2t := autograd.Transpose(w2, 0, 1)
	for b.Loop() {
		h := autograd.MatMul(x, w1)                     // [128, 128]
		autograd.MatMul(h, w2)                          // [128, 10]
		autograd.MatMul(autograd.Transpose(h, 0, 1), g) // dW2
		gh := autograd.MatMul(g, w2t)                   // dh
		autograd.MatMul(xt, gh)                         // dW1
	}
}
