package autograd

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// CheckGrad compares the gradients that Backward computes for f at inputs
// with central finite differences, (f(x+eps) - f(x-eps)) / 2eps, element by
// element. It returns nil when every analytic gradient is within
// tol·max(1, |numeric|) of the numeric one, and otherwise an error naming
// the first input and element that differ.
//
// The inputs must be float64 tensors; CheckGrad works on copies marked as
// requiring gradients, so the caller's tensors are left as they were. When f
// returns a non-scalar, the scalar checked is sum(f(x)·w) for fixed
// pseudo-random weights w, which exercises every output element. Typical
// values are eps = 1e-6 and tol = 1e-6; f must be smooth within eps of the
// inputs (keep points away from kinks such as relu at 0).
func CheckGrad(f func(xs []*Tensor) *Tensor, inputs []*Tensor, eps, tol float64) error {
	xs := make([]*Tensor, len(inputs))
	for i, in := range inputs {
		if in.dtype != Float64 {
			return fmt.Errorf("autograd: CheckGrad: input %d is %v; gradient checks need float64 (use Cast)", i, in.dtype)
		}
		xs[i] = in.Clone().SetRequiresGrad(true)
	}
	y := f(xs)
	if y.dtype != Float64 {
		return fmt.Errorf("autograd: CheckGrad: f returned a %v tensor; want float64", y.dtype)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	w := Zeros(Float64, y.shape...)
	for i := range w.f64 {
		w.f64[i] = rng.Float64()*2 - 1
	}
	if y.requiresGrad {
		if err := y.BackwardWith(w); err != nil {
			return err
		}
	}
	objective := func() float64 {
		var s float64
		NoGrad(func() {
			out := f(xs)
			for i, v := range out.f64 {
				s += v * w.f64[i]
			}
		})
		return s
	}
	for i, x := range xs {
		for j := range x.f64 {
			orig := x.f64[j]
			x.f64[j] = orig + eps
			plus := objective()
			x.f64[j] = orig - eps
			minus := objective()
			x.f64[j] = orig
			numeric := (plus - minus) / (2 * eps)
			analytic := 0.0
			if x.grad != nil {
				analytic = x.grad.f64[j]
			}
			if diff := math.Abs(analytic - numeric); !(diff <= tol*max(1, math.Abs(numeric))) {
				return fmt.Errorf("autograd: CheckGrad: input %d %v element %d: analytic gradient %.10g, numeric %.10g (difference %.3g)",
					i, x.shape, j, analytic, numeric, diff)
			}
		}
	}
	return nil
}
