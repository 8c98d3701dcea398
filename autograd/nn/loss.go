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

// SmoothL1Loss is ½d²/beta where |d| < beta and |d| - ½beta elsewhere, with
// d = pred - target, as torch.nn.functional.smooth_l1_loss(pred, target,
// beta=beta). beta = 0 gives L1Loss, as PyTorch documents, so its gradient
// at d = 0 is L1's 0; PyTorch 1.13's smooth_l1 backward kernel gives -g
// there instead (its x <= -beta branch), which this package does not copy
// (docs/autograd.md, Agreement with PyTorch). For beta > 0 it is HuberLoss
// with delta = beta, divided by beta. It panics on a negative beta or when
// the shapes differ.
func SmoothL1Loss(pred, target *autograd.Tensor, beta float64, r Reduction) *autograd.Tensor {
	checkSame("SmoothL1Loss", pred, target)
	if !(beta >= 0) {
		panic(fmt.Sprintf("nn: SmoothL1Loss: beta %v, want >= 0", beta))
	}
	if beta == 0 {
		return L1Loss(pred, target, r)
	}
	d := autograd.Sub(pred, target)
	abs := autograd.Abs(d)
	small := autograd.Lt(abs, autograd.Full(d.DType(), beta))
	quad := autograd.MulScalar(autograd.Square(d), 0.5/beta)
	lin := autograd.SubScalar(abs, beta/2)
	return reduce(autograd.Where(small, quad, lin), r)
}
