package optim

import (
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
// L2 norm is at most maxNorm, as torch.nn.utils.clip_grad_norm_ (scale
// maxNorm/(norm+1e-6) when the norm exceeds maxNorm). It returns the norm
// before clipping, summed in a fixed order (deterministic).
func ClipGradNorm(params []*autograd.Tensor, maxNorm float64) float64 {
	var sq float64
	for _, p := range params {
		if g := p.Grad(); g != nil {
			for i := range g.Len() {
				v := g.At(i)
				sq += v * v
			}
		}
	}
	norm := math.Sqrt(sq)
	if coef := maxNorm / (norm + 1e-6); coef < 1 {
		for _, p := range params {
			if g := p.Grad(); g != nil {
				for i := range g.Len() {
					g.SetAt(i, g.At(i)*coef)
				}
			}
		}
	}
	return norm
}
