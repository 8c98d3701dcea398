package autograd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestReductionValues checks values and gradients worked out by hand from
// PyTorch's definitions, including zeros in Prod and Cumprod, the zero
// vector for the 2-norm and std, and ties for the ∞-norm.
func TestReductionValues(t *testing.T) {
	cases := []struct {
		name        string
		f           func(*Tensor) *Tensor
		x           []float64
		shape       []int
		value, grad []float64
	}{
		// std of each row with Bessel's correction: (x - mean)/((n-1)·std).
		{"Std/axis 1", func(a *Tensor) *Tensor { return Std(a, 1, false, 1) }, []float64{1, 2, 3, 2, 4, 6}, []int{2, 3},
			[]float64{1, 2}, []float64{-0.5, 0, 0.5, -0.5, 0, 0.5}},
		{"Std/population", func(a *Tensor) *Tensor { return Std(a, 0, true) }, []float64{1, 2, 3, 4}, []int{4},
			[]float64{math.Sqrt(1.25)}, []float64{-1.5 / 4 / math.Sqrt(1.25), -0.5 / 4 / math.Sqrt(1.25), 0.5 / 4 / math.Sqrt(1.25), 1.5 / 4 / math.Sqrt(1.25)}},
		{"Std/zero", func(a *Tensor) *Tensor { return Std(a, 1, false) }, []float64{5, 5}, []int{2}, []float64{0}, []float64{0, 0}},
		{"Prod", func(a *Tensor) *Tensor { return Prod(a, false) }, []float64{2, 3, 4}, []int{3}, []float64{24}, []float64{12, 8, 6}},
		{"Prod/one zero", func(a *Tensor) *Tensor { return Prod(a, false) }, []float64{2, 0, 4}, []int{3}, []float64{0}, []float64{0, 8, 0}},
		{"Prod/two zeros", func(a *Tensor) *Tensor { return Prod(a, false) }, []float64{0, 3, 0}, []int{3}, []float64{0}, []float64{0, 0, 0}},
		{"Prod/axis 0 keepdim", func(a *Tensor) *Tensor { return Prod(a, true, 0) }, []float64{1, 2, 3, 0}, []int{2, 2},
			[]float64{3, 0}, []float64{3, 0, 1, 2}},
		{"Prod/empty", func(a *Tensor) *Tensor { return Prod(a, false, 1) }, []float64{}, []int{2, 0}, []float64{1, 1}, []float64{}},
		{"Norm/1", func(a *Tensor) *Tensor { return Norm(a, 1, false) }, []float64{3, -4, 0}, []int{3}, []float64{7}, []float64{1, -1, 0}},
		{"Norm/2", func(a *Tensor) *Tensor { return Norm(a, 2, false) }, []float64{3, -4}, []int{2}, []float64{5}, []float64{0.6, -0.8}},
		{"Norm/2 rows, one zero", func(a *Tensor) *Tensor { return Norm(a, 2, true, 1) }, []float64{3, 4, 0, 0}, []int{2, 2},
			[]float64{5, 0}, []float64{0.6, 0.8, 0, 0}},
		{"Norm/inf", func(a *Tensor) *Tensor { return Norm(a, math.Inf(1), false) }, []float64{3, -4, 1}, []int{3}, []float64{4}, []float64{0, -1, 0}},
		{"Norm/inf ties", func(a *Tensor) *Tensor { return Norm(a, math.Inf(1), false) }, []float64{3, -3, 1}, []int{3}, []float64{3}, []float64{0.5, -0.5, 0}},
		{"Cumsum", func(a *Tensor) *Tensor { return Cumsum(a, 0) }, []float64{1, 2, 3}, []int{3}, []float64{1, 3, 6}, []float64{3, 2, 1}},
		{"Cumsum/axis 0", func(a *Tensor) *Tensor { return Cumsum(a, 0) }, []float64{1, 2, 3, 4}, []int{2, 2}, []float64{1, 2, 4, 6}, []float64{2, 2, 1, 1}},
		// grad_i = Σ_{k>=i} Π_{j<=k, j≠i} x_j.
		{"Cumprod", func(a *Tensor) *Tensor { return Cumprod(a, -1) }, []float64{2, 3, 4}, []int{3}, []float64{2, 6, 24}, []float64{16, 10, 6}},
		{"Cumprod/one zero", func(a *Tensor) *Tensor { return Cumprod(a, 0) }, []float64{2, 0, 4}, []int{3}, []float64{2, 0, 0}, []float64{1, 10, 0}},
		{"Cumprod/two zeros", func(a *Tensor) *Tensor { return Cumprod(a, 0) }, []float64{0, 3, 0}, []int{3}, []float64{0, 0, 0}, []float64{4, 0, 0}},
		{"Cumprod/axis 0 with zero", func(a *Tensor) *Tensor { return Cumprod(a, 0) }, []float64{2, 5, 0, 3}, []int{2, 2},
			[]float64{2, 5, 0, 15}, []float64{1, 4, 2, 5}},
	}
	for _, c := range cases {
		val, grad := gradOf(t, c.f, New64(c.x, c.shape...))
		approxEqual(t, c.name+" value", val.Float64s(), c.value, 1e-15)
		approxEqual(t, c.name+" gradient", grad.Float64s(), c.grad, 1e-15)
	}
	mustPanic(t, "Norm p=3", func() { Norm(Ones(Float64, 2), 3, false) }, "Norm", "p = 3")
}

// TestMaxDim checks torch.max(t, dim)'s values and indices (first index on
// ties, NaN wins) and that the gradient goes to the returned index only,
// while Max (amax) splits ties and NaNs evenly.
func TestMaxDim(t *testing.T) {
	nan := math.NaN()
	x := New64([]float64{1, 5, 5, 7, nan, nan}, 2, 3).SetRequiresGrad(true)
	vals, idx := MaxDim(x, 1, false)
	if got := vals.Float64s(); got[0] != 5 || !math.IsNaN(got[1]) || len(got) != 2 {
		t.Fatalf("MaxDim values %v, want [5 NaN]", got)
	}
	approxEqual(t, "MaxDim indices", intsToFloats(idx), []float64{1, 4 - 3}, 0)
	if err := vals.BackwardWith(New64([]float64{1, 2}, 2)); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "MaxDim gradient", x.Grad().Float64s(), []float64{0, 1, 0, 0, 2, 0}, 0)

	x.ZeroGrad()
	amax := Max(x, true, 1)
	if err := amax.BackwardWith(New64([]float64{1, 2}, 2, 1)); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "Max gradient (ties and NaNs split)", x.Grad().Float64s(), []float64{0, 0.5, 0.5, 0, 1, 1}, 0)

	mins, idx := MinDim(New64([]float64{3, 1, 1, 0}, 2, 2), 0, true)
	approxEqual(t, "MinDim values", mins.Float64s(), []float64{1, 0}, 0)
	approxEqual(t, "MinDim shape", intsToFloats(mins.Shape()), []float64{1, 2}, 0)
	approxEqual(t, "MinDim indices", intsToFloats(idx), []float64{1, 1}, 0)
	approxEqual(t, "ArgMax with NaN", intsToFloats(ArgMax(New64([]float64{1, nan, 3, nan}, 4), 0)), []float64{1}, 0)
}

// TestReductionGradCheck checks the new reductions against central
// differences, with and without zeros where the rule changes with them.
func TestReductionGradCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	withZeros := func(shape ...int) *Tensor {
		x := uniform(rng, -1, 1, shape...)
		x.SetAt(1, 0)
		x.SetAt(x.Len()-1, 0)
		return x
	}
	cases := []struct {
		name string
		in   *Tensor
		f    func(*Tensor) *Tensor
	}{
		{"Std/axes 0,2", uniform(rng, -1, 1, 3, 2, 4), func(a *Tensor) *Tensor { return Std(a, 1, false, 0, 2) }},
		{"Std/keepdim", uniform(rng, -1, 1, 3, 4), func(a *Tensor) *Tensor { return Std(a, 0, true, -1) }},
		{"Prod/all", uniform(rng, 0.5, 1.5, 2, 3), func(a *Tensor) *Tensor { return Prod(a, false) }},
		{"Prod/axes 0,2 zeros", withZeros(2, 3, 2), func(a *Tensor) *Tensor { return Prod(a, false, 0, 2) }},
		{"Prod/one zero", New64([]float64{0.5, 0, 2, -1.5}, 4), func(a *Tensor) *Tensor { return Prod(a, false) }},
		{"Norm/1 axis 1", distinct(rng, 3, 4), func(a *Tensor) *Tensor { return Norm(a, 1, false, 1) }},
		{"Norm/2 axes", uniform(rng, -1, 1, 2, 3, 2), func(a *Tensor) *Tensor { return Norm(a, 2, true, 0, 2) }},
		{"Norm/inf", distinct(rng, 3, 4), func(a *Tensor) *Tensor { return Norm(a, math.Inf(1), false, 0) }},
		{"Cumsum/axis 1", uniform(rng, -1, 1, 2, 4, 3), func(a *Tensor) *Tensor { return Cumsum(a, 1) }},
		{"Cumprod/axis 1", uniform(rng, 0.5, 1.5, 2, 4, 3), func(a *Tensor) *Tensor { return Cumprod(a, 1) }},
		{"Cumprod/zeros", withZeros(3, 4), func(a *Tensor) *Tensor { return Cumprod(a, -1) }},
		{"MaxDim", distinct(rng, 3, 4), func(a *Tensor) *Tensor { v, _ := MaxDim(a, 0, false); return v }},
		{"MinDim keepdim", distinct(rng, 3, 4), func(a *Tensor) *Tensor { v, _ := MinDim(a, 1, true); return v }},
	}
	for _, c := range cases {
		if err := CheckGrad(func(xs []*Tensor) *Tensor { return c.f(xs[0]) }, []*Tensor{c.in}, 1e-6, 1e-6); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestCumsumFloat32Accumulates checks that float32 running sums accumulate
// in float64, as PyTorch's CPU kernel: 1e8 + 1 - 1e8 is 1, not the 0 that
// float32 accumulation gives.
func TestCumsumFloat32Accumulates(t *testing.T) {
	got := Cumsum(New([]float32{1e8, 1, -1e8}, 3), 0).Float64s()
	approxEqual(t, "Cumsum float32", got, []float64{1e8, 1e8, 1}, 0)
}

// TestVarNoDegreesOfFreedom checks torch.var's max(0, n - correction): one
// element with correction 2 divides 0 by 0 (NaN), two distinct elements
// with correction 3 give +Inf, and Std follows.
func TestVarNoDegreesOfFreedom(t *testing.T) {
	if v := Var(New64([]float64{3}, 1), 2, false).Item(); !math.IsNaN(v) {
		t.Errorf("Var of one element, correction 2 = %v, want NaN", v)
	}
	if v := Std(New64([]float64{1, 3}, 2), 3, false).Item(); !math.IsInf(v, 1) {
		t.Errorf("Std of two elements, correction 3 = %v, want +Inf", v)
	}
}
