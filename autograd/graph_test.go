package autograd

import (
	"errors"
	"testing"
)

// TestReusedTensor: c = a*a gives dc/da = 2a, the sum of both uses.
func TestReusedTensor(t *testing.T) {
	a := New([]float32{1.5, -2}, 2).SetRequiresGrad(true)
	if err := Sum(Mul(a, a), false).Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "grad", a.Grad().Float64s(), []float64{3, -4}, 0)
}

// TestGradAccumulates: two Backward calls add up; ZeroGrad clears.
func TestGradAccumulates(t *testing.T) {
	a := Scalar64(2).SetRequiresGrad(true)
	for range 2 {
		if err := Square(a).Backward(); err != nil {
			t.Fatal(err)
		}
	}
	approxEqual(t, "accumulated", a.Grad().Float64s(), []float64{8}, 0)
	a.ZeroGrad()
	if a.Grad() != nil {
		t.Fatal("ZeroGrad left a gradient")
	}
}

func TestBackwardErrors(t *testing.T) {
	plain := New([]float32{1, 2}, 2)
	if err := Sum(plain, false).Backward(); !errors.Is(err, ErrNoGradient) {
		t.Fatalf("backward on a no-grad tensor: %v, want ErrNoGradient", err)
	}
	a := New([]float32{1, 2}, 2).SetRequiresGrad(true)
	y := Sum(Exp(a), false)
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	if err := y.Backward(); !errors.Is(err, ErrGraphFreed) {
		t.Fatalf("second backward: %v, want ErrGraphFreed", err)
	}
	if err := Exp(a).Backward(); err == nil {
		t.Fatal("Backward of a non-scalar returned no error")
	}
	if inside := Exp(Mul(a.NoGrad(), a)); inside.RequiresGrad() || !inside.IsNoGrad() {
		t.Fatal("an op on a NoGrad value recorded a graph")
	}
}

// TestBackwardRetain runs backward twice through a retained graph.
func TestBackwardRetain(t *testing.T) {
	a := Scalar64(3).SetRequiresGrad(true)
	y := Square(a)
	for range 2 {
		if err := y.BackwardRetain(Scalar64(1)); err != nil {
			t.Fatal(err)
		}
	}
	approxEqual(t, "grad", a.Grad().Float64s(), []float64{12}, 0)
}

// wrongSquare is a custom op with a deliberately wrong backward (x instead
// of 2x): CheckGrad must catch it.
type wrongSquare struct{}

func (wrongSquare) Name() string { return "wrongSquare" }
func (wrongSquare) Forward(in []*Tensor) *Tensor {
	return mapUnary(in[0], func(x float64) float64 { return x * x })
}
func (wrongSquare) Backward(g *Tensor, in []*Tensor, _ *Tensor) []*Tensor {
	return []*Tensor{Mul(g, in[0])}
}

func TestCheckGradDetectsWrongRule(t *testing.T) {
	x := New64([]float64{0.5, 1}, 2)
	f := func(xs []*Tensor) *Tensor { return Apply(wrongSquare{}, xs[0]) }
	if err := CheckGrad(f, []*Tensor{x}, 1e-6, 1e-6); err == nil {
		t.Fatal("CheckGrad accepted a wrong backward rule")
	}
	if err := CheckGrad(f, []*Tensor{New([]float32{1}, 1)}, 1e-6, 1e-6); err == nil {
		t.Fatal("CheckGrad accepted a float32 input")
	}
}
