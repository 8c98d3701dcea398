package mnist

import (
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/internal/idx"
)

// synthetic returns a small random data set shaped like MNIST.
func synthetic(n int, rng *rand.Rand) *Set {
	s := &Set{Set: &idx.Set{Images: make([]byte, n*784), Labels: make([]int, n), Rows: 28, Cols: 28}, Mean: MNIST.Mean, Std: MNIST.Std}
	for i := range s.Images {
		s.Images[i] = byte(rng.IntN(256))
	}
	for i := range s.Labels {
		s.Labels[i] = rng.IntN(Classes)
	}
	return s
}

// TestModelsTrain runs both models for a step on synthetic data: shapes
// fit, the loss is finite and accuracy is a fraction.
func TestModelsTrain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	data := synthetic(64, rng)
	for _, kind := range []string{"mlp", "cnn"} {
		m, err := NewModel(kind, autograd.Float32, rng)
		if err != nil {
			t.Fatal(err)
		}
		var last float64
		if err := Train(m, data, Config{Epochs: 1, Batch: 32, LR: 1e-3, Seed: 1}, func(_ int, loss float64) { last = loss }); err != nil {
			t.Fatal(err)
		}
		if !(last > 0 && last < 10) {
			t.Fatalf("%s: training loss %v", kind, last)
		}
		if acc, err := Accuracy(m, On(autograd.CPU), data); err != nil || acc < 0 || acc > 1 {
			t.Fatalf("%s: accuracy %v, %v", kind, acc, err)
		}
	}
	if _, err := NewModel("resnet", autograd.Float32, rng); err == nil {
		t.Fatal("unknown model accepted")
	}
}

// TestDeterministic trains each model briefly with one CPU and with four
// and requires bit-identical parameters.
func TestDeterministic(t *testing.T) {
	data := synthetic(96, rand.New(rand.NewPCG(3, 3)))
	for _, kind := range []string{"mlp", "cnn"} {
		var params [2][]*autograd.Tensor
		for i, procs := range []int{1, 4} {
			prev := runtime.GOMAXPROCS(procs)
			m, err := NewModel(kind, autograd.Float32, rand.New(rand.NewPCG(4, 4)))
			if err != nil {
				t.Fatal(err)
			}
			if err := Train(m, data, Config{Epochs: 1, Batch: 48, LR: 1e-3, Seed: 5}, nil); err != nil {
				t.Fatal(err)
			}
			runtime.GOMAXPROCS(prev)
			params[i] = m.Parameters()
		}
		for i, p := range params[0] {
			a, b := p.Data32(), params[1][i].Data32()
			for j := range a {
				if a[j] != b[j] {
					t.Fatalf("%s: parameter %d element %d: %v with 1 CPU, %v with 4", kind, i, j, a[j], b[j])
				}
			}
		}
	}
}

// benchStep times Adam steps of m at batch 128 on random inputs and
// reports images/s and GFLOP/s, flop being the forward pass's floating
// point operations per image (a forward and backward pass counts 3 times
// the forward's). These are part of the regression check of
// docs/PERFORMANCE.md, with ./bench.
func benchStep(b *testing.B, m nn.Module, flop float64) {
	rng := rand.New(rand.NewPCG(2, 2))
	data := synthetic(128, rng)
	all := make([]int, 128)
	for i := range all {
		all[i] = i
	}
	x, y := data.Input(all)
	opt := optim.NewAdam(m.Parameters(), optim.DefaultAdam())
	for b.Loop() {
		opt.ZeroGrad()
		if err := nn.CrossEntropyLoss(m.Forward(x), y, nn.ReduceMean).Backward(); err != nil {
			b.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			b.Fatal(err)
		}
	}
	images := float64(b.N * len(all))
	b.ReportMetric(images/b.Elapsed().Seconds(), "images/s")
	b.ReportMetric(3*flop*images/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkMLPStep times one training step of the 784-128-10 MLP at batch
// 128 from a [128, 1, 28, 28] input.
func BenchmarkMLPStep(b *testing.B) {
	benchStep(b, NewMLP(autograd.Float32, rand.New(rand.NewPCG(1, 1))), 2*(784*128+128*10))
}

// BenchmarkCNNStep times one training step of the CNN at batch 128.
func BenchmarkCNNStep(b *testing.B) {
	benchStep(b, NewCNN(autograd.Float32, rand.New(rand.NewPCG(1, 1))), 2*(8*9*28*28+16*8*9*14*14+784*64+64*10))
}

// BenchmarkEpochMLP times one full Fashion-MNIST training epoch of the MLP
// (469 steps of batch 128). Run with -benchtime 1x.
func BenchmarkEpochMLP(b *testing.B) {
	if _, err := os.Stat(FashionDir); err != nil {
		b.Skip("Fashion-MNIST not installed")
	}
	train, _, err := Fashion.Load("")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		m := NewMLP(autograd.Float32, rand.New(rand.NewPCG(1, 1)))
		if err := Train(m, train, Config{Epochs: 1, Batch: 128, LR: 2e-3, Seed: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
