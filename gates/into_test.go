package gates

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// TestForwardFMIntoSumsInPlace applies each case's layer twice with shared
// coefficients, as two steps of a rollout do, once through ForwardFMWith
// (autograd adds the two coefficient gradients) and once through
// ForwardFMInto (the backward passes add their sums into one zeroed
// tensor). The sums in place equal autograd's total bit for bit (two
// float64 terms, whose sum does not depend on the order), the input
// gradients and the loss are the same, and the total is the loss's
// derivative by central differences in float64 (the loss is linear in the
// coefficients, so the differences are exact up to rounding).
func TestForwardFMIntoSumsInPlace(t *testing.T) {
	for _, c := range layerCases {
		t.Run(c.name, func(t *testing.T) {
			l, _ := c.build(autograd.Float64, 7)
			rng := newRNG(8)
			random := func(shape ...int) *autograd.Tensor {
				x := autograd.Zeros(autograd.Float64, shape...)
				for i := range x.Len() {
					x.SetAt(i, rng.Float64()*2-1)
				}
				return x
			}
			xShape := []int{c.groups, c.in, c.rows}
			if c.shared {
				xShape = []int{c.in, c.rows}
			}
			xs := []*autograd.Tensor{random(xShape...), random(xShape...)}
			ws := []*autograd.Tensor{random(c.groups, c.out, c.rows), random(c.groups, c.out, c.rows)}
			coeffs := l.Coefficients().Detach()
			loss := func(apply func(x, coeffs *autograd.Tensor) *autograd.Tensor, coeffs *autograd.Tensor, xs []*autograd.Tensor) *autograd.Tensor {
				total := autograd.Sum(autograd.Mul(apply(xs[0], coeffs), ws[0]), false)
				return autograd.Add(total, autograd.Sum(autograd.Mul(apply(xs[1], coeffs), ws[1]), false))
			}
			leaves := func() []*autograd.Tensor {
				return []*autograd.Tensor{xs[0].Clone().SetRequiresGrad(true), xs[1].Clone().SetRequiresGrad(true)}
			}

			with := func(x, c *autograd.Tensor) *autograd.Tensor { return l.ForwardFMWith(x, c, nil) }
			coeffLeaf := coeffs.Clone().SetRequiresGrad(true)
			xa := leaves()
			la := loss(with, coeffLeaf, xa)
			if err := la.Backward(); err != nil {
				t.Fatal(err)
			}

			sums := autograd.ZerosLike(coeffs)
			into := func(x, c *autograd.Tensor) *autograd.Tensor { return l.ForwardFMInto(x, c, nil, sums) }
			xb := leaves()
			lb := loss(into, coeffs, xb)
			if err := lb.Backward(); err != nil {
				t.Fatal(err)
			}

			if la.Item() != lb.Item() {
				t.Errorf("loss %v through ForwardFMInto, %v through ForwardFMWith", lb.Item(), la.Item())
			}
			same := func(what string, got, want []float64) {
				t.Helper()
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s %d: %v in place, %v through autograd", what, i, got[i], want[i])
					}
				}
			}
			same("coefficient gradient", sums.Float64s(), coeffLeaf.Grad().Float64s())
			for i := range xa {
				same("input gradient", xb[i].Grad().Float64s(), xa[i].Grad().Float64s())
			}

			const h = 1e-3
			for i := range coeffs.Len() {
				at := func(d float64) float64 {
					shifted := coeffs.Clone()
					shifted.SetAt(i, coeffs.At(i)+d)
					return loss(with, shifted, xs).Item()
				}
				want := (at(h) - at(-h)) / (2 * h)
				if got := sums.At(i); math.Abs(got-want) > 1e-8*max(1, math.Abs(want)) {
					t.Errorf("coefficient %d: gradient %v in place, central difference %v", i, got, want)
				}
			}
		})
	}
}
