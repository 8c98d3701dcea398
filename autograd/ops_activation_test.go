package autograd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestActivationValues checks values and gradients at chosen points,
// including the kinks and the thresholds, against PyTorch's formulas worked
// out by hand (the constants come from Python's math module).
func TestActivationValues(t *testing.T) {
	const e1 = 0.36787944117144233 // e^-1
	cases := []struct {
		name           string
		f              func(*Tensor) *Tensor
		x, value, grad []float64
	}{
		// log1p(e²)/2; 2·10 is not above 20, so log1p(e^20)/2; 2·11 > 20
		// returns x with gradient 1. The gradient below is σ(2x).
		{"SoftplusWith", func(a *Tensor) *Tensor { return SoftplusWith(a, 2, 20) },
			[]float64{1, 10, 11}, []float64{1.0634640055214863, 10.000000001030577, 11}, []float64{0.8807970779778823, 1 / (1 + math.Exp(-20)), 1}},
		// alpha·(e^x - 1) below 0; gradient alpha·e^x, alpha at 0.
		{"Elu", func(a *Tensor) *Tensor { return Elu(a, 0.5) },
			[]float64{-1, 0, 2}, []float64{0.5 * (e1 - 1), 0, 2}, []float64{0.5 * e1, 0.5, 1}},
		{"Selu", Selu,
			[]float64{-1, 2}, []float64{-1.1113307378125625, 2 * SeluScale}, []float64{0.646768603034814, SeluScale}},
		// tanh(log(1+e)) and tanh(sp) + σ(1)·(1 - tanh²(sp)).
		{"Mish", Mish, []float64{1}, []float64{0.8650983882673103}, []float64{1.0490362200997922}},
		// Zero gradient at the bounds themselves (unlike Clamp).
		{"Hardtanh", func(a *Tensor) *Tensor { return Hardtanh(a, -1, 1) },
			[]float64{-2, -1, 0.5, 1, 3}, []float64{-1, -1, 0.5, 1, 1}, []float64{0, 0, 1, 0, 0}},
		// x(x+3)/6 between -3 and 3; gradient x/3 + 1/2 on [-3, 3].
		{"Hardswish", Hardswish,
			[]float64{-4, -3, 1, 3, 4}, []float64{0, 0, 4.0 / 6, 3, 4}, []float64{0, -0.5, 1.0/3 + 0.5, 1.5, 1}},
	}
	for _, c := range cases {
		val, grad := gradOf(t, c.f, New64(c.x, len(c.x)))
		approxEqual(t, c.name+" value", val.Float64s(), c.value, 1e-14)
		approxEqual(t, c.name+" gradient", grad.Float64s(), c.grad, 1e-14)
	}
}

// TestActivationGradCheck checks the activations' gradients against
// central differences, away from the kinks.
func TestActivationGradCheck(t *testing.T) {
	x := New64([]float64{-3.7, -2.2, -1.3, -0.4, 0.3, 0.9, 1.6, 2.8, 3.5}, 9)
	cases := []struct {
		name string
		f    func(*Tensor) *Tensor
	}{
		{"SoftplusWith", func(a *Tensor) *Tensor { return SoftplusWith(a, 1.5, 2) }},
		{"Elu", func(a *Tensor) *Tensor { return Elu(a, 0.7) }},
		{"Selu", Selu},
		{"Mish", Mish},
		{"Hardtanh", func(a *Tensor) *Tensor { return Hardtanh(a, -1, 2) }},
		{"Hardswish", Hardswish},
	}
	for _, c := range cases {
		if err := CheckGrad(func(xs []*Tensor) *Tensor { return c.f(xs[0]) }, []*Tensor{x}, 1e-6, 1e-6); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestNaNGradients checks PyTorch's gradients at NaN inputs: relu passes
// the gradient through (x <= 0 is false), abs gives NaN (g·sgn(NaN)), and
// each activation takes the branch PyTorch's comparison sends NaN to.
func TestNaNGradients(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		f    func(*Tensor) *Tensor
		grad float64 // at NaN, the upstream gradient being 1
	}{
		{"Relu", Relu, 1},
		{"Abs", Abs, nan},
		{"LeakyRelu", func(a *Tensor) *Tensor { return LeakyRelu(a, 0.1) }, 0.1},
		{"Clamp", func(a *Tensor) *Tensor { return Clamp(a, -1, 1) }, 0},
		{"Hardtanh", func(a *Tensor) *Tensor { return Hardtanh(a, -1, 1) }, 1},
		{"Hardswish", Hardswish, 1},
		{"Elu", func(a *Tensor) *Tensor { return Elu(a, 1) }, 1},
	}
	for _, c := range cases {
		val, grad := gradOf(t, c.f, New64([]float64{nan, 2}, 2))
		if v := val.At(0); !math.IsNaN(v) {
			t.Errorf("%s(NaN) = %v, want NaN", c.name, v)
		}
		if got := grad.At(0); !(got == c.grad || math.IsNaN(got) && math.IsNaN(c.grad)) {
			t.Errorf("%s: gradient at NaN %v, want %v", c.name, got, c.grad)
		}
	}
}

// TestSoftplusDefault checks that Softplus keeps its exact, threshold-free
// values and SoftplusWith(t, 1, 20) is PyTorch's default.
func TestSoftplusDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := uniform(rng, -30, 30, 50)
	exact := Softplus(x).Float64s()
	with := SoftplusWith(x, 1, 20).Float64s()
	for i, v := range x.Float64s() {
		want := math.Log1p(math.Exp(v))
		if v > 20 {
			want = v // PyTorch's threshold
			if math.Abs(exact[i]-v) > 1e-8 {
				t.Errorf("Softplus(%v) = %v, want within 1e-8 of %v", v, exact[i], v)
			}
		}
		if with[i] != want && math.Abs(with[i]-want) > 1e-14*math.Abs(want) {
			t.Errorf("SoftplusWith(%v, 1, 20) = %v, want %v", v, with[i], want)
		}
	}
}
