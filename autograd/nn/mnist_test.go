package nn_test

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/internal/mnist"
)

// TestFashionMNISTMLP trains the 784-128-10 perceptron for 4 epochs of Adam
// (batch 128, learning rate 2e-3 annealed along a cosine) on the installed
// Fashion-MNIST, read by internal/idx, and requires at least 87% test
// accuracy (88.1% with this seed).
func TestFashionMNISTMLP(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for several seconds; skipped with -short")
	}
	if _, err := os.Stat(mnist.FashionDir); err != nil {
		t.Skipf("Fashion-MNIST not installed at %s (apt-get install dataset-fashion-mnist)", mnist.FashionDir)
	}
	train, test, err := mnist.Fashion.Load("")
	if err != nil {
		t.Fatal(err)
	}
	m := mnist.NewMLP(autograd.Float32, rand.New(rand.NewPCG(1, 0)))
	cfg := mnist.Config{Epochs: 4, Batch: 128, LR: 2e-3, Seed: 1}
	if err := mnist.Train(m, train, cfg, func(epoch int, loss float64) {
		t.Logf("epoch %d: training loss %.4f", epoch, loss)
	}); err != nil {
		t.Fatal(err)
	}
	acc, err := mnist.Accuracy(m, mnist.CPU{}, test)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("test accuracy %.4f", acc)
	if acc < 0.87 {
		t.Fatalf("test accuracy %.4f, want at least 0.87", acc)
	}
}
