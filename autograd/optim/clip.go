package optim

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
)

// ClipGradValue clamps every gradient element of params to [-limit, limit]
// in place, as torch.nn.utils.clip_grad_value_. Parameters without a
// gradient are skipped. Gradients on a device are clamped there.
func ClipGradValue(params []*autograd.Tensor, limit float64) {
	for _, p := range params {
		g := p.Grad()
		if g == nil {
			continue
		}
		if k := kernelsOf("ClipGradValue", p); k != nil {
			k.ClipValue(g, limit)
			continue
		}
		for i := range g.Len() {
			g.SetAt(i, min(max(g.At(i), -limit), limit))
		}
	}
}

// ClipNormOptions are the options of ClipGradNormWith beyond the norm; the
// zero value is PyTorch's default.
type ClipNormOptions struct {
	// ErrorIfNonfinite makes a NaN or infinite total norm an error that
	// leaves the gradients alone (clip_grad_norm_'s error_if_nonfinite=True).
	// Off, as PyTorch's default, the gradients are scaled all the same:
	// by NaN for a NaN norm, by 0 for an infinite one (so an infinite
	// element becomes NaN), as PyTorch does.
	ErrorIfNonfinite bool
}

// ClipGradNorm is ClipGradNormWith with PyTorch's default options
// (error_if_nonfinite=False).
func ClipGradNorm(params []*autograd.Tensor, maxNorm, normType float64) (float64, error) {
	return ClipGradNormWith(params, maxNorm, normType, ClipNormOptions{})
}

// ClipGradNormWith scales the gradients of params in place so that their
// joint normType-norm is at most maxNorm, as torch.nn.utils.clip_grad_norm_(
// params, max_norm, norm_type, error_if_nonfinite): the norm of all gradient
// elements together ((Σ|g|^p)^(1/p), or max |g| for normType = +Inf), and
// every gradient times min(maxNorm/(norm+1e-6), 1). It returns the norm
// before clipping, summed in a fixed order (deterministic). A NaN or
// infinite norm is returned as it is; with o.ErrorIfNonfinite it comes with
// an error naming it and the gradients are left alone, as PyTorch raises
// before clipping. Parameters without a gradient are skipped. It panics on a
// normType that is not positive (PyTorch's 0 and -inf are not norms to clip
// by).
//
// Gradients on a device are reduced there, one parameter at a time in
// float32 (the sums of the parameters then taken in float64 in order), and
// the norm read back; the scaled gradients replace the old ones there. A
// device error is returned.
func ClipGradNormWith(params []*autograd.Tensor, maxNorm, normType float64, o ClipNormOptions) (float64, error) {
	if !(normType > 0) {
		panic(fmt.Sprintf("optim: ClipGradNorm: norm type %v must be positive (2 for L2, math.Inf(1) for max)", normType))
	}
	var acc float64 // Σ|g|^p, or max |g|
	for _, p := range params {
		g := p.Grad()
		if g == nil {
			continue
		}
		if kernelsOf("ClipGradNorm", p) != nil {
			a, err := deviceNormPart(g, normType)
			if err != nil {
				return math.NaN(), err
			}
			acc = addNormPart(acc, a, normType)
			continue
		}
		for i := range g.Len() {
			acc = addNormPart(acc, math.Abs(g.At(i)), normType)
		}
	}
	norm := acc
	switch {
	case math.IsInf(normType, 1):
	case normType == 2:
		norm = math.Sqrt(acc)
	default:
		norm = math.Pow(acc, 1/normType)
	}
	if o.ErrorIfNonfinite && (math.IsNaN(norm) || math.IsInf(norm, 0)) {
		return norm, fmt.Errorf("optim: the total norm of order %g of the gradients is %g, so they cannot be clipped; the gradients are left as they are (lower the learning rate, or find the NaN or infinite gradient)", normType, norm)
	}
	// PyTorch multiplies by the coefficient clamped at 1; scaling by 1 is
	// skipped, and a NaN coefficient (a NaN norm) scales as PyTorch's does.
	if coef := maxNorm / (norm + 1e-6); !(coef >= 1) {
		for _, p := range params {
			if g := p.Grad(); g != nil {
				if kernelsOf("ClipGradNorm", p) != nil {
					p.SetGrad(autograd.MulScalar(g.Detach(), coef))
					continue
				}
				for i := range g.Len() {
					g.SetAt(i, g.At(i)*coef)
				}
			}
		}
	}
	return norm, nil
}

// addNormPart adds a to the running Σ|g|^p (or maximum, for p = +Inf): a is
// one |g|, or for a device gradient its whole part.
func addNormPart(acc, a, normType float64) float64 {
	switch {
	case math.IsInf(normType, 1):
		// NaN must win, as torch.max propagates it.
		if a > acc || math.IsNaN(a) {
			return a
		}
		return acc
	case normType == 2:
		return acc + a*a
	}
	return acc + math.Pow(a, normType)
}

// deviceNormPart returns g's part of a normType norm computed on its device,
// read back: its p-norm (so that addNormPart's p-th power gives Σ|g|^p), or
// max |g| for +Inf.
func deviceNormPart(g *autograd.Tensor, normType float64) (float64, error) {
	a := autograd.Abs(g.NoGrad())
	var part *autograd.Tensor
	switch {
	case math.IsInf(normType, 1):
		if g.Len() == 0 {
			return 0, nil
		}
		part = autograd.Max(a, false)
	case normType == 2:
		part = autograd.Sqrt(autograd.Sum(autograd.Square(a), false))
	default:
		part = autograd.PowScalar(autograd.Sum(autograd.PowScalar(a, normType), false), 1/normType)
	}
	c, err := part.To(autograd.CPU)
	if err != nil {
		return 0, err
	}
	return c.Item(), nil
}
