package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// The per-op benchmarks of the autograd core on the CPU. Each reports its
// throughput: GFLOP/s for products and convolutions (2·multiply-adds; a
// forward and backward pass counts 3 times the forward's), GB/s for
// memory-bound ops (the bytes of the tensors read and written once). The
// training steps of cmd/mnist's models (images/s) are timed next to the
// models, in cmd/internal/mnist. Run both and compare with a baseline as
// docs/PERFORMANCE.md says.

func random(rng *rand.Rand, shape ...int) *autograd.Tensor {
	t := autograd.Zeros(autograd.Float32, shape...)
	for i := range t.Data32() {
		t.Data32()[i] = float32(rng.NormFloat64())
	}
	return t
}

func gflops(b *testing.B, flop float64) {
	b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func gbytes(b *testing.B, bytes float64) {
	b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// BenchmarkMatMul: float32 products n×k by k×m, the MLP's layer shapes at
// batch 128 and squares up to 1024³.
func BenchmarkMatMul(b *testing.B) {
	for _, s := range [][3]int{{128, 784, 128}, {128, 128, 10}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}} {
		n, k, m := s[0], s[1], s[2]
		b.Run(fmt.Sprintf("%dx%dx%d", n, k, m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			x, w := random(rng, n, k), random(rng, k, m)
			for b.Loop() {
				autograd.MatMul(x, w)
			}
			gflops(b, 2*float64(n*k*m))
		})
	}
}

// BenchmarkConv2d: forward and backward (input and weight gradients) of
// the two convolutions of cmd/mnist's CNN at batch 128.
func BenchmarkConv2d(b *testing.B) {
	for _, s := range []struct {
		name       string
		c, o, size int
	}{{"cnn1-1to8-28x28", 1, 8, 28}, {"cnn2-8to16-14x14", 8, 16, 14}} {
		b.Run(s.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			x := random(rng, 128, s.c, s.size, s.size).SetRequiresGrad(true)
			w := random(rng, s.o, s.c, 3, 3).SetRequiresGrad(true)
			bias := random(rng, s.o).SetRequiresGrad(true)
			cfg := autograd.Conv2dConfig{Padding: [2]int{1, 1}}
			gy := random(rng, 128, s.o, s.size, s.size)
			for b.Loop() {
				if err := autograd.Conv2d(x, w, bias, cfg).BackwardWith(gy); err != nil {
					b.Fatal(err)
				}
			}
			gflops(b, 3*2*float64(128*s.o*s.size*s.size*s.c*9))
		})
	}
}

// BenchmarkMaxPool2d: 2×2 max pooling forward and backward over the CNN's
// first activation, [128, 8, 28, 28].
func BenchmarkMaxPool2d(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := random(rng, 128, 8, 28, 28).SetRequiresGrad(true)
	gy := random(rng, 128, 8, 14, 14)
	for b.Loop() {
		if err := autograd.MaxPool2d(x, 2, 0, 0).BackwardWith(gy); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(x.Len())
	gbytes(b, 4*(n+n/4)*2) // read x, write y; read gy, write gx
}

// BenchmarkReLU: forward and backward over [128, 8, 28, 28].
func BenchmarkReLU(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := random(rng, 128, 8, 28, 28).SetRequiresGrad(true)
	gy := random(rng, 128, 8, 28, 28)
	for b.Loop() {
		if err := autograd.Relu(x).BackwardWith(gy); err != nil {
			b.Fatal(err)
		}
	}
	gbytes(b, 4*float64(x.Len())*5) // x→y; x, gy→gx
}

// BenchmarkSoftmaxCrossEntropy: the loss of a batch of logits, forward and
// backward: MNIST's [128, 10] and a wider [128, 1000].
func BenchmarkSoftmaxCrossEntropy(b *testing.B) {
	for _, classes := range []int{10, 1000} {
		b.Run(fmt.Sprintf("128x%d", classes), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			x := random(rng, 128, classes).SetRequiresGrad(true)
			labels := make([]int, 128)
			for i := range labels {
				labels[i] = rng.IntN(classes)
			}
			for b.Loop() {
				if err := nn.CrossEntropyLoss(x, labels, nn.ReduceMean).Backward(); err != nil {
					b.Fatal(err)
				}
			}
			gbytes(b, 4*float64(x.Len())*2) // read the logits, write their gradient
		})
	}
}
