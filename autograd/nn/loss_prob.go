package nn

import (
	"fmt"
	"math"
	"slices"

	"github.com/dlca/dlca/autograd"
)

// The probabilistic losses: KL divergence and the Gaussian and Poisson
// negative log-likelihoods, as torch.nn.functional's. Each is composed of
// autograd ops whose gradients are PyTorch's, so it runs on any device that
// has those ops and differentiates to any order.

// KLDivOptions are the options of KLDivLoss, named after the arguments of
// torch.nn.functional.kl_div. The zero value is PyTorch's default
// (reduction 'mean', log_target False).
type KLDivOptions struct {
	// Reduction combines the per-element losses; the mean is over every
	// element (PyTorch's 'mean', which it warns is not the KL divergence).
	Reduction Reduction
	// BatchMean, when set, replaces Reduction by PyTorch's 'batchmean': the
	// sum divided by the batch size input.Size(0) (the sum itself for a 0-D
	// input), the mathematically correct KL divergence per sample.
	BatchMean bool
	// LogTarget says that target holds log-probabilities (log_target=True).
	LogTarget bool
}

// KLDivLoss is the pointwise KL divergence of target from input, where input
// holds log-probabilities, as torch.nn.functional.kl_div(input, target,
// reduction, log_target): target·(log target - input), 0 where target is 0
// (PyTorch's xlogy), or with LogTarget exp(target)·(target - input). Both
// input and target get gradients; at a target of 0 the target's is -input
// here, its t·log t term adding 0 (PyTorch's xlogy adds 0/0 = NaN there). It
// panics when the shapes differ.
func KLDivLoss(input, target *autograd.Tensor, o KLDivOptions) *autograd.Tensor {
	checkSame("KLDivLoss", input, target)
	var l *autograd.Tensor
	if o.LogTarget {
		l = autograd.Mul(autograd.Exp(target), autograd.Sub(target, input))
	} else {
		l = autograd.Sub(xlogx(target), autograd.Mul(target, input))
	}
	if !o.BatchMean {
		return reduce(l, o.Reduction)
	}
	sum := autograd.Sum(l, false)
	if input.Dim() == 0 {
		return sum
	}
	return autograd.DivScalar(sum, float64(input.Size(0)))
}

// xlogx is t·log t with 0 at t = 0 (torch.xlogy(t, t)). The log is taken of
// 1 where t is 0, so that neither the value nor the gradient meets log 0.
func xlogx(t *autograd.Tensor) *autograd.Tensor {
	zero := autograd.Eq(t, scalarOf(t, 0))
	safe := autograd.Where(zero, scalarOf(t, 1), t)
	return autograd.Mul(t, autograd.Log(safe))
}

// scalarOf returns v as a 0-D CPU tensor of t's dtype: a constant that ops
// on any device take (see autograd.Device).
func scalarOf(t *autograd.Tensor, v float64) *autograd.Tensor {
	return autograd.Full(t.DType(), v)
}

// GaussianNLLOptions are the options of GaussianNLLLoss, named after the
// arguments of torch.nn.functional.gaussian_nll_loss. Fields are used as
// given: start from DefaultGaussianNLL for PyTorch's defaults.
type GaussianNLLOptions struct {
	Reduction Reduction
	// Full adds the constant ½·log(2π) to each element's loss.
	Full bool
	// Eps is the least variance used: smaller ones are raised to Eps for the
	// value, and their gradient is taken there as if unclamped (PyTorch
	// clamps under no_grad).
	Eps float64
}

// DefaultGaussianNLL returns PyTorch's defaults: mean, full False, eps 1e-6.
func DefaultGaussianNLL() GaussianNLLOptions { return GaussianNLLOptions{Eps: 1e-6} }

// GaussianNLLLoss is the negative log-likelihood of target under normal
// distributions of mean input and variance variance, as
// torch.nn.functional.gaussian_nll_loss(input, target, var, full, eps,
// reduction): ½·(log max(var, eps) + (input - target)²/max(var, eps)), plus
// ½·log(2π) with Full. variance has input's shape, or input's shape without
// its last dimension or with it 1 (one variance shared by the last
// dimension: homoscedastic), as in PyTorch. Input, target and variance all
// get gradients.
//
// It panics when input and target differ in shape, when variance has none
// of those shapes, and, as PyTorch raises, when a variance is negative
// (which reads the variances back from a device, as PyTorch's check does).
func GaussianNLLLoss(input, target, variance *autograd.Tensor, o GaussianNLLOptions) *autograd.Tensor {
	const op = "GaussianNLLLoss"
	checkSame(op, input, target)
	in, vs := input.Shape(), variance.Shape()
	switch {
	case slices.Equal(in, vs):
	case len(in) > 0 && slices.Equal(in[:len(in)-1], vs):
		variance = autograd.Reshape(variance, append(slices.Clone(vs), 1)...)
	case len(in) > 0 && len(vs) == len(in) && slices.Equal(in[:len(in)-1], vs[:len(vs)-1]) && vs[len(vs)-1] == 1:
	default:
		panic(fmt.Sprintf("nn: %s: variance %v for input %v (want %v, the input's shape without its last dimension, or with it 1)", op, vs, in, in))
	}
	if lowest := minimumOf(op, variance); lowest < 0 {
		panic(fmt.Sprintf("nn: %s: variance has a negative entry (%g); variances must be >= 0", op, lowest))
	}
	// Raise the variance to Eps for the value only: the gradient flows to
	// variance as if it were not clamped, as PyTorch's no_grad clamp does.
	vd := variance.Detach()
	v := autograd.Add(variance, autograd.Sub(autograd.Clamp(vd, o.Eps, math.Inf(1)), vd))
	l := autograd.MulScalar(autograd.Add(autograd.Log(v), autograd.Div(autograd.Square(autograd.Sub(input, target)), v)), 0.5)
	if o.Full {
		l = autograd.AddScalar(l, 0.5*math.Log(2*math.Pi))
	}
	return reduce(l, o.Reduction)
}

// minimumOf returns the least element of t (+Inf for an empty t), read back
// from t's device if need be.
func minimumOf(op string, t *autograd.Tensor) float64 {
	if t.Len() == 0 {
		return math.Inf(1)
	}
	m, err := autograd.Min(t.Detach(), false).To(autograd.CPU)
	if err != nil {
		panic(fmt.Sprintf("nn: %s: reading the least variance back from %v: %v", op, t.Device(), err))
	}
	return m.Item()
}

// PoissonNLLOptions are the options of PoissonNLLLoss, named after the
// arguments of torch.nn.functional.poisson_nll_loss. Fields are used as
// given: start from DefaultPoissonNLL for PyTorch's defaults.
type PoissonNLLOptions struct {
	Reduction Reduction
	// LogInput says that input is the log of the rate (PyTorch's default);
	// otherwise input is the rate itself.
	LogInput bool
	// Full adds Stirling's approximation of log(target!) where target > 1.
	Full bool
	// Eps keeps log(input + Eps) finite at a rate of 0 (LogInput off only).
	Eps float64
}

// DefaultPoissonNLL returns PyTorch's defaults: mean, log_input True, full
// False, eps 1e-8.
func DefaultPoissonNLL() PoissonNLLOptions { return PoissonNLLOptions{LogInput: true, Eps: 1e-8} }

// PoissonNLLLoss is the negative log-likelihood of target under Poisson
// distributions, as torch.nn.functional.poisson_nll_loss(input, target,
// log_input, full, eps, reduction): exp(input) - target·input with
// LogInput, input - target·log(input + eps) without; Full adds
// target·log target - target + ½·log(2π·target) where target > 1. Input and
// target get gradients; the Stirling term's is 0 where target <= 1 (PyTorch
// masks its value there the same way, but its gradient at a target of 0 is
// 0·log 0 = NaN). It panics when the shapes differ.
func PoissonNLLLoss(input, target *autograd.Tensor, o PoissonNLLOptions) *autograd.Tensor {
	checkSame("PoissonNLLLoss", input, target)
	var l *autograd.Tensor
	if o.LogInput {
		l = autograd.Sub(autograd.Exp(input), autograd.Mul(target, input))
	} else {
		l = autograd.Sub(input, autograd.Mul(target, autograd.Log(autograd.AddScalar(input, o.Eps))))
	}
	if o.Full {
		big := autograd.Gt(target, scalarOf(target, 1))
		// Stirling's term is taken of 2 where it is masked, so that neither
		// the value nor the gradient meets log 0 there.
		t := autograd.Where(big, target, scalarOf(target, 2))
		stirling := autograd.Add(autograd.Sub(xlogx(t), t), autograd.MulScalar(autograd.Log(autograd.MulScalar(t, 2*math.Pi)), 0.5))
		l = autograd.Add(l, autograd.Where(big, stirling, autograd.Zeros(target.DType())))
	}
	return reduce(l, o.Reduction)
}
