package gpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestClipValue(t *testing.T) {
	g := []float32{-1e9, -100.5, -100, -3, 0, 2.5, 100, 100.25, float32(math.Inf(1))}
	want := []float32{-100, -100, -100, -3, 0, 2.5, 100, 100, 100}
	forEachKernels(t, func(t *testing.T, k Kernels) {
		got, err := k.ClipValue(g, 100)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] { // clipping is exact
				t.Errorf("clip(%v) = %v, want %v", g[i], got[i], want[i])
			}
		}
	})
}

// refAdamW is PyTorch's AdamW in float64.
func refAdamW(cfg AdamWConfig, params []float32, grads [][]float32) []float64 {
	p := make([]float64, len(params))
	for i, v := range params {
		p[i] = float64(v)
	}
	m := make([]float64, len(p))
	v := make([]float64, len(p))
	for t, g := range grads {
		bc1 := 1 - math.Pow(cfg.Beta1, float64(t+1))
		bc2 := 1 - math.Pow(cfg.Beta2, float64(t+1))
		for i := range p {
			gi := float64(g[i])
			p[i] *= 1 - cfg.LR*cfg.WeightDecay
			m[i] = cfg.Beta1*m[i] + (1-cfg.Beta1)*gi
			v[i] = cfg.Beta2*v[i] + (1-cfg.Beta2)*gi*gi
			p[i] -= cfg.LR / bc1 * m[i] / (math.Sqrt(v[i])/math.Sqrt(bc2) + cfg.Eps)
		}
	}
	return p
}

func TestAdamW(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 0))
	cfg := AdamWConfig{LR: 0.05, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.01}
	params := randSlice(rng, 333, -10, 10)
	var grads [][]float32
	for range 5 {
		grads = append(grads, randSlice(rng, len(params), -100, 100))
	}
	grads[2][7] = 0 // a zero gradient must not divide by zero
	want := refAdamW(cfg, params, grads)
	forEachKernels(t, func(t *testing.T, k Kernels) {
		got, err := k.AdamW(cfg, params, grads)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, "AdamW", got, want, 1e-5)
	})
}

// TestAdamWRefusesAMSGrad: the engine keeps no running maximum, so asking
// for AMSGrad is an error, not a silently different optimiser.
func TestAdamWRefusesAMSGrad(t *testing.T) {
	cfg := AdamWConfig{LR: 0.05, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, AMSGrad: true}
	if o, err := testDevice(t).NewAdamW(4, cfg); err == nil {
		o.Release()
		t.Fatal("NewAdamW accepted AMSGrad")
	}
}
