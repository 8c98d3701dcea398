package mnist

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// TestFashionMNISTMLP trains the 784-128-10 perceptron of autograd/nn for 4
// epochs of Adam (batch 128, learning rate 2e-3 annealed along a cosine) on
// the installed Fashion-MNIST, read by internal/idx, and requires at least
// 87% test accuracy (88.1% with this seed): the end-to-end check that
// autograd, nn and optim learn a real task. (It lived in autograd/nn until
// this package moved under cmd/internal, which nn may not import.)
func TestFashionMNISTMLP(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for several seconds; skipped with -short")
	}
	if _, err := os.Stat(FashionDir); err != nil {
		t.Skipf("Fashion-MNIST not installed at %s (apt-get install dataset-fashion-mnist)", FashionDir)
	}
	train, test, err := Fashion.Load("")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMLP(autograd.Float32, rand.New(rand.NewPCG(1, 0)))
	cfg := Config{Epochs: 4, Batch: 128, LR: 2e-3, Seed: 1}
	if err := Train(m, train, cfg, func(epoch int, loss float64) {
		t.Logf("epoch %d: training loss %.4f", epoch, loss)
	}); err != nil {
		t.Fatal(err)
	}
	acc, err := Accuracy(m, On(autograd.CPU), test)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("test accuracy %.4f", acc)
	if acc < 0.87 {
		t.Fatalf("test accuracy %.4f, want at least 0.87", acc)
	}
}
