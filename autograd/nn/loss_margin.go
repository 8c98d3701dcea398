package nn

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
)

// The margin and embedding losses, as torch.nn.functional's. Each is
// composed of autograd ops whose gradients are PyTorch's, so it runs on any
// device that has those ops. Their targets y are tensors (of ±1 labels, or
// 0/1 for MultiLabelSoftMarginLoss) on the inputs' device, as in PyTorch.

// clampMin0 is max(x, 0) with PyTorch's clamp_min gradient: the upstream
// gradient where x >= 0, so it passes at exactly 0 (where Relu's would not).
func clampMin0(x *autograd.Tensor) *autograd.Tensor {
	return autograd.Clamp(x, 0, math.Inf(1))
}

// MarginRankingLoss is max(0, -y·(x1 - x2) + margin), as
// torch.nn.functional.margin_ranking_loss(x1, x2, y, margin, reduction):
// y = 1 asks x1 to rank above x2 by margin, y = -1 below. x1, x2 and y get
// gradients. It panics unless the three shapes are equal.
func MarginRankingLoss(x1, x2, y *autograd.Tensor, margin float64, r Reduction) *autograd.Tensor {
	const op = "MarginRankingLoss"
	checkSame(op, x1, x2)
	checkSame(op, x1, y)
	return reduce(clampMin0(autograd.AddScalar(autograd.Neg(autograd.Mul(y, autograd.Sub(x1, x2))), margin)), r)
}

// HingeEmbeddingLoss is x where y = 1 and max(0, margin - x) where y = -1,
// as torch.nn.functional.hinge_embedding_loss(x, y, margin, reduction)
// (PyTorch's default margin is 1): x is typically a distance, small for
// similar pairs (y = 1). As in PyTorch, a label that is neither 1 nor -1
// gets both terms. It panics unless the shapes are equal.
func HingeEmbeddingLoss(x, y *autograd.Tensor, margin float64, r Reduction) *autograd.Tensor {
	const op = "HingeEmbeddingLoss"
	checkSame(op, x, y)
	zero := autograd.Zeros(x.DType())
	notPos := autograd.RSubScalar(autograd.Eq(y, scalarOf(y, 1)), 1)
	notNeg := autograd.RSubScalar(autograd.Eq(y, scalarOf(y, -1)), 1)
	hinge := autograd.Where(notPos, clampMin0(autograd.RSubScalar(x, margin)), zero)
	return reduce(autograd.Add(hinge, autograd.Where(notNeg, x, zero)), r)
}

// CosineEmbeddingLoss is 1 - cos(x1, x2) where y = 1 and max(0, cos(x1, x2)
// - margin) where y = -1 (0 for any other label), as
// torch.nn.functional.cosine_embedding_loss(x1, x2, y, margin, reduction):
// x1 and x2 are [N, D] with y [N], or one pair [D] with a 0-D y. The cosine
// is Σx1·x2 / √((Σx1² + 1e-12)·(Σx2² + 1e-12)), PyTorch's guard against a
// zero vector. x1 and x2 get gradients. It panics on other shapes.
func CosineEmbeddingLoss(x1, x2, y *autograd.Tensor, margin float64, r Reduction) *autograd.Tensor {
	const op = "CosineEmbeddingLoss"
	checkSame(op, x1, x2)
	if d := x1.Dim(); (d != 1 && d != 2) || y.Dim() != d-1 || (d == 2 && y.Size(0) != x1.Size(0)) {
		panic(fmt.Sprintf("nn: %s: inputs %v with target %v (want [N, D] with [N], or [D] with a 0-D target)", op, x1.Shape(), y.Shape()))
	}
	axis := x1.Dim() - 1
	const eps = 1e-12
	dot := autograd.Sum(autograd.Mul(x1, x2), false, axis)
	sq1 := autograd.AddScalar(autograd.Sum(autograd.Square(x1), false, axis), eps)
	sq2 := autograd.AddScalar(autograd.Sum(autograd.Square(x2), false, axis), eps)
	cos := autograd.Div(dot, autograd.Sqrt(autograd.Mul(sq1, sq2)))
	zero := autograd.Zeros(x1.DType())
	pos := autograd.Where(autograd.Eq(y, scalarOf(y, 1)), autograd.RSubScalar(cos, 1), zero)
	neg := autograd.Where(autograd.Eq(y, scalarOf(y, -1)), clampMin0(autograd.SubScalar(cos, margin)), zero)
	return reduce(autograd.Add(pos, neg), r)
}

// TripletOptions are the options of TripletMarginLoss, named after the
// arguments of torch.nn.functional.triplet_margin_loss. Fields are used as
// given: start from DefaultTriplet for PyTorch's defaults.
type TripletOptions struct {
	Reduction Reduction
	Margin    float64
	// P is the order of the distance: any p > 0, or math.Inf(1).
	P float64
	// Eps is added to each difference before its norm, as PyTorch's
	// pairwise_distance does, keeping the gradient finite for equal points.
	Eps float64
	// Swap uses min(d(a, n), d(p, n)) as the negative distance (the
	// distance swap of Balntas et al.).
	Swap bool
}

// DefaultTriplet returns PyTorch's defaults: mean, margin 1, p 2, eps 1e-6,
// no swap.
func DefaultTriplet() TripletOptions { return TripletOptions{Margin: 1, P: 2, Eps: 1e-6} }

// TripletMarginLoss is max(0, margin + d(a, p) - d(a, n)) with d(x, y) =
// ‖x - y + eps‖_p over the last dimension, as
// torch.nn.functional.triplet_margin_loss(anchor, positive, negative,
// margin, p, eps, swap, reduction). The three inputs are [N, D], or one
// triplet [D]; all get gradients. It panics when their shapes differ or are
// not 1-D or 2-D, and on P <= 0.
func TripletMarginLoss(anchor, positive, negative *autograd.Tensor, o TripletOptions) *autograd.Tensor {
	const op = "TripletMarginLoss"
	checkSame(op, anchor, positive)
	checkSame(op, anchor, negative)
	if d := anchor.Dim(); d != 1 && d != 2 {
		panic(fmt.Sprintf("nn: %s: inputs %v (want [N, D] or [D])", op, anchor.Shape()))
	}
	if !(o.P > 0) {
		panic(fmt.Sprintf("nn: %s: p %v, want > 0 (or math.Inf(1))", op, o.P))
	}
	dPos := pairwiseDistance(anchor, positive, o.P, o.Eps)
	dNeg := pairwiseDistance(anchor, negative, o.P, o.Eps)
	if o.Swap {
		dNeg = autograd.Minimum(dNeg, pairwiseDistance(positive, negative, o.P, o.Eps))
	}
	return reduce(clampMin0(autograd.AddScalar(autograd.Sub(dPos, dNeg), o.Margin)), o.Reduction)
}

// pairwiseDistance is torch.nn.functional.pairwise_distance(x, y, p, eps):
// ‖x - y + eps‖_p over the last dimension. p = 1, 2 and +Inf go through
// autograd.Norm (PyTorch's gradients, 0 at a zero norm); any other p is
// (Σ|d|^p)^(1/p).
func pairwiseDistance(x, y *autograd.Tensor, p, eps float64) *autograd.Tensor {
	d := autograd.AddScalar(autograd.Sub(x, y), eps)
	axis := d.Dim() - 1
	if p == 1 || p == 2 || math.IsInf(p, 1) {
		return autograd.Norm(d, p, false, axis)
	}
	return autograd.PowScalar(autograd.Sum(autograd.PowScalar(autograd.Abs(d), p), false, axis), 1/p)
}

// MultiLabelSoftMarginLoss is the multi-label one-versus-all loss
// -Σ_c w_c·(y_c·log σ(x_c) + (1 - y_c)·log σ(-x_c)) / C per sample, as
// torch.nn.functional.multilabel_soft_margin_loss(x, y, weight, reduction):
// x and y are [N, C] (the 'none' result is [N]) or one sample's [C] (a 0-D
// result); weight, when not nil, broadcasts against x (a [C] tensor weighs
// each class). log σ is computed stably as -softplus(-x). x and y get
// gradients. It panics when the shapes differ, are not 1-D or 2-D, or when
// weight does not broadcast.
func MultiLabelSoftMarginLoss(x, y, weight *autograd.Tensor, r Reduction) *autograd.Tensor {
	const op = "MultiLabelSoftMarginLoss"
	checkSame(op, x, y)
	if d := x.Dim(); d != 1 && d != 2 {
		panic(fmt.Sprintf("nn: %s: input %v (want [N, C] or [C])", op, x.Shape()))
	}
	// -(y·log σ(x) + (1-y)·log σ(-x)) = y·softplus(-x) + (1-y)·softplus(x).
	l := autograd.Add(autograd.Mul(y, autograd.Softplus(autograd.Neg(x))), autograd.Mul(autograd.RSubScalar(y, 1), autograd.Softplus(x)))
	l = weigh(op, "weight", l, weight)
	axis := x.Dim() - 1
	perSample := autograd.DivScalar(autograd.Sum(l, false, axis), float64(x.Size(axis)))
	return reduce(perSample, r)
}
