package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSgemm reports GFLOP/s (2·m·n·k per product) for square and
// MNIST-shaped products, on one thread and on GOMAXPROCS, with the
// assembly and the pure-Go kernel.
func BenchmarkSgemm(b *testing.B) {
	shapes := [][3]int{{1024, 1024, 1024}, {256, 256, 256}, {128, 128, 784}, {128, 784, 128}, {32, 6272, 288}}
	for _, s := range shapes {
		for _, asm := range []bool{true, false} {
			for _, th := range []int{1, 0} {
				m, n, k := s[0], s[1], s[2]
				b.Run(fmt.Sprintf("%dx%dx%d/asm=%v/threads=%d", m, n, k, asm && hasAsm(), th), func(b *testing.B) {
					was := UseAssembly(asm)
					defer UseAssembly(was)
					rng := rand.New(rand.NewPCG(1, 1))
					a, lda, bb, ldb, c, ldc := operands[float32](rng, false, false, m, n, k)
					b.ResetTimer()
					for range b.N {
						Sgemm(false, false, m, n, k, a, lda, bb, ldb, 0, c, ldc, th)
					}
					b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkDgemm is BenchmarkSgemm for float64 at 512³.
func BenchmarkDgemm(b *testing.B) {
	m, n, k := 512, 512, 512
	rng := rand.New(rand.NewPCG(1, 1))
	a, lda, bb, ldb, c, ldc := operands[float64](rng, false, false, m, n, k)
	for range b.N {
		Dgemm(false, false, m, n, k, a, lda, bb, ldb, 0, c, ldc, 1)
	}
	b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
