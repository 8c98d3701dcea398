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
	xs, err := gradCheckInputs("CheckGrad", inputs)
	if err != nil {
		return err
	}
	y := f(xs)
	if y.dtype != Float64 {
		return fmt.Errorf("autograd: CheckGrad: f returned a %v tensor; want float64", y.dtype)
	}
	w := randomLike(y, 2)
	if y.requiresGrad {
		if err := y.BackwardWith(w); err != nil {
			return err
		}
	}
	analytic := make([]*Tensor, len(xs))
	for i, x := range xs {
		analytic[i] = x.grad
	}
	// NOTE: f runs on the inputs as they are, recording, since f may itself
	// take gradients (a gradient penalty); the graphs are dropped.
	objective := func() (float64, error) { return dot(f(xs), w), nil }
	return compareNumeric("CheckGrad", "gradient", xs, analytic, objective, eps, tol)
}

// CheckGradGrad checks second derivatives: the gradient, with respect to
// the inputs, of s = Σᵢ sum(gᵢ·vᵢ), where gᵢ is the gradient of sum(f(x)·w)
// with respect to input i (taken with CreateGraph) and w, vᵢ are fixed
// pseudo-random tensors, against central finite differences of s computed
// from first-order gradients. This exercises every backward rule's own
// backward, as torch.autograd.gradgradcheck does. Inputs, eps and tol are
// as for CheckGrad; typical values are eps = 1e-6 and tol = 1e-5.
func CheckGradGrad(f func(xs []*Tensor) *Tensor, inputs []*Tensor, eps, tol float64) error {
	xs, err := gradCheckInputs("CheckGradGrad", inputs)
	if err != nil {
		return err
	}
	y := f(xs)
	if y.dtype != Float64 {
		return fmt.Errorf("autograd: CheckGradGrad: f returned a %v tensor; want float64", y.dtype)
	}
	if !y.requiresGrad {
		return fmt.Errorf("autograd: CheckGradGrad: f's result does not depend on its inputs")
	}
	w := randomLike(y, 2)
	vs := make([]*Tensor, len(xs))
	for i, x := range xs {
		vs[i] = randomLike(x, uint64(3+i))
	}
	// s(x) = Σᵢ <gᵢ(x), vᵢ>, recorded (first) or evaluated (numeric).
	s := func(create bool) (*Tensor, error) {
		out := f(xs)
		gs, err := Grad(out, xs, BackwardOptions{Grad: w, CreateGraph: create})
		if err != nil {
			return nil, err
		}
		total := Scalar64(0)
		for i, g := range gs {
			total = Add(total, Sum(Mul(g, vs[i]), false))
		}
		return total, nil
	}
	total, err := s(true)
	if err != nil {
		return err
	}
	if total.requiresGrad {
		if err := total.Backward(); err != nil {
			return err
		}
	}
	analytic := make([]*Tensor, len(xs))
	for i, x := range xs {
		analytic[i] = x.grad
	}
	objective := func() (float64, error) {
		t, err := s(false)
		if err != nil {
			return 0, err
		}
		return t.Item(), nil
	}
	return compareNumeric("CheckGradGrad", "second derivative", xs, analytic, objective, eps, tol)
}

// gradCheckInputs returns copies of inputs that require gradients.
func gradCheckInputs(op string, inputs []*Tensor) ([]*Tensor, error) {
	xs := make([]*Tensor, len(inputs))
	for i, in := range inputs {
		if in.dtype != Float64 {
			return nil, fmt.Errorf("autograd: %s: input %d is %v; gradient checks need float64 (use Cast)", op, i, in.dtype)
		}
		xs[i] = in.Clone().SetRequiresGrad(true)
	}
	return xs, nil
}

// randomLike returns fixed pseudo-random weights in [-1, 1) of t's shape.
func randomLike(t *Tensor, seed uint64) *Tensor {
	rng := rand.New(rand.NewPCG(1, seed))
	w := Zeros(Float64, t.shape...)
	for i := range w.f64 {
		w.f64[i] = rng.Float64()*2 - 1
	}
	return w
}

// dot returns sum(a·b) of two float64 tensors of one shape, outside any graph.
func dot(a, b *Tensor) float64 {
	var s float64
	for i, v := range a.f64 {
		s += v * b.f64[i]
	}
	return s
}

// compareNumeric compares each analytic[i] (nil meaning zeros) with central
// differences of objective over the elements of xs[i].
func compareNumeric(op, what string, xs, analytic []*Tensor, objective func() (float64, error), eps, tol float64) error {
	for i, x := range xs {
		for j := range x.f64 {
			orig := x.f64[j]
			x.f64[j] = orig + eps
			plus, err := objective()
			if err != nil {
				return err
			}
			x.f64[j] = orig - eps
			minus, err := objective()
			if err != nil {
				return err
			}
			x.f64[j] = orig
			numeric := (plus - minus) / (2 * eps)
			got := 0.0
			if analytic[i] != nil {
				got = analytic[i].f64[j]
			}
			if diff := math.Abs(got - numeric); !(diff <= tol*max(1, math.Abs(numeric))) {
				return fmt.Errorf("autograd: %s: input %d %v element %d: analytic %s %.10g, numeric %.10g (difference %.3g)",
					op, i, x.shape, j, what, got, numeric, diff)
			}
		}
	}
	return nil
}
