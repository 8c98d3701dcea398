package fused

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAdamAssemblyMatchesGo: AdamFloat32 (the assembly for whole groups of
// four, Go for the rest) gives the bits of adamGo on every element, for
// lengths around the group size, with weight decay both ways (L2 and
// decoupled), gradients from tiny to large, zeros included.
func TestAdamAssemblyMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	consts := []Adam{
		{B1: 0.9, OneMinusB1: 1 - 0.9, B2: 0.999, OneMinusB2: 1 - 0.999, L2: 0, Decay: 1, StepSize: 2e-3 / (1 - 0.9), SqrtBC2: math.Sqrt(1 - 0.999), Eps: 1e-8},
		{B1: 0.8, OneMinusB1: 1 - 0.8, B2: 0.99, OneMinusB2: 1 - 0.99, L2: 0.01, Decay: 1, StepSize: 0.37, SqrtBC2: 0.3, Eps: 1e-6},
		{B1: 0.9, OneMinusB1: 1 - 0.9, B2: 0.999, OneMinusB2: 1 - 0.999, Decay: 1 - 1e-4, StepSize: 1e-3, SqrtBC2: 0.05, Eps: 0},
	}
	for _, c := range consts {
		for _, n := range []int{1, 3, 4, 5, 8, 13, 64, 1001} {
			p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range p {
				scale := math.Pow(10, float64(rng.IntN(16)-8))
				p[i] = float32(rng.NormFloat64())
				g[i] = float32(rng.NormFloat64() * scale)
				m[i] = float32(rng.NormFloat64() * scale)
				v[i] = float32(rng.Float64() * scale * scale)
				if i%7 == 0 {
					g[i], m[i], v[i] = 0, 0, 0
				}
			}
			p2, g2, m2, v2 := clone(p), clone(g), clone(m), clone(v)
			AdamFloat32(p, g, m, v, &c)
			adamGo(p2, g2, m2, v2, &c)
			for i := range p {
				for _, pair := range [][2]float32{{p[i], p2[i]}, {m[i], m2[i]}, {v[i], v2[i]}} {
					if math.Float32bits(pair[0]) != math.Float32bits(pair[1]) {
						t.Fatalf("n=%d element %d: AdamFloat32 %v, Go %v (p %v/%v m %v/%v v %v/%v), asm %v", n, i, pair[0], pair[1], p[i], p2[i], m[i], m2[i], v[i], v2[i], useAsm)
					}
				}
			}
		}
	}
}

func clone(s []float32) []float32 { return append([]float32(nil), s...) }

// BenchmarkAdamFloat32 reports the elements updated per second, for the
// MLP's parameter count.
func BenchmarkAdamFloat32(b *testing.B) {
	n := 784*128 + 128 + 128*10 + 10
	p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range g {
		g[i] = float32(i%17) - 8
	}
	c := Adam{B1: 0.9, OneMinusB1: 1 - 0.9, B2: 0.999, OneMinusB2: 1 - 0.999, Decay: 1, StepSize: 1e-3, SqrtBC2: 0.5, Eps: 1e-8}
	b.Run("AdamFloat32", func(b *testing.B) {
		for b.Loop() {
			AdamFloat32(p, g, m, v, &c)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
	})
	b.Run("Go", func(b *testing.B) {
		for b.Loop() {
			adamGo(p, g, m, v, &c)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
	})
}
