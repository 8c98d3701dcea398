package optim

import (
	"math"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// TestClipGradNorm: gradients (3, -4) and (12) have joint norms
// L2 √(9+16+144) = 13, L1 19, L∞ 12 and L3 (27+64+1728)^(1/3); clipping to
// 1 scales them by 1/(norm+1e-6), as torch.nn.utils.clip_grad_norm_.
func TestClipGradNorm(t *testing.T) {
	cases := []struct {
		normType, norm float64
	}{
		{2, 13},
		{1, 19},
		{math.Inf(1), 12},
		{3, math.Cbrt(1819)},
		{0.5, math.Pow(math.Sqrt(3)+2+math.Sqrt(12), 2)},
	}
	for _, c := range cases {
		a, b := param([]float64{0, 0}, []float64{3, -4}), param([]float64{0}, []float64{12})
		none := autograd.New64([]float64{0}, 1).SetRequiresGrad(true) // no gradient: skipped
		norm, err := ClipGradNorm([]*autograd.Tensor{a, none, b}, 1, c.normType)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "norm", norm, c.norm, 1e-12)
		coef := 1 / (c.norm + 1e-6)
		near(t, "a0", a.Grad().At(0), 3*coef, 1e-15)
		near(t, "a1", a.Grad().At(1), -4*coef, 1e-15)
		near(t, "b", b.Grad().At(0), 12*coef, 1e-15)
		// Now below the limit: nothing changes.
		before := a.Grad().At(0)
		if n, err := ClipGradNorm([]*autograd.Tensor{a, b}, 10, c.normType); err != nil || math.Abs(n-1) > 1e-6 || a.Grad().At(0) != before {
			t.Fatalf("p=%v: clipping below the limit: norm %v, err %v, a %v", c.normType, n, err, a.Grad().At(0))
		}
	}
}

// TestClipGradNormNonFinite: with ErrorIfNonfinite a NaN or infinite
// gradient gives an error naming the norm and leaves the gradients as they
// were (clip_grad_norm_(..., error_if_nonfinite=True) raises before
// clipping).
func TestClipGradNormNonFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(-1)} {
		for _, normType := range []float64{2, 1, math.Inf(1)} {
			a := param([]float64{0, 0}, []float64{bad, 5})
			norm, err := ClipGradNormWith([]*autograd.Tensor{a}, 1, normType, ClipNormOptions{ErrorIfNonfinite: true})
			if err == nil || !strings.Contains(err.Error(), "norm of order") {
				t.Fatalf("gradient %v, p=%v: err %v, want an error naming the norm", bad, normType, err)
			}
			if !math.IsNaN(norm) && !math.IsInf(norm, 1) {
				t.Fatalf("gradient %v, p=%v: norm %v, want NaN or +Inf", bad, normType, norm)
			}
			if a.Grad().At(1) != 5 {
				t.Fatalf("gradients changed after the error: %v", a.Grad().At(1))
			}
		}
	}
}

// TestClipGradNormNonFiniteDefault: PyTorch's default
// (error_if_nonfinite=False) raises nothing and multiplies every gradient
// by clamp(max_norm/(norm+1e-6), max=1): by NaN when the norm is NaN, by
// max_norm/Inf = 0 when it is infinite (so -Inf·0 = NaN and 5·0 = 0).
func TestClipGradNormNonFiniteDefault(t *testing.T) {
	for _, normType := range []float64{2, 1, math.Inf(1)} {
		a := param([]float64{0, 0}, []float64{math.NaN(), 5})
		norm, err := ClipGradNorm([]*autograd.Tensor{a}, 1, normType)
		if err != nil || !math.IsNaN(norm) {
			t.Fatalf("NaN gradient, p=%v: norm %v, err %v; want NaN and no error", normType, norm, err)
		}
		if g := a.Grad().At(1); !math.IsNaN(g) {
			t.Fatalf("NaN gradient, p=%v: the finite gradient became %v, want NaN (scaled by the NaN coefficient)", normType, g)
		}
		b := param([]float64{0, 0}, []float64{math.Inf(-1), 5})
		norm, err = ClipGradNorm([]*autograd.Tensor{b}, 1, normType)
		if err != nil || !math.IsInf(norm, 1) {
			t.Fatalf("-Inf gradient, p=%v: norm %v, err %v; want +Inf and no error", normType, norm, err)
		}
		if g0, g1 := b.Grad().At(0), b.Grad().At(1); !math.IsNaN(g0) || g1 != 0 {
			t.Fatalf("-Inf gradient, p=%v: gradients %v, %v; want NaN, 0 (scaled by 0)", normType, g0, g1)
		}
	}
}
