package nn

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/autograd"
)

// Reduction says how a loss combines its per-element values.
type Reduction uint8

const (
	// ReduceMean averages (PyTorch's default, and the zero value).
	ReduceMean Reduction = iota
	// ReduceSum adds.
	ReduceSum
	// ReduceNone returns the per-element losses.
	ReduceNone
)

func reduce(l *autograd.Tensor, r Reduction) *autograd.Tensor {
	switch r {
	case ReduceSum:
		return autograd.Sum(l, false)
	case ReduceNone:
		return l
	}
	return autograd.Mean(l, false)
}

func checkSame(op string, a, b *autograd.Tensor) {
	if !slices.Equal(a.Shape(), b.Shape()) {
		panic(fmt.Sprintf("nn: %s: prediction %v and target %v differ in shape", op, a.Shape(), b.Shape()))
	}
}

// MSELoss is the squared error (pred - target)². It panics when the shapes
// differ.
func MSELoss(pred, target *autograd.Tensor, r Reduction) *autograd.Tensor {
	checkSame("MSELoss", pred, target)
	return reduce(autograd.Square(autograd.Sub(pred, target)), r)
}

// L1Loss is the absolute error |pred - target|.
func L1Loss(pred, target *autograd.Tensor, r Reduction) *autograd.Tensor {
	checkSame("L1Loss", pred, target)
	return reduce(autograd.Abs(autograd.Sub(pred, target)), r)
}

// HuberLoss is ½d² where |d| < delta and delta·(|d| - ½delta) elsewhere,
// with d = pred - target, as torch.nn.HuberLoss.
func HuberLoss(pred, target *autograd.Tensor, delta float64, r Reduction) *autograd.Tensor {
	checkSame("HuberLoss", pred, target)
	d := autograd.Sub(pred, target)
	abs := autograd.Abs(d)
	small := autograd.Lt(abs, autograd.Full(d.DType(), delta))
	quad := autograd.MulScalar(autograd.Square(d), 0.5)
	lin := autograd.MulScalar(autograd.SubScalar(abs, delta/2), delta)
	return reduce(autograd.Where(small, quad, lin), r)
}

// CrossEntropyLoss is the cross-entropy of class targets under the softmax
// of logits [N, C]: -log softmax(logits)[n, target[n]]. It goes through
// LogSoftmax, which shifts by the row maximum, so it is stable for huge
// logits. It panics on a target out of range or a length mismatch.
func CrossEntropyLoss(logits *autograd.Tensor, targets []int, r Reduction) *autograd.Tensor {
	return NLLLoss(autograd.LogSoftmax(logits, 1), targets, r)
}

// NLLLoss is the negative log-likelihood -logProbs[n, target[n]] for
// logProbs [N, C].
func NLLLoss(logProbs *autograd.Tensor, targets []int, r Reduction) *autograd.Tensor {
	if logProbs.Dim() != 2 || logProbs.Size(0) != len(targets) {
		panic(fmt.Sprintf("nn: NLLLoss: log-probabilities %v for %d targets (want [N, C] with N targets)", logProbs.Shape(), len(targets)))
	}
	picked := autograd.Gather(logProbs, 1, targets)
	return reduce(autograd.Neg(autograd.Reshape(picked, len(targets))), r)
}

// BCELoss is the binary cross-entropy -(t·log p + (1-t)·log(1-p)) of
// probabilities p, as torch.nn.BCELoss: each log is clamped at -100, so p = 0
// or 1 gives a finite loss, and the gradient (p - t)/max(p(1-p), 1e-12) stays
// finite too.
func BCELoss(p, target *autograd.Tensor, r Reduction) *autograd.Tensor {
	checkSame("BCELoss", p, target)
	// logs returns log p and log(1-p), each clamped at -100.
	logs := func(p *autograd.Tensor) (logP, log1mP *autograd.Tensor) {
		return autograd.Clamp(autograd.Log(p), -100, 0), autograd.Clamp(autograd.Log(autograd.RSubScalar(p, 1)), -100, 0)
	}
	pv, tv := p.NoGrad(), target.NoGrad()
	logP, log1mP := logs(pv)
	l := autograd.Neg(autograd.Add(autograd.Mul(tv, logP), autograd.Mul(autograd.RSubScalar(tv, 1), log1mP))).Detach()
	l = autograd.Record("BCELoss", l, []*autograd.Tensor{p, target}, func(g *autograd.Tensor) []*autograd.Tensor {
		// NOTE: PyTorch's form of dl/dp, bounded where p(1-p) underflows.
		// The rule recomputes the logs from p so that it is differentiable.
		denom := autograd.Maximum(autograd.Mul(p, autograd.RSubScalar(p, 1)), autograd.Full(p.DType(), 1e-12))
		logP, log1mP := logs(p)
		return []*autograd.Tensor{
			autograd.Div(autograd.Mul(g, autograd.Sub(p, target)), denom),
			autograd.Mul(g, autograd.Sub(log1mP, logP)),
		}
	})
	return reduce(l, r)
}

// BCEWithLogitsLoss is BCELoss of sigmoid(x), computed stably as
// softplus(x) - x·t; its gradient is sigmoid(x) - t.
func BCEWithLogitsLoss(x, target *autograd.Tensor, r Reduction) *autograd.Tensor {
	checkSame("BCEWithLogitsLoss", x, target)
	return reduce(autograd.Sub(autograd.Softplus(x), autograd.Mul(x, target)), r)
}
