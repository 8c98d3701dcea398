package autograd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

var matmulSizes = []struct{ n, k, m int }{
	{128, 784, 128}, // the MLP's first layer at batch 128
	{512, 512, 512},
}

func randF32(rng *rand.Rand, shape ...int) *Tensor {
	return Cast(uniform(rng, -1, 1, shape...), Float32)
}

// BenchmarkMatMulVsGemm alternates MatMul with the bare Gemm call on the
// same operands and reports the best time of each as GFLOP/s, and MatMul's
// throughput as a percentage of Gemm's. Alternating and taking minima keeps
// the comparison fair on a machine shared with other jobs.
func BenchmarkMatMulVsGemm(b *testing.B) {
	for _, s := range matmulSizes {
		b.Run(fmt.Sprintf("%dx%dx%d", s.n, s.k, s.m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			x, w := randF32(rng, s.n, s.k), randF32(rng, s.k, s.m)
			c := make([]float32, s.n*s.m)
			ga := blas32.General{Rows: s.n, Cols: s.k, Stride: s.k, Data: x.f32}
			gb := blas32.General{Rows: s.k, Cols: s.m, Stride: s.m, Data: w.f32}
			gc := blas32.General{Rows: s.n, Cols: s.m, Stride: s.m, Data: c}
			bestMM, bestGemm := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
			for b.Loop() {
				t0 := time.Now()
				MatMul(x, w)
				t1 := time.Now()
				blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, ga, gb, 0, gc)
				t2 := time.Now()
				bestMM, bestGemm = min(bestMM, t1.Sub(t0)), min(bestGemm, t2.Sub(t1))
			}
			flop := 2 * float64(s.n*s.k*s.m)
			b.ReportMetric(flop/bestMM.Seconds()/1e9, "matmul-GFLOP/s")
			b.ReportMetric(flop/bestGemm.Seconds()/1e9, "gemm-GFLOP/s")
			b.ReportMetric(100*bestGemm.Seconds()/bestMM.Seconds(), "of-gemm-%")
		})
	}
}

// BenchmarkConv2d times a forward and backward pass of the CNN's second
// convolution at batch 128: [128, 8, 14, 14] * [16, 8, 3, 3].
func BenchmarkConv2d(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randF32(rng, 128, 8, 14, 14).SetRequiresGrad(true)
	w := randF32(rng, 16, 8, 3, 3).SetRequiresGrad(true)
	cfg := Conv2dConfig{Padding: [2]int{1, 1}}
	for b.Loop() {
		y := Conv2d(x, w, nil, cfg)
		if err := y.BackwardWith(Ones(Float32, y.shape...)); err != nil {
			b.Fatal(err)
		}
	}
	// forward + two backward products
	b.ReportMetric(3*2*float64(128*14*14*8*9*16)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkElementwise times a large elementwise op (split over cores).
func BenchmarkElementwise(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := randF32(rng, 1<<20), randF32(rng, 1<<20)
	b.Run("Add", func(b *testing.B) {
		for b.Loop() {
			Add(x, y)
		}
		b.ReportMetric(float64(x.Len())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
	})
	b.Run("Exp", func(b *testing.B) {
		for b.Loop() {
			Exp(x)
		}
		b.ReportMetric(float64(x.Len())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
	})
}
