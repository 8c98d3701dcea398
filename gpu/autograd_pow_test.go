package gpu

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// The values WGSL leaves undefined (log2 and log at 0 and below, sqrt below
// 0, division by 0, subnormal operands a GPU may flush) are decided
// explicitly by lib/ieee.wgsl and lib/pow.wgsl. These tests hold them to
// PyTorch's and Go's documented values on both devices, so that a driver
// that computes the builtins differently (an NVIDIA H100 gave 0^-1 = 0)
// fails here rather than in a model.

// negZero is -0 in float32.
var negZero = float32(math.Copysign(0, -1))

// awkwardInputs are the inputs where a GPU's builtins are undefined or may
// flush: ±0, negative numbers, subnormals (the smallest, one in the middle,
// the largest) of both signs, and the infinities and NaN around them.
var awkwardInputs = []float32{
	0, negZero, -1, -2.5, 0.25, 1, 4,
	math.SmallestNonzeroFloat32, 1e-40, 1.1754942e-38, -1e-40, 1.1754944e-38, // the last: the smallest normal float32
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
}

// TestPowAtZeroMatchesPyTorch states PyTorch's values at 0, derived from
// torch.pow's definition (IEEE's pow: 0^p = +Inf for p < 0 not an odd
// integer, ±Inf for an odd one, with the sign of the zero) and from its
// documented gradients, d/dx x^p = p·x^(p-1) and d/dp x^p = x^p·ln x, which
// PyTorch takes as 0 where x = 0 and p >= 0. Each gradient is seeded with
// -1, so an infinite gradient must come out with the sign of -p·x^(p-1).
// The GPU once gave 0 for 0^-1, and 0 for the gradients of x^0.5 and
// Pow(0, 0.5) at 0 (issue 29, items 2-4).
func TestPowAtZeroMatchesPyTorch(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name      string
		x, p      float32
		scalar    bool // PowScalar(x, p), else Pow(x, p) with p a tensor
		want      float64
		wantDx    float64 // -(p·x^(p-1))
		wantDp    float64 // -(x^p·ln x), 0 at x = 0 with p >= 0
		checkedDp bool
	}{
		// 0^-1 = +Inf; d/dx = -1·0^-2 = -Inf, seeded with -1: +Inf.
		{"PowScalar(+0,-1)", 0, -1, true, inf, inf, 0, false},
		// (-0)^-1 = -Inf (an odd power keeps the zero's sign); d/dx = -1·(-0)^-2 = -Inf.
		{"PowScalar(-0,-1)", negZero, -1, true, -inf, inf, 0, false},
		// 0^0.5 = 0; d/dx = 0.5·0^-0.5 = +Inf, seeded with -1: -Inf.
		{"PowScalar(0,0.5)", 0, 0.5, true, 0, -inf, 0, false},
		// 0^2 = 0; d/dx = 2·0 = 0.
		{"PowScalar(0,2)", 0, 2, true, 0, 0, 0, false},
		// 0^-0.5 = +Inf; d/dx = -0.5·0^-1.5 = -Inf, seeded with -1: +Inf.
		{"PowScalar(0,-0.5)", 0, -0.5, true, inf, inf, 0, false},
		// Pow(0, 0.5): 0; d/dx = +Inf (seeded: -Inf); d/dp = 0 (x = 0, p >= 0).
		{"Pow(0,0.5)", 0, 0.5, false, 0, -inf, 0, true},
		// Pow(0, 3): 0; d/dx = 3·0^2 = 0; d/dp = 0.
		{"Pow(0,3)", 0, 3, false, 0, 0, 0, true},
		// Pow(-0, 3) = -0; d/dx = 3·(-0)^2 = 0.
		{"Pow(-0,3)", negZero, 3, false, 0, 0, 0, true},
		// Pow(-8, 1/3): a negative base and a fractional power: NaN.
		{"Pow(-8,1/3)", -8, 1.0 / 3, false, math.NaN(), math.NaN(), math.NaN(), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachDevice(t, func(t *testing.T, dev autograd.Device) {
				x := onDevice(t, autograd.New([]float32{c.x}, 1), dev).SetRequiresGrad(true)
				p := onDevice(t, autograd.New([]float32{c.p}, 1), dev).SetRequiresGrad(true)
				var y *autograd.Tensor
				if c.scalar {
					y = autograd.PowScalar(x, float64(c.p))
				} else {
					y = autograd.Pow(x, p)
				}
				if err := autograd.Neg(autograd.Sum(y, false)).Backward(); err != nil {
					t.Fatal(err)
				}
				sameFloat(t, "value", toCPU(t, y).Float64s()[0], c.want)
				sameFloat(t, "d/dx", toCPU(t, x.Grad()).Float64s()[0], c.wantDx)
				if c.checkedDp {
					sameFloat(t, "d/dp", toCPU(t, p.Grad()).Float64s()[0], c.wantDp)
				}
			})
		})
	}
}

// onDevice moves x to dev, failing the test on an error.
func onDevice(t *testing.T, x *autograd.Tensor, dev autograd.Device) *autograd.Tensor {
	t.Helper()
	d, err := x.To(dev)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameFloat fails t unless got is want: the same infinity, NaN for NaN, and
// within 1e-6 (relative above 1) otherwise, the sign of a zero ignored.
func sameFloat(t *testing.T, what string, got, want float64) {
	t.Helper()
	switch {
	case math.IsNaN(want):
		if !math.IsNaN(got) {
			t.Errorf("%s = %v, want NaN", what, got)
		}
	case math.IsInf(want, 0):
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	case math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) || math.IsNaN(got):
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestPowSpecialValuesParity holds Pow and PowScalar, outputs and
// gradients, to the CPU (math.Pow, whose special cases are C's and so
// torch.pow's) on every pair of the awkward inputs and the powers whose
// rules differ: negative and positive, odd and even integers, fractions,
// ±Inf, NaN and 0.
func TestPowSpecialValuesParity(t *testing.T) {
	testAutograd(t)
	powers := []float32{-3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 2.5,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40}
	var bases, exps []float32
	for _, b := range awkwardInputs {
		for _, p := range powers {
			bases, exps = append(bases, b), append(exps, p)
		}
	}
	n := len(bases)
	x, p := autograd.New(bases, n), autograd.New(exps, n)
	t.Run("Pow", func(t *testing.T) {
		checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Pow(xs[0], xs[1]) }, x, p)
	})
	for _, q := range powers {
		t.Run("PowScalar", func(t *testing.T) {
			in := autograd.New(awkwardInputs, len(awkwardInputs))
			checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return autograd.PowScalar(xs[0], float64(q))
			}, in)
		})
	}
}

// TestAwkwardInputsParity holds the ops whose WGSL builtins are undefined at
// 0, below 0 or for subnormals (Sqrt, Log, Log2, Log10, division both ways,
// by a tensor and by a scalar) and their gradients to the CPU on the
// awkward inputs: -Inf at ±0 for the logarithms, NaN below 0, sqrt(-0) = -0,
// ±Inf for a division by ±0, and subnormal inputs taken at their value
// rather than flushed to 0.
func TestAwkwardInputsParity(t *testing.T) {
	testAutograd(t)
	x := autograd.New(awkwardInputs, len(awkwardInputs))
	ops := []struct {
		name string
		f    func(*autograd.Tensor) *autograd.Tensor
	}{
		{"Sqrt", autograd.Sqrt},
		{"Log", autograd.Log},
		{"Log2", autograd.Log2},
		{"Log10", autograd.Log10},
		{"Rsqrt", func(t *autograd.Tensor) *autograd.Tensor { return autograd.PowScalar(t, -0.5) }},
		{"OneOver", func(t *autograd.Tensor) *autograd.Tensor { return autograd.Div(autograd.Scalar(1), t) }},
		{"Over", func(t *autograd.Tensor) *autograd.Tensor { return autograd.Div(t, autograd.Scalar(3)) }},
		{"OverZero", func(t *autograd.Tensor) *autograd.Tensor { return autograd.DivScalar(t, 0) }},
		{"OverNegZero", func(t *autograd.Tensor) *autograd.Tensor { return autograd.DivScalar(t, math.Copysign(0, -1)) }},
		{"OverSubnormal", func(t *autograd.Tensor) *autograd.Tensor { return autograd.DivScalar(t, 1e-40) }},
		{"OverHuge", func(t *autograd.Tensor) *autograd.Tensor { return autograd.DivScalar(t, 3e38) }},
		{"Softplus", autograd.Softplus},
		{"Clamp", func(t *autograd.Tensor) *autograd.Tensor { return autograd.Clamp(t, -1, 1e-40) }},
		// The ops whose kernels read subnormals, NaN and Inf from their
		// bits (a GPU may flush the first and assume there are none of the
		// others): floor(-1e-40) is -1, ceil(1e-40) is 1, exp(NaN) is NaN,
		// sin(Inf) is NaN.
		{"Exp", autograd.Exp}, {"Sin", autograd.Sin}, {"Cos", autograd.Cos}, {"Tanh", autograd.Tanh},
		{"Sigmoid", autograd.Sigmoid}, {"Gelu", autograd.Gelu}, {"Sign", autograd.Sign}, {"Abs", autograd.Abs},
		{"Relu", autograd.Relu}, {"Floor", autograd.Floor}, {"Ceil", autograd.Ceil}, {"Round", autograd.Round},
		{"Trunc", autograd.Trunc}, {"Square", autograd.Square},
		{"LeakyRelu", func(t *autograd.Tensor) *autograd.Tensor { return autograd.LeakyRelu(t, 0.01) }},
		{"TimesSubnormal", func(t *autograd.Tensor) *autograd.Tensor { return autograd.MulScalar(t, 1e-40) }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return op.f(xs[0]) }, x)
		})
	}
}
