package nn

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// These tests pin the cases where an independent comparison with PyTorch
// 1.13 once disagreed (issue 29); each states PyTorch's value and how it
// follows from PyTorch's documented formula.

// zeroWeightSumCase is the comparison's case: logits [6, 5], class weights
// [0, 0, 1, 0, 0] and no target of class 2, so the targets' weights sum to 0.
func zeroWeightSumCase() (logits *autograd.Tensor, targets []int, weight *autograd.Tensor) {
	vals := make([]float64, 30)
	for i := range vals {
		vals[i] = math.Sin(float64(i)) // any finite logits
	}
	return autograd.New64(vals, 6, 5), []int{0, 1, 3, 4, 0, 1}, vec(0, 0, 1, 0, 0)
}

// TestCrossEntropyZeroWeightSumIsNaN: PyTorch's cross_entropy with label
// smoothing ε and the mean returns (1-ε)·nll_loss(mean) + ε/C·smooth, where
// nll_loss's mean is Σ w[t]·(-logp[t]) / Σ w[t] = 0/0 = NaN here, and smooth
// = Σ_n Σ_c -w_c·logp_c / Σ w[t] = (positive)/0 = +Inf: NaN + Inf = NaN.
// Dividing the sum of both terms by the weight sum at once, as this library
// once did, gave (0 + positive)/0 = +Inf. Without smoothing both give 0/0 =
// NaN; the sum reduction divides by nothing and is finite.
func TestCrossEntropyZeroWeightSumIsNaN(t *testing.T) {
	logits, targets, w := zeroWeightSumCase()
	for _, eps := range []float64{0.1, 0} {
		x := logits.Detach().SetRequiresGrad(true)
		loss := CrossEntropyLossWith(x, targets, ClassOptions{Weight: w, LabelSmoothing: eps})
		if v := loss.Item(); !math.IsNaN(v) {
			t.Fatalf("ε = %v: mean with weights summing to 0 = %v, want NaN (PyTorch)", eps, v)
		}
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		if !x.Grad().HasNaN() {
			t.Fatalf("ε = %v: gradient %v has no NaN; PyTorch's 1/0 weight sum gives NaN there", eps, x.Grad())
		}
	}
	// The sum: (1-ε)·0 + ε/C·Σ_n -logp[n, 2], finite.
	x := logits.Float64s()
	want := 0.0
	for n := range 6 {
		lse := 0.0
		for c := range 5 {
			lse += math.Exp(x[n*5+c])
		}
		want -= x[n*5+2] - math.Log(lse)
	}
	want *= 0.1 / 5
	got := CrossEntropyLossWith(logits, targets, ClassOptions{Weight: w, LabelSmoothing: 0.1, Reduction: ReduceSum})
	near(t, "sum with weights summing to 0", got.Float64s(), []float64{want}, 1e-12)
}

// TestDefaultIgnoreIndex: PyTorch's cross_entropy and nll_loss ignore
// targets equal to -100 by default (ignore_index=-100): they add nothing and
// the mean divides by the targets kept.
func TestDefaultIgnoreIndex(t *testing.T) {
	logp := autograd.New64([]float64{-1, -2, -3, -4}, 2, 2)
	near(t, "NLL mean", NLLLoss(logp, []int{-100, 1}, ReduceMean).Float64s(), []float64{4}, 0)
	near(t, "NLL none", NLLLoss(logp, []int{-100, 1}, ReduceNone).Float64s(), []float64{0, 4}, 0)
	// Every target -100: 0/0, NaN as in PyTorch.
	if v := CrossEntropyLoss(logp, []int{-100, -100}, ReduceMean).Item(); !math.IsNaN(v) {
		t.Fatalf("every target ignored: mean %v, want NaN", v)
	}
	// An explicit ignore index replaces the default: -100 is then out of range.
	mustPanic(t, "-100 with IgnoreIndex 0", func() { NLLLossWith(logp, []int{-100, 1}, ClassOptions{Ignore: true}) }, "target -100")
}

// TestUnbatchedClassLosses: PyTorch accepts one sample's [C] input with a
// 0-D target and gives a 0-D loss under every reduction; its value is the
// sample's loss, -log softmax(x)[k] (the weighted mean divides w[k]·loss by
// w[k]).
func TestUnbatchedClassLosses(t *testing.T) {
	x := vec(0.5, -1, 2)
	lse := math.Log(math.Exp(0.5) + math.Exp(-1) + math.Exp(2))
	want := lse - (-1) // target 1
	w := vec(2, 3, 5)
	for _, r := range reductions() {
		for _, o := range []ClassOptions{{Reduction: r}, {Reduction: r, Weight: w}, {Reduction: r, LabelSmoothing: 0.3}} {
			l := CrossEntropyLossWith(x, []int{1}, o)
			if l.Dim() != 0 {
				t.Fatalf("reduction %d: unbatched loss shape %v, want 0-D", r, l.Shape())
			}
			wantHere := want
			if r != ReduceMean && o.Weight != nil {
				wantHere *= 3
			}
			if eps := o.LabelSmoothing; eps != 0 {
				wantHere = (1-eps)*want + eps/3*(3*lse-(0.5-1+2))
			}
			near(t, "CE unbatched", l.Float64s(), []float64{wantHere}, 1e-12)
		}
	}
	logp := vec(-1, -2, -3)
	near(t, "NLL unbatched", NLLLoss(logp, []int{2}, ReduceNone).Float64s(), []float64{3}, 0)
	if l := NLLLoss(logp, []int{2}, ReduceNone); l.Dim() != 0 {
		t.Fatalf("NLL unbatched 'none' shape %v, want 0-D", l.Shape())
	}
	p := vec(0.2, 0.5, 0.3)
	soft := CrossEntropyLossProbs(x, p, ClassOptions{Reduction: ReduceNone})
	near(t, "soft unbatched", soft.Float64s(), []float64{0.2*(lse-0.5) + 0.5*(lse+1) + 0.3*(lse-2)}, 1e-12)
	// Gradients, by finite differences.
	for _, r := range reductions() {
		f := func(in []*autograd.Tensor) *autograd.Tensor {
			return CrossEntropyLossWith(in[0], []int{2}, ClassOptions{Reduction: r, Weight: w, LabelSmoothing: 0.1})
		}
		if err := autograd.CheckGrad(f, []*autograd.Tensor{x}, 1e-6, 1e-6); err != nil {
			t.Fatalf("unbatched CE gradient, reduction %d: %v", r, err)
		}
	}
}

// TestSmoothL1BetaZeroAtZero: PyTorch documents smooth_l1_loss with beta = 0
// as equivalent to l1_loss, whose gradient at a difference of 0 is
// sign(0) = 0. This library follows that documented equivalence: the
// gradient there is 0, as L1Loss's. (PyTorch 1.13's own smooth_l1 backward
// kernel gives -g there, from its `x <= -beta` branch, so L1Loss and
// SmoothL1Loss(beta=0) disagree in PyTorch itself; we do not copy that.)
func TestSmoothL1BetaZeroAtZero(t *testing.T) {
	for _, r := range reductions() {
		pred := vec(0, 1.5, -2).SetRequiresGrad(true)
		target := vec(0, 1, 1)
		l := SmoothL1Loss(pred, target, 0, r)
		var seed *autograd.Tensor
		if r == ReduceNone {
			seed = vec(1, 1, 1)
		} else {
			seed = autograd.Scalar64(1)
		}
		if err := l.BackwardWith(seed); err != nil {
			t.Fatal(err)
		}
		scale := 1.0
		if r == ReduceMean {
			scale = 1.0 / 3
		}
		near(t, "SmoothL1 beta 0 gradient", pred.Grad().Float64s(), []float64{0, scale, -scale}, 1e-15)
	}
}

// TestBatchNormBuffersUpdateInPlace: PyTorch updates running_mean and
// running_var in place, so references taken before a forward pass (a list of
// buffers, a state dict) see the new statistics. The GPU twin of this test
// is gpu.TestBatchNormBuffersUpdateInPlaceOnDevice.
func TestBatchNormBuffersUpdateInPlace(t *testing.T) {
	bn := NewBatchNorm1d(2, DefaultBatchNorm(), autograd.Float64)
	before := bn.Buffers()
	bn.Forward(autograd.New64([]float64{1, 2, 3, 6}, 2, 2))
	after := bn.Buffers()
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("buffer %d replaced by a new tensor; want it updated in place", i)
		}
	}
	// Channel 0 sees 1 and 3 (mean 2, unbiased variance 2), channel 1 sees
	// 2 and 6 (mean 4, variance 8): running = 0.9·running + 0.1·batch.
	near(t, "running mean", before[0].Float64s(), []float64{0.2, 0.4}, 1e-15)
	near(t, "running var", before[1].Float64s(), []float64{0.9 + 0.2, 0.9 + 0.8}, 1e-15)
}
