package autograd

import (
	"math"
	"testing"
)

func backwardSum(t *testing.T, y *Tensor) {
	t.Helper()
	if err := Sum(y, false).Backward(); err != nil {
		t.Fatal(err)
	}
}

// TestEmptyTensors: ops on tensors with no elements give empty results of
// the right shape, sums of nothing are 0, and backward yields empty
// gradients.
func TestEmptyTensors(t *testing.T) {
	a := Zeros(Float64, 0, 3).SetRequiresGrad(true)
	b := New64([]float64{1, 2, 3}, 3).SetRequiresGrad(true)
	cases := []struct {
		name  string
		y     *Tensor
		shape []int
	}{
		{"Add broadcast", Add(a, b), []int{0, 3}},
		{"Exp", Exp(a), []int{0, 3}},
		{"Sum axis 0", Sum(a, false, 0), []int{3}},
		{"Mean axis 1", Mean(a, false, 1), []int{0}},
		{"Softmax", Softmax(a, 1), []int{0, 3}},
		{"MatMul", MatMul(a, Ones(Float64, 3, 2)), []int{0, 2}},
		{"Cat", Cat(0, a, Reshape(b, 1, 3)), []int{1, 3}},
		{"Transpose", Transpose(a, 0, 1), []int{3, 0}},
		{"Narrow", Narrow(b, 0, 1, 0), []int{0}},
		{"IndexSelect", IndexSelect(b, 0, nil), []int{0}},
	}
	for _, c := range cases {
		if !sameShape(c.y.shape, c.shape) {
			t.Fatalf("%s: shape %v, want %v", c.name, c.y.shape, c.shape)
		}
		backwardSum(t, c.y)
	}
	approxEqual(t, "sum over empty axis", Sum(a, false, 0).Float64s(), []float64{0, 0, 0}, 0)
	if a.Grad() == nil || !sameShape(a.Grad().shape, []int{0, 3}) {
		t.Fatalf("gradient of the empty tensor: %v", a.Grad())
	}
	// b received gradient 1 from Cat only (Add's contribution sums zero rows).
	approxEqual(t, "b grad", b.Grad().Float64s(), []float64{1, 1, 1}, 0)
	mustPanic(t, "Max over empty axis", func() { Max(a, false, 0) }, "Max", "[0 3]")
}

// TestScalars: 0-D tensors work with elementwise ops, broadcasting,
// reductions, softmax, reshape and expand, and gradients check.
func TestScalars(t *testing.T) {
	s := Scalar64(0.7)
	if y := Sum(s, false); y.Dim() != 0 || y.Item() != 0.7 {
		t.Fatalf("Sum of a scalar: %v", y)
	}
	if y := Softmax(s, 0); y.Dim() != 0 || y.Item() != 1 {
		t.Fatalf("Softmax of a scalar: %v", y)
	}
	f := func(x []*Tensor) *Tensor {
		v := x[0]
		return Add(Mul(Exp(v), Expand(v, 3)), Sum(Reshape(Mul(v, v), 1), false))
	}
	if err := CheckGrad(f, []*Tensor{s}, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
}

// TestZeroUpstreamGradient: an all-zero seed gives all-zero gradients (no
// NaN) through ops with finite derivatives.
func TestZeroUpstreamGradient(t *testing.T) {
	a := New64([]float64{0.5, 2, 3}, 3).SetRequiresGrad(true)
	y := Softmax(Div(Sqrt(a), Log(AddScalar(a, 1))), 0)
	if err := y.BackwardWith(Zeros(Float64, 3)); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "grad", a.Grad().Float64s(), []float64{0, 0, 0}, 0)
}

func gradOf(t *testing.T, f func(*Tensor) *Tensor, x *Tensor) (y, g *Tensor) {
	t.Helper()
	x = x.Clone().SetRequiresGrad(true)
	y = f(x)
	if err := y.BackwardWith(Ones(y.dtype, y.shape...)); err != nil {
		t.Fatal(err)
	}
	return y, x.Grad()
}

// TestStatedExpectations pins down the documented values at special points.
func TestStatedExpectations(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name        string
		f           func(*Tensor) *Tensor
		x           []float64
		wantY, want []float64
	}{
		{"relu'(0) = 0", Relu, []float64{0, -1, 2}, []float64{0, 0, 2}, []float64{0, 0, 1}},
		{"abs'(0) = 0", Abs, []float64{0}, []float64{0}, []float64{0}},
		{"log at 0: -Inf, gradient +Inf", Log, []float64{0}, []float64{math.Inf(-1)}, []float64{inf}},
		{"sqrt at 0: 0, gradient +Inf", Sqrt, []float64{0}, []float64{0}, []float64{inf}},
		{"gelu at ±10, ±50 is finite", Gelu, []float64{-50, -10, 10, 50}, []float64{0, -7.619853024160527e-23, 10, 50}, []float64{0, -7.612175690283591e-22, 1, 1}},
		{"gelu tanh at ±10, ±50 is finite", GeluTanh, []float64{-50, -10, 10, 50}, []float64{0, 0, 10, 50}, []float64{0, 0, 1, 1}},
		{"sigmoid saturates without NaN", Sigmoid, []float64{-800, 800}, []float64{0, 1}, []float64{0, 0}},
		{"softplus is stable", Softplus, []float64{-800, 800}, []float64{0, 800}, []float64{0, 1}},
		{"clamp passes the gradient at the bounds", func(x *Tensor) *Tensor { return Clamp(x, -1, 1) }, []float64{-2, -1, 0, 1, 2}, []float64{-1, -1, 0, 1, 1}, []float64{0, 1, 1, 1, 0}},
		{"rounding has zero gradient", Round, []float64{0.5, 1.5, -2.5}, []float64{0, 2, -2}, []float64{0, 0, 0}},
		{"max splits ties evenly", func(x *Tensor) *Tensor { return Max(x, false) }, []float64{1, 3, 3}, []float64{3}, []float64{0, 0.5, 0.5}},
		{"min splits ties evenly", func(x *Tensor) *Tensor { return Min(x, false) }, []float64{2, 2, 2, 5}, []float64{2}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 0}},
		{"maximum splits ties", func(x *Tensor) *Tensor { return Maximum(x, Cast(New64([]float64{1, 1}, 2), x.DType())) }, []float64{1, 2}, []float64{1, 2}, []float64{0.5, 1}},
		{"softmax of one element: 1, gradient 0", func(x *Tensor) *Tensor { return Mul(Softmax(x, 1), x) }, []float64{4, -2}, []float64{4, -2}, []float64{1, 1}},
	}
	for _, c := range cases {
		x := New64(c.x, len(c.x))
		if c.name == "softmax of one element: 1, gradient 0" {
			x = New64(c.x, len(c.x), 1)
		}
		y, g := gradOf(t, c.f, x)
		approxEqual(t, c.name+" value", y.Float64s(), c.wantY, 1e-12)
		approxEqual(t, c.name+" gradient", g.Float64s(), c.want, 1e-12)
		_, g32 := gradOf(t, c.f, Cast(x, Float32))
		for i, v := range g32.Float64s() {
			if math.IsNaN(v) {
				t.Fatalf("%s: float32 gradient %d is NaN", c.name, i)
			}
		}
	}
	sm := New64([]float64{3}, 1).SetRequiresGrad(true)
	if err := Softmax(sm, 0).Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "softmax of one element gradient", sm.Grad().Float64s(), []float64{0}, 0)
}

// TestDivisionNearZero: dividing by 1e-25 in float32, whose square
// underflows to 0, gives finite gradients wherever the math is finite
// (-a/b² = -1e35 here), and exactly 0 for the divisor where a is 0.
func TestDivisionNearZero(t *testing.T) {
	a := New([]float32{0, 1e-15}, 2).SetRequiresGrad(true)
	b := New([]float32{1e-25, 1e-25}, 2).SetRequiresGrad(true)
	backwardSum(t, Div(a, b))
	for _, g := range append(a.Grad().Float64s(), b.Grad().Float64s()...) {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Fatalf("non-finite gradient: a %v b %v", a.Grad(), b.Grad())
		}
	}
	if b.Grad().At(0) != 0 {
		t.Fatalf("d(0/b)/db = %v, want 0", b.Grad().At(0))
	}
	approxEqual(t, "d(a/b)/da", a.Grad().Float64s(), []float64{1e25, 1e25}, 1e-6)
	approxEqual(t, "d(a/b)/db", b.Grad().Float64s()[1:], []float64{-1e35}, 1e-6)
}

// TestSoftmaxHugeLogits: shifted by the maximum, huge logits give exact
// probabilities and finite log-probabilities.
func TestSoftmaxHugeLogits(t *testing.T) {
	x := New([]float32{1e30, 0, -1e30}, 3)
	approxEqual(t, "softmax", Softmax(x, 0).Float64s(), []float64{1, 0, 0}, 0)
	approxEqual(t, "log softmax", LogSoftmax(New([]float32{1000, 0}, 2), 0).Float64s(), []float64{0, -1000}, 0)
	approxEqual(t, "logsumexp", LogSumExp(New64([]float64{1000, 1000}, 2), false).Float64s(), []float64{1000 + math.Ln2}, 1e-15)
	approxEqual(t, "logsumexp of -Inf", LogSumExp(New64([]float64{math.Inf(-1), math.Inf(-1)}, 2), false).Float64s(), []float64{math.Inf(-1)}, 0)
}

func TestForwardValues(t *testing.T) {
	a := New64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	cases := []struct {
		name  string
		y     *Tensor
		shape []int
		want  []float64
	}{
		{"[4]+[3,4] style broadcast", Add(a, New64([]float64{10, 20, 30}, 3)), []int{2, 3}, []float64{11, 22, 33, 14, 25, 36}},
		{"column broadcast", Mul(a, New64([]float64{2, 3}, 2, 1)), []int{2, 3}, []float64{2, 4, 6, 12, 15, 18}},
		{"sum axis 0", Sum(a, false, 0), []int{3}, []float64{5, 7, 9}},
		{"sum keepdim", Sum(a, true, 1), []int{2, 1}, []float64{6, 15}},
		{"mean", Mean(a, false), []int{}, []float64{3.5}},
		{"var unbiased", Var(a, 1, false, 1), []int{2}, []float64{1, 1}},
		{"var population", Var(a, 0, false), []int{}, []float64{35.0 / 12}},
		{"max axis 1", Max(a, false, 1), []int{2}, []float64{3, 6}},
		{"min axis 0", Min(a, false, 0), []int{3}, []float64{1, 2, 3}},
		{"transpose", Transpose(a, 0, 1), []int{3, 2}, []float64{1, 4, 2, 5, 3, 6}},
		{"permute 3-D", Permute(Reshape(a, 1, 2, 3), 2, 0, 1), []int{3, 1, 2}, []float64{1, 4, 2, 5, 3, 6}},
		{"expand", Expand(New64([]float64{1, 2}, 2, 1), 2, 2), []int{2, 2}, []float64{1, 1, 2, 2}},
		{"narrow", Narrow(a, 1, 1, 2), []int{2, 2}, []float64{2, 3, 5, 6}},
		{"pad", Pad(New64([]float64{1, 2}, 1, 2), -1, 1, 0, 0, 1), []int{2, 3}, []float64{-1, 1, 2, -1, -1, -1}},
		{"cat", Cat(0, a, Ones(Float64, 1, 3)), []int{3, 3}, []float64{1, 2, 3, 4, 5, 6, 1, 1, 1}},
		{"stack", Stack(0, New64([]float64{1, 2}, 2), New64([]float64{3, 4}, 2)), []int{2, 2}, []float64{1, 2, 3, 4}},
		{"index select", IndexSelect(a, 1, []int{2, 0}), []int{2, 2}, []float64{3, 1, 6, 4}},
		{"gather", Gather(a, 1, []int{2, 0}), []int{2, 1}, []float64{3, 4}},
		{"scatter add", ScatterAdd(Zeros(Float64, 2, 2), 1, []int{1, 1, 0, 1}, Ones(Float64, 2, 2)), []int{2, 2}, []float64{0, 2, 1, 1}},
		{"where", Where(New64([]float64{1, 0, 1}, 3), a, Zeros(Float64)), []int{2, 3}, []float64{1, 0, 3, 4, 0, 6}},
		{"pow", Pow(New64([]float64{4, 9}, 2), New64([]float64{0.5, 0.5}, 2)), []int{2}, []float64{2, 3}},
		{"outer", Outer(New64([]float64{1, 2}, 2), New64([]float64{3, 4, 5}, 3)), []int{2, 3}, []float64{3, 4, 5, 6, 8, 10}},
		{"dot", Dot(New64([]float64{1, 2}, 2), New64([]float64{3, 4}, 2)), []int{}, []float64{11}},
		{"softmax", Softmax(New64([]float64{0, math.Ln2}, 2), 0), []int{2}, []float64{1.0 / 3, 2.0 / 3}},
	}
	for _, c := range cases {
		if !sameShape(c.y.shape, c.shape) {
			t.Fatalf("%s: shape %v, want %v", c.name, c.y.shape, c.shape)
		}
		approxEqual(t, c.name, c.y.Float64s(), c.want, 1e-12)
	}
	if got := ArgMax(a, 1); got[0] != 2 || got[1] != 2 {
		t.Fatalf("ArgMax = %v", got)
	}
	if got := ArgMin(New64([]float64{3, 1, 1}, 3), 0); got[0] != 1 {
		t.Fatalf("ArgMin picks the first tie: %v", got)
	}
}

func TestPanicsNameOpAndShapes(t *testing.T) {
	a, b := Zeros(Float32, 2, 3), Zeros(Float32, 4)
	mustPanic(t, "Add", func() { Add(a, b) }, "Add", "[2 3]", "[4]")
	mustPanic(t, "dtype", func() { Mul(a, Zeros(Float64, 2, 3)) }, "Mul", "float64")
	mustPanic(t, "Reshape", func() { Reshape(a, 4, 2) }, "Reshape", "[2 3]", "[4 2]")
	mustPanic(t, "Narrow", func() { Narrow(a, 1, 2, 2) }, "Narrow", "[2 3]")
	mustPanic(t, "IndexSelect", func() { IndexSelect(a, 0, []int{2}) }, "IndexSelect", "index 2")
	mustPanic(t, "axis", func() { Sum(a, false, 2) }, "Sum", "axis 2")
}
