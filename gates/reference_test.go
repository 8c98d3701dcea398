package gates

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// gradsOf runs forward on a fresh copy of the case's layer and input,
// backpropagates dL/dy = r and returns y, dL/dx and dL/dlogits.
func gradsOf(c layerCase, dt autograd.DType, forward func(*Layer, *autograd.Tensor) *autograd.Tensor) (y, dx, dw []float64) {
	l, x := c.build(dt, 11)
	out := forward(l, x)
	r := autograd.ZerosLike(out)
	rng := newRNG(12)
	for i := range r.Len() {
		r.SetAt(i, rng.NormFloat64())
	}
	if err := out.BackwardWith(r); err != nil {
		panic(err)
	}
	return out.Float64s(), x.Grad().Float64s(), l.Logits.Grad().Float64s()
}

func reference(l *Layer, x *autograd.Tensor) *autograd.Tensor { return l.ForwardReference(x) }

// TestFusedMatchesReference holds the fused kernels to the composed-autograd
// reference: outputs within 1e-6, gradients within 1e-5 relative (float64;
// float32 within what its rounding allows).
func TestFusedMatchesReference(t *testing.T) {
	for _, c := range layerCases {
		for _, dt := range []autograd.DType{autograd.Float64, autograd.Float32} {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				yTol, gTol := 1e-6, 1e-5
				if dt == autograd.Float32 {
					gTol = 1e-4
				}
				y, dx, dw := gradsOf(c, dt, fused)
				ry, rdx, rdw := gradsOf(c, dt, reference)
				compare(t, "y", y, ry, yTol, 0)
				compare(t, "dx", dx, rdx, gTol, gTol)
				compare(t, "dlogits", dw, rdw, gTol, gTol)
			})
		}
	}
}

// compare wants |got-want| <= abs + rel*|want| element by element.
func compare(t *testing.T, name string, got, want []float64, abs, rel float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, reference %d", name, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > abs+rel*math.Abs(want[i]) {
			t.Fatalf("%s[%d] = %v, reference %v", name, i, got[i], want[i])
		}
	}
}

// TestCheckGrad gradient-checks the fused op and the reference in float64
// with autograd's central-difference checker, for x and the logits at once.
func TestCheckGrad(t *testing.T) {
	for _, c := range layerCases {
		for _, impl := range []struct {
			name    string
			forward func(*Layer, *autograd.Tensor) *autograd.Tensor
		}{{"fused", fused}, {"reference", reference}} {
			l, x := c.build(autograd.Float64, 21)
			f := func(xs []*autograd.Tensor) *autograd.Tensor {
				l.Logits = xs[1]
				return impl.forward(l, xs[0])
			}
			if err := autograd.CheckGrad(f, []*autograd.Tensor{x.Detach(), l.Logits.Detach()}, 1e-6, 1e-6); err != nil {
				t.Errorf("%s %s: %v", c.name, impl.name, err)
			}
		}
	}
}

// TestStackMatchesReference chains layers, so that input gradients flow
// from one fused op into the next, with groups in the middle.
func TestStackMatchesReference(t *testing.T) {
	run := func(forward func(*Layer, *autograd.Tensor) *autograd.Tensor) (y, dx []float64, dws [][]float64) {
		rng := newRNG(31)
		l1 := NewLayer("moore", 9, MooreWiring(rng), 3, Init{Gaussian: true}, autograd.Float64, rng)
		w2, _ := UniqueWiring(8, 4, rng)
		l2 := NewLayer("kernel2", 8, w2, 3, Init{Gaussian: true}, autograd.Float64, rng)
		w3, _ := UniqueWiring(12, 6, rng)
		l3 := NewLayer("update", 12, w3, 1, Init{Gaussian: true}, autograd.Float64, rng)
		x := autograd.Zeros(autograd.Float64, 5, 9)
		for i := range x.Len() {
			x.SetAt(i, rng.Float64())
		}
		x.SetRequiresGrad(true)
		h := forward(l2, forward(l1, x))                    // [5, 3, 4]
		out := forward(l3, autograd.Reshape(h, 5, 12))      // [5, 1, 6]
		loss := autograd.Sum(autograd.Mul(out, out), false) // scalar
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		for _, l := range []*Layer{l1, l2, l3} {
			dws = append(dws, l.Logits.Grad().Float64s())
		}
		return out.Float64s(), x.Grad().Float64s(), dws
	}
	y, dx, dws := run(fused)
	ry, rdx, rdws := run(reference)
	compare(t, "y", y, ry, 1e-12, 0)
	compare(t, "dx", dx, rdx, 1e-12, 1e-10)
	for i := range dws {
		compare(t, fmt.Sprintf("layer %d dlogits", i), dws[i], rdws[i], 1e-12, 1e-10)
	}
	if slices.ContainsFunc(dx, func(v float64) bool { return v == 0 }) {
		t.Error("some input gradients are exactly zero; the test would not see a missing path")
	}
}
