// Package fmnist trains and evaluates small classifiers on Fashion-MNIST
// with autograd: the proof, shared by the autograd/nn tests and the
// cmd/fmnist command, that the library trains real models.
package fmnist

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/internal/idx"
)

// Classes is the number of Fashion-MNIST classes.
const Classes = 10

// NewMLP returns the 784-128-10 perceptron with a ReLU hidden layer.
func NewMLP(rng *rand.Rand) nn.Module {
	return nn.NewSequential(
		nn.Flatten,
		nn.NewLinear(784, 128, true, autograd.Float32, rng),
		nn.ReLU,
		nn.NewLinear(128, Classes, true, autograd.Float32, rng),
	)
}

// NewCNN returns a small convolutional network: two 3x3 convolutions (8 and
// 16 channels, padding 1) each followed by ReLU and 2x2 max pooling, then a
// 64-unit hidden layer.
func NewCNN(rng *rand.Rand) nn.Module {
	pad := autograd.Conv2dConfig{Padding: [2]int{1, 1}}
	return nn.NewSequential(
		nn.NewConv2d(1, 8, 3, pad, true, autograd.Float32, rng),
		nn.ReLU,
		nn.MaxPool2d{Kernel: 2},
		nn.NewConv2d(8, 16, 3, pad, true, autograd.Float32, rng),
		nn.ReLU,
		nn.MaxPool2d{Kernel: 2},
		nn.Flatten,
		nn.NewLinear(16*7*7, 64, true, autograd.Float32, rng),
		nn.ReLU,
		nn.NewLinear(64, Classes, true, autograd.Float32, rng),
	)
}

// NewModel returns the model named kind: "mlp" or "cnn".
func NewModel(kind string, rng *rand.Rand) (nn.Module, error) {
	switch kind {
	case "mlp":
		return NewMLP(rng), nil
	case "cnn":
		return NewCNN(rng), nil
	}
	return nil, fmt.Errorf("fmnist: unknown model %q (want mlp or cnn)", kind)
}

// Config sets up a training run.
type Config struct {
	Epochs int
	Batch  int
	LR     float64 // Adam's peak learning rate, annealed to 0 along a cosine over the run
	Seed   uint64  // shuffling
}

// Input turns images into a [N, 1, 28, 28] tensor, standardised with the
// training set's pixel mean and standard deviation.
func Input(s *idx.Set, indices []int) (*autograd.Tensor, []int) {
	const mean, std = 0.2860, 0.3530
	px, labels := s.Batch(indices)
	for i, p := range px {
		px[i] = (p - mean) / std
	}
	return autograd.New(px, len(indices), 1, s.Rows, s.Cols), labels
}

// Train fits m to train with Adam and softmax cross-entropy, reshuffling
// every epoch, the learning rate following a cosine from cfg.LR to 0. After each epoch it calls report, if not nil, with the epoch
// (from 1) and the mean training loss.
func Train(m nn.Module, train *idx.Set, cfg Config, report func(epoch int, loss float64)) error {
	adam := optim.DefaultAdam()
	adam.LR = cfg.LR
	opt := optim.NewAdam(m.Parameters(), adam)
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	perEpoch := (train.Len() + cfg.Batch - 1) / cfg.Batch
	schedule := optim.CosineAnnealingLR{TMax: cfg.Epochs * perEpoch}
	step := 0
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		perm := rng.Perm(train.Len())
		var total float64
		steps := 0
		for lo := 0; lo < len(perm); lo += cfg.Batch {
			x, y := Input(train, perm[lo:min(lo+cfg.Batch, len(perm))])
			optim.SetLR(opt, schedule, step)
			step++
			loss := nn.CrossEntropyLoss(m.Forward(x), y, nn.ReduceMean)
			opt.ZeroGrad()
			if err := loss.Backward(); err != nil {
				return err
			}
			if err := opt.Step(); err != nil {
				return err
			}
			total += loss.Item()
			steps++
		}
		if report != nil {
			report(epoch, total/float64(steps))
		}
	}
	return nil
}

// Accuracy returns the fraction of s that m classifies correctly,
// evaluated without recording a graph.
func Accuracy(m nn.Module, s *idx.Set) float64 {
	const batch = 1000
	correct := 0
	all := make([]int, s.Len())
	for i := range all {
		all[i] = i
	}
	for lo := 0; lo < len(all); lo += batch {
		x, y := Input(s, all[lo:min(lo+batch, len(all))])
		pred := autograd.ArgMax(m.Forward(x.NoGrad()), 1)
		for i, p := range pred {
			if p == y[i] {
				correct++
			}
		}
	}
	return float64(correct) / float64(max(s.Len(), 1))
}
