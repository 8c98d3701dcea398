package gpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// WGSL lets an implementation flush subnormal operands and results to 0,
// assume that no NaN or Inf occurs, and compute sin and cos to 2^-11 only
// (Chromium's SwiftShader does all three; wgpu-native with lavapipe none).
// The kernels therefore decide these cases by bits (lib/ieee.wgsl's mulf,
// expf, lessf, lib/trig.wgsl's sinf and cosf). lavapipe runs the same
// integer paths, since they are taken by what the operands' bits say and not
// by what the hardware did, so these tests prove them here; web's
// TestGPUInChromium runs them on SwiftShader too.

// TestSubnormalProductsAreExact holds Mul and MulScalar on the GPU to
// IEEE's float32 product, bit for bit (Go's float32 multiplication is
// IEEE's, gradual underflow included): products with a subnormal factor,
// products of normal numbers that are subnormal, ties in the last place,
// and the special values.
func TestSubnormalProductsAreExact(t *testing.T) {
	dev := testAutograd(t)
	values := []float32{0, negZero, 1, -2, 0.5, 0.75, 1.5, 0.6931472, 1.0000001, 3e38, 1e30, 1e-20, -3e-20,
		math.SmallestNonzeroFloat32, 1e-40, -1e-40, 1.1754942e-38, 1.1754944e-38, 7.3e-39,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	var as, bs []float32
	for _, a := range values {
		for _, b := range values {
			as, bs = append(as, a), append(bs, b)
		}
	}
	// Products around the subnormal range: factors from 2^-80 to 2^-40 with
	// random significands (their products lie from 2^-160 to 2^-80).
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		a := float32(math.Ldexp(1+rng.Float64(), -40-rng.IntN(40)))
		b := float32(math.Ldexp(1+rng.Float64(), -40-rng.IntN(40)))
		if rng.IntN(2) == 0 {
			b = -b
		}
		as, bs = append(as, a), append(bs, b)
	}
	n := len(as)
	got := toCPU(t, autograd.Mul(onDevice(t, autograd.New(as, n), dev), onDevice(t, autograd.New(bs, n), dev))).Data32()
	for i := range n {
		if want := as[i] * bs[i]; !identicalFloat32(got[i], want) {
			t.Errorf("Mul(%g, %g) = %g (%#08x) on the GPU, want %g (%#08x)", as[i], bs[i], got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
		}
	}
	for _, s := range []float32{1e-40, 0.6931472, -1.5, 3e38} {
		x := onDevice(t, autograd.New(as, n), dev)
		got := toCPU(t, autograd.MulScalar(x, float64(s))).Data32()
		for i := range n {
			if want := as[i] * s; !identicalFloat32(got[i], want) {
				t.Errorf("MulScalar(%g, %g) = %g on the GPU, want %g", as[i], s, got[i], want)
			}
		}
	}
}

// identicalFloat32 reports whether got and want are the same float32, bit for bit
// (the sign of a zero included), or both NaN.
func identicalFloat32(got, want float32) bool {
	if want != want {
		return got != got
	}
	return math.Float32bits(got) == math.Float32bits(want)
}

// TestSinCosToFloat32Rounding holds Sin and Cos on the GPU within 4 units
// in the last place of math.Sin and math.Cos rounded to float32, over the
// whole float32 range: random values up to 10^4, random bit patterns of
// every exponent, the floats nearest the multiples of π/2 (where the
// reduction cancels), and ±0, subnormals, ±Inf and NaN (NaN, as math.Sin).
func TestSinCosToFloat32Rounding(t *testing.T) {
	dev := testAutograd(t)
	xs := []float32{0, negZero, 1e-40, -1e-40, 2e-4, 0.7853982, 0.7853981, 1e30, -3.4028235e38, 102951.7,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		xs = append(xs, float32(2e4*rng.Float64()-1e4))
	}
	for range 2000 {
		bits := rng.Uint32() & 0xff7fffff // finite: the exponent's top bit cleared or below 0xff
		if bits>>23&0xff == 0xff {
			continue
		}
		xs = append(xs, math.Float32frombits(bits))
	}
	for k := 1; k < 2000; k++ {
		xs = append(xs, float32(float64(k)*math.Pi/2), -float32(float64(k*k)*math.Pi/2))
	}
	n := len(xs)
	x := onDevice(t, autograd.New(xs, n), dev)
	for _, c := range []struct {
		name string
		op   func(*autograd.Tensor) *autograd.Tensor
		ref  func(float64) float64
	}{{"Sin", autograd.Sin, math.Sin}, {"Cos", autograd.Cos, math.Cos}} {
		got := toCPU(t, c.op(x)).Data32()
		worst := 0.0
		for i, v := range xs {
			want := float32(c.ref(float64(v)))
			if want != want || got[i] != got[i] {
				if !identicalFloat32(got[i], want) {
					t.Errorf("%s(%g) = %g on the GPU, want %g", c.name, v, got[i], want)
				}
				continue
			}
			ulps := math.Abs(float64(got[i])-float64(want)) / ulp32(want)
			worst = max(worst, ulps)
			if ulps > 4 {
				t.Errorf("%s(%g) = %.9g on the GPU, want %.9g: %.1f units in the last place", c.name, v, got[i], want, ulps)
			}
		}
		t.Logf("%s: at most %.1f units in the last place over %d arguments", c.name, worst, n)
	}
}

// ulp32 is the spacing of float32 values at |w|: 2^(e-23) for |w| in
// [2^e, 2^(e+1)), and the smallest subnormal below 2^-126.
func ulp32(w float32) float64 {
	a := math.Abs(float64(w))
	if a < 0x1p-126 {
		return 0x1p-149
	}
	_, e := math.Frexp(a) // a = f·2^e, f in [0.5, 1)
	return math.Ldexp(1, e-24)
}

// TestSubnormalComparisonsParity holds the comparisons, Maximum and
// Minimum (outputs and gradients), and the reductions and arg-reductions to
// the CPU on every pair of the awkward inputs: a GPU that flushes compares
// -1e-40 as -0 and the largest subnormal as 0, so these compare by bits.
func TestSubnormalComparisonsParity(t *testing.T) {
	testAutograd(t)
	var as, bs []float32
	for _, a := range awkwardInputs {
		for _, b := range awkwardInputs {
			as, bs = append(as, a), append(bs, b)
		}
	}
	x, y := autograd.New(as, len(as)), autograd.New(bs, len(bs))
	for name, f := range map[string]func(a, b *autograd.Tensor) *autograd.Tensor{
		"Gt": autograd.Gt, "Ge": autograd.Ge, "Lt": autograd.Lt, "Le": autograd.Le, "Eq": autograd.Eq,
		"Maximum": autograd.Maximum, "Minimum": autograd.Minimum,
	} {
		t.Run(name, func(t *testing.T) {
			checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return f(xs[0], xs[1]) }, x, y)
		})
	}
	// Rows of subnormals and zeros only, where flushing makes every element
	// equal: the maximum's gradient and the arg-reductions tell them apart.
	tiny := autograd.New([]float32{1e-40, 1.1754942e-38, -1e-40, 0, math.SmallestNonzeroFloat32, negZero,
		-1.1754942e-38, 7e-39, -math.SmallestNonzeroFloat32, 2e-40, 1e-40, 3e-39}, 2, 6)
	t.Run("Reductions", func(t *testing.T) {
		for axis := range 2 {
			checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Max(xs[0], false, axis) }, tiny)
			checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Min(xs[0], false, axis) }, tiny)
			d := onDevice(t, tiny, testAutograd(t))
			for _, arg := range []struct {
				name string
				f    func(*autograd.Tensor, int) []int
			}{{"ArgMax", autograd.ArgMax}, {"ArgMin", autograd.ArgMin}} {
				want, got := arg.f(tiny, axis), arg.f(d, axis)
				if len(got) != len(want) {
					t.Fatalf("%s along %d: GPU %v, CPU %v", arg.name, axis, got, want)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s along %d: GPU %v, CPU %v", arg.name, axis, got, want)
						break
					}
				}
			}
		}
	})
}
