package nn

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

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
	opt := optim.NewAdam(net.Parameters(), optim.DefaultAdam())
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

// mlpMatMuls runs the five matrix products of one MLP training step as bare
// gonum Gemm calls into preallocated buffers, with the transposes the step
// uses: forward x·W1ᵀ and h·W2ᵀ; backward dW2 = gᵀh, dh = g·W2 and
// dW1 = dhᵀx. (The input needs no gradient, so there is no dx.)
type mlpMatMuls struct {
	x, w1, h, w2, g, dw2, dh, dw1, out blas32.General
}

func newMLPMatMuls(rng *rand.Rand) *mlpMatMuls {
	mat := func(r, c int) blas32.General {
		m := blas32.General{Rows: r, Cols: c, Stride: c, Data: make([]float32, r*c)}
		for i := range m.Data {
			m.Data[i] = float32(rng.Float64() - 0.5)
		}
		return m
	}
	return &mlpMatMuls{x: mat(128, 784), w1: mat(128, 784), h: mat(128, 128), w2: mat(10, 128), g: mat(128, 10),
		dw2: mat(10, 128), dh: mat(128, 128), dw1: mat(128, 784), out: mat(128, 10)}
}

func (m *mlpMatMuls) run() {
	blas32.Gemm(blas.NoTrans, blas.Trans, 1, m.x, m.w1, 0, m.h)
	blas32.Gemm(blas.NoTrans, blas.Trans, 1, m.h, m.w2, 0, m.out)
	blas32.Gemm(blas.Trans, blas.NoTrans, 1, m.g, m.h, 0, m.dw2)
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, m.g, m.w2, 0, m.dh)
	blas32.Gemm(blas.Trans, blas.NoTrans, 1, m.dh, m.x, 0, m.dw1)
}

// BenchmarkMLPMatMuls times only the step's matrix products.
func BenchmarkMLPMatMuls(b *testing.B) {
	m := newMLPMatMuls(rand.New(rand.NewPCG(1, 1)))
	for b.Loop() {
		m.run()
	}
}

// BenchmarkMLPOverhead alternates a full MLP training step with its bare
// matrix products and reports the fastest of each and the graph's overhead,
// (step - products) / products. Alternating and taking minima keeps the
// ratio meaningful on a machine shared with other jobs.
func BenchmarkMLPOverhead(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	net := NewSequential(NewLinear(784, 128, true, autograd.Float32, rng), ReLU, NewLinear(128, 10, true, autograd.Float32, rng))
	opt := optim.NewAdam(net.Parameters(), optim.DefaultAdam())
	x, y := mlpBatch(rng)
	mm := newMLPMatMuls(rng)
	bestStep, bestMM := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for b.Loop() {
		t0 := time.Now()
		opt.ZeroGrad()
		if err := CrossEntropyLoss(net.Forward(x), y, ReduceMean).Backward(); err != nil {
			b.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		mm.run()
		t2 := time.Now()
		bestStep, bestMM = min(bestStep, t1.Sub(t0)), min(bestMM, t2.Sub(t1))
	}
	b.ReportMetric(float64(bestStep.Microseconds())/1e3, "step-ms")
	b.ReportMetric(float64(bestMM.Microseconds())/1e3, "matmul-ms")
	b.ReportMetric(100*float64(bestStep-bestMM)/float64(bestMM), "overhead-%")
}
