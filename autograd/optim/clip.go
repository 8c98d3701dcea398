package optim

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
)

// ClipGradValue clamps every gradient element of params to [-limit, limit]
// in place, as torch.nn.utils.clip_grad_value_. Parameters without a
// gradient are skipped.
func ClipGradValue(params []*autograd.Tensor, limit float64) {
	for _, p := range params {
		g := p.Grad()
		if g == nil {
			continue
		}
		for i := range g.Len() {
			g.SetAt(i, min(max(g.At(i), -limit), limit))
		}
	}
}

// ClipGradNorm scales the gradients of params in place so that their joint
// normType-norm is at most maxNorm, as torch.nn.utils.clip_grad_norm_(params,
// max_norm, norm_type, error_if_nonfinite=True): the norm of all gradient
// elements together ((Σ|g|^p)^(1/p), or max |g| for normType = +Inf), and,
// when it exceeds maxNorm, every gradient times maxNorm/(norm+1e-6). It
// returns the norm before clipping, summed in a fixed order (deterministic).
// When that norm is NaN or infinite it returns it with an error naming it
// and leaves the gradients alone, as PyTorch raises before clipping.
// Parameters without a gradient are skipped. It panics on a normType that
// is not positive (PyTorch's 0 and -inf are not norms to clip by).
func ClipGradNorm(params []*autograd.Tensor, maxNorm, normType float64) (float64, error) {
	if !(normType > 0) {
		panic(fmt.Sprintf("optim: ClipGradNorm: norm type %v must be positive (2 for L2, math.Inf(1) for max)", normType))
	}
	var acc float64 // Σ|g|^p, or max |g|
	for _, p := range params {
		g := p.Grad()
		if g == nil {
			continue
		}
		for i := range g.Len() {
			a := math.Abs(g.At(i))
			switch {
			case math.IsInf(normType, 1):
				// NaN must win, as torch.max propagates it.
				if a > acc || math.IsNaN(a) {
					acc = a
				}
			case normType == 2:
				acc += a * a
			default:
				acc += math.Pow(a, normType)
			}
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
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return norm, fmt.Errorf("optim: the total norm of order %g of the gradients is %g, so they cannot be clipped; the gradients are left as they are (lower the learning rate, or find the NaN or infinite gradient)", normType, norm)
	}
	if coef := maxNorm / (norm + 1e-6); coef < 1 {
		for _, p := range params {
			if g := p.Grad(); g != nil {
				for i := range g.Len() {
					g.SetAt(i, g.At(i)*coef)
				}
			}
		}
	}
	return norm, nil
}
