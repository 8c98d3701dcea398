package nn

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// BinaryOptions are the options of the binary cross-entropy losses
// (BCELossWith, BCEWithLogitsLossWith), named after the arguments of
// torch.nn.functional.binary_cross_entropy(_with_logits). The zero value is
// PyTorch's default.
type BinaryOptions struct {
	// Reduction combines the per-element losses; the zero value is the mean,
	// which divides by the number of elements whatever the weights (as
	// PyTorch).
	Reduction Reduction
	// Weight, when not nil, rescales each element's loss; it broadcasts
	// against the input (for example [C] against [N, C]).
	Weight *autograd.Tensor
	// PosWeight, when not nil, rescales the positive term t·log σ(x) of
	// BCEWithLogitsLossWith; it broadcasts against the input, so a [C]
	// tensor weighs each class (the last dimension). BCELossWith rejects it,
	// as binary_cross_entropy has no pos_weight.
	PosWeight *autograd.Tensor
}

// BCELoss is the binary cross-entropy -(t·log p + (1-t)·log(1-p)) of
// probabilities p, as torch.nn.BCELoss: each log is clamped at -100, so p = 0
// or 1 gives a finite loss, and the gradient (p - t)/max(p(1-p), 1e-12) stays
// finite too. It is BCELossWith with only a reduction.
func BCELoss(p, target *autograd.Tensor, r Reduction) *autograd.Tensor {
	return BCELossWith(p, target, BinaryOptions{Reduction: r})
}

// BCELossWith is the weighted binary cross-entropy
// -w·(t·log p + (1-t)·log(1-p)), as torch.nn.functional.binary_cross_entropy
// (p, target, weight, reduction), with BCELoss's clamping. It panics when
// the shapes differ, when Weight does not broadcast against p, and on a
// PosWeight.
func BCELossWith(p, target *autograd.Tensor, o BinaryOptions) *autograd.Tensor {
	const op = "BCELoss"
	checkSame(op, p, target)
	if o.PosWeight != nil {
		panic("nn: BCELoss: PosWeight is a BCEWithLogitsLoss option (binary_cross_entropy has no pos_weight)")
	}
	// The value, from graph-free views; the gradient is recorded below.
	pd, td := p.Detach(), target.Detach()
	logP, log1mP := clampedLogs(pd)
	l := autograd.Neg(autograd.Add(autograd.Mul(td, logP), autograd.Mul(autograd.RSubScalar(td, 1), log1mP)))
	l = autograd.Record(op, l, []*autograd.Tensor{p, target}, func(g *autograd.Tensor) []*autograd.Tensor {
		// NOTE: PyTorch's form of dl/dp, bounded where p(1-p) underflows.
		// Both rules are built from p and target themselves, not from the
		// values above, so that they are differentiable again.
		denom := autograd.Maximum(autograd.Mul(p, autograd.RSubScalar(p, 1)), autograd.Full(p.DType(), 1e-12))
		lp, l1mp := clampedLogs(p)
		return []*autograd.Tensor{
			autograd.Div(autograd.Mul(g, autograd.Sub(p, target)), denom),
			autograd.Mul(g, autograd.Sub(l1mp, lp)),
		}
	})
	return reduce(weigh(op, "weight", l, o.Weight), o.Reduction)
}

// clampedLogs returns log p and log(1-p), each clamped to [-100, 0] as
// PyTorch's binary_cross_entropy does.
func clampedLogs(p *autograd.Tensor) (logP, log1mP *autograd.Tensor) {
	return autograd.Clamp(autograd.Log(p), -100, 0), autograd.Clamp(autograd.Log(autograd.RSubScalar(p, 1)), -100, 0)
}

// BCEWithLogitsLoss is BCELoss of sigmoid(x), computed stably as
// softplus(x) - x·t; its gradient is sigmoid(x) - t. It is
// BCEWithLogitsLossWith with only a reduction.
func BCEWithLogitsLoss(x, target *autograd.Tensor, r Reduction) *autograd.Tensor {
	return BCEWithLogitsLossWith(x, target, BinaryOptions{Reduction: r})
}

// BCEWithLogitsLossWith is -w·(pw·t·log σ(x) + (1-t)·log(1-σ(x))), as
// torch.nn.functional.binary_cross_entropy_with_logits(x, target, weight,
// reduction=..., pos_weight). It is computed stably, as PyTorch does, in the
// form (1-t)·x + (1 + (pw-1)·t)·softplus(-x), finite for any logit. It
// panics when the shapes differ or when Weight or PosWeight does not
// broadcast against x.
func BCEWithLogitsLossWith(x, target *autograd.Tensor, o BinaryOptions) *autograd.Tensor {
	const op = "BCEWithLogitsLoss"
	checkSame(op, x, target)
	var l *autograd.Tensor
	if o.PosWeight == nil {
		// pw = 1: softplus(-x) + (1-t)·x = softplus(x) - t·x.
		l = autograd.Sub(autograd.Softplus(x), autograd.Mul(x, target))
	} else {
		checkBroadcast(op, "pos_weight", o.PosWeight, x)
		logWeight := autograd.AddScalar(autograd.Mul(autograd.SubScalar(o.PosWeight, 1), target), 1)
		l = autograd.Add(autograd.Mul(autograd.RSubScalar(target, 1), x), autograd.Mul(logWeight, autograd.Softplus(autograd.Neg(x))))
	}
	return reduce(weigh(op, "weight", l, o.Weight), o.Reduction)
}

// weigh returns l·w (l itself for a nil w), panicking, named as what, when
// w does not broadcast against l.
func weigh(op, what string, l, w *autograd.Tensor) *autograd.Tensor {
	if w == nil {
		return l
	}
	checkBroadcast(op, what, w, l)
	return autograd.Mul(l, w)
}

// checkBroadcast panics unless w broadcasts against x without changing x's
// shape: no more dimensions, and each trailing length equal or 1.
func checkBroadcast(op, what string, w, x *autograd.Tensor) {
	ws, xs := w.Shape(), x.Shape()
	ok := len(ws) <= len(xs)
	for i := 1; ok && i <= len(ws); i++ {
		ok = ws[len(ws)-i] == 1 || ws[len(ws)-i] == xs[len(xs)-i]
	}
	if !ok {
		panic(fmt.Sprintf("nn: %s: %s %v does not broadcast against input %v", op, what, ws, xs))
	}
}
