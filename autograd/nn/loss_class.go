package nn

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// ClassOptions are the options of the classification losses
// (CrossEntropyLossWith, CrossEntropyLossProbs, NLLLossWith), named after
// the arguments of torch.nn.functional.cross_entropy. The zero value is
// PyTorch's default except for ignore_index (see Ignore).
type ClassOptions struct {
	// Reduction combines the per-sample losses; the zero value is the mean.
	Reduction Reduction
	// Weight, when not nil, is a [C] tensor rescaling each class's loss.
	// With class-index targets the mean divides by the sum of the weights of
	// the targets that are not ignored, as PyTorch does; with probability
	// targets it divides by the number of samples. Weight is a constant: it
	// gets no gradient (PyTorch has no derivative for it either).
	Weight *autograd.Tensor
	// Ignore, when true, makes targets equal to IgnoreIndex contribute
	// nothing to the loss, its gradient, or the mean's denominator.
	//
	// NOTE: PyTorch ignores -100 by default (ignore_index=-100); here nothing
	// is ignored unless Ignore is set, because a zero-value IgnoreIndex could
	// not be told from class 0, and a -100 target panics as out of range.
	Ignore      bool
	IgnoreIndex int
	// LabelSmoothing ε in [0, 1] mixes the targets with the uniform
	// distribution: (1-ε)·target + ε/C. Cross-entropy only.
	LabelSmoothing float64
}

// CrossEntropyLoss is the cross-entropy of class targets under the softmax
// of logits [N, C]: -log softmax(logits)[n, target[n]]. It goes through
// LogSoftmax, which shifts by the row maximum, so it is stable for huge
// logits. It panics on a target out of range or a length mismatch. It is
// CrossEntropyLossWith with only a reduction.
func CrossEntropyLoss(logits *autograd.Tensor, targets []int, r Reduction) *autograd.Tensor {
	return CrossEntropyLossWith(logits, targets, ClassOptions{Reduction: r})
}

// CrossEntropyLossWith is the cross-entropy of class-index targets under the
// softmax of logits over axis 1, as torch.nn.functional.cross_entropy(logits,
// targets, weight, ignore_index, reduction, label_smoothing). logits is
// [N, C] or [N, C, d1, ...]; targets hold one class per sample and position,
// [N] or [N, d1, ...] flattened row-major, and the 'none' result has that
// shape. With label smoothing ε the loss is (1-ε)·nll + ε/C·Σ_c -w_c·logp_c,
// the smoothing term also divided by the targets' weight sum under the mean,
// as PyTorch does.
//
// It panics, naming the shapes, on a target out of range that is not
// ignored, a targets length that does not fit logits, a weight that is not
// [C], or label smoothing outside [0, 1].
func CrossEntropyLossWith(logits *autograd.Tensor, targets []int, o ClassOptions) *autograd.Tensor {
	checkSmoothing("CrossEntropyLoss", o.LabelSmoothing)
	checkClassInput("CrossEntropyLoss", "logits", logits, len(targets))
	return classLoss("CrossEntropyLoss", autograd.LogSoftmax(logits, 1), targets, o)
}

// NLLLoss is the negative log-likelihood -logProbs[n, target[n]] for
// logProbs [N, C]. It is NLLLossWith with only a reduction.
func NLLLoss(logProbs *autograd.Tensor, targets []int, r Reduction) *autograd.Tensor {
	return NLLLossWith(logProbs, targets, ClassOptions{Reduction: r})
}

// NLLLossWith is the negative log-likelihood -w[t]·logProbs[n, t, d...] with
// t = targets[n, d...], as torch.nn.functional.nll_loss(logProbs, targets,
// weight, ignore_index, reduction). Shapes, weights and ignored targets are
// as in CrossEntropyLossWith; the mean divides by the sum of the weights of
// the targets not ignored (NaN when every target is ignored, as PyTorch).
// It panics as CrossEntropyLossWith does, and on label smoothing, which
// nll_loss does not have.
func NLLLossWith(logProbs *autograd.Tensor, targets []int, o ClassOptions) *autograd.Tensor {
	if o.LabelSmoothing != 0 {
		panic(fmt.Sprintf("nn: NLLLoss: label smoothing %v (a cross-entropy option; nll_loss has none)", o.LabelSmoothing))
	}
	checkClassInput("NLLLoss", "log-probabilities", logProbs, len(targets))
	return classLoss("NLLLoss", logProbs, targets, o)
}

// CrossEntropyLossProbs is the cross-entropy of probability ("soft")
// targets, -Σ_c w_c·target[n, c, d...]·log softmax(logits)[n, c, d...], as
// torch.nn.functional.cross_entropy with a floating-point target of the
// logits' shape. Label smoothing replaces target by (1-ε)·target + ε/C; the
// mean divides by the number of samples (N·d1·...), whatever the weights, as
// PyTorch does. The targets get a gradient too.
//
// It panics when the shapes differ, on a weight that is not [C], on label
// smoothing outside [0, 1], and on Ignore (PyTorch rejects ignore_index with
// probability targets).
func CrossEntropyLossProbs(logits, probs *autograd.Tensor, o ClassOptions) *autograd.Tensor {
	const op = "CrossEntropyLossProbs"
	checkSmoothing(op, o.LabelSmoothing)
	if o.Ignore {
		panic("nn: " + op + ": Ignore is not supported with probability targets (as in PyTorch)")
	}
	checkClassInput(op, "logits", logits, -1)
	checkSame(op, logits, probs)
	c := logits.Size(1)
	if eps := o.LabelSmoothing; eps != 0 {
		probs = autograd.AddScalar(autograd.MulScalar(probs, 1-eps), eps/float64(c))
	}
	prod := autograd.Mul(autograd.LogSoftmax(logits, 1), probs)
	if o.Weight != nil {
		prod = autograd.Mul(prod, classWeightTensor(op, o.Weight, logits))
	}
	return reduce(autograd.Neg(autograd.Sum(prod, false, 1)), o.Reduction)
}

// classLoss is the loss of class-index targets given log-probabilities logp
// [N, C, d...]: -w[t]·logp[t] per sample and position, plus the label
// smoothing term, reduced as PyTorch's nll_loss and cross_entropy do.
func classLoss(op string, logp *autograd.Tensor, targets []int, o ClassOptions) *autograd.Tensor {
	shape := logp.Shape()
	c := shape[1]
	w := classWeights(op, o.Weight, c)
	// Ignored targets gather class 0 (any valid index) with weight 0 and are
	// then replaced by zeros, so a -Inf log-probability there cannot turn
	// into NaN.
	idx := make([]int, len(targets))
	perSample := make([]float64, len(targets))
	keep := make([]float64, len(targets))
	var total float64
	for i, k := range targets {
		if o.Ignore && k == o.IgnoreIndex {
			continue
		}
		if k < 0 || k >= c {
			panic(fmt.Sprintf("nn: %s: target %d (at %d) out of range [0, %d) for input %v", op, k, i, c, shape))
		}
		idx[i], perSample[i], keep[i] = k, w[k], 1
		total += w[k]
	}
	outShape := append([]int{shape[0]}, shape[2:]...)
	dt := logp.DType()
	picked := autograd.Reshape(autograd.Gather(logp, 1, idx), outShape...)
	l := autograd.Neg(autograd.Mul(picked, constant(logp, perSample, outShape)))
	if eps := o.LabelSmoothing; eps != 0 {
		weighted := logp
		if o.Weight != nil {
			weighted = autograd.Mul(logp, classWeightTensor(op, o.Weight, logp))
		}
		smooth := autograd.Neg(autograd.Sum(weighted, false, 1))
		l = autograd.Add(autograd.MulScalar(l, 1-eps), autograd.MulScalar(smooth, eps/float64(c)))
	}
	if o.Ignore {
		l = autograd.Where(constant(logp, keep, outShape), l, autograd.Zeros(dt))
	}
	switch o.Reduction {
	case ReduceNone:
		return l
	case ReduceSum:
		return autograd.Sum(l, false)
	}
	// The weighted mean: 0/0 = NaN when every target is ignored, as PyTorch.
	return autograd.DivScalar(autograd.Sum(l, false), total)
}

// checkClassInput panics unless in is [N, C, d...] (at least 2-D) with
// N·d1·... = count; count < 0 skips the count check.
func checkClassInput(op, what string, in *autograd.Tensor, count int) {
	if in.Dim() < 2 {
		panic(fmt.Sprintf("nn: %s: %s %v, want [N, C] or [N, C, d1, ...]", op, what, in.Shape()))
	}
	if count >= 0 && in.Len()/max(in.Size(1), 1) != count {
		panic(fmt.Sprintf("nn: %s: %s %v for %d targets (want N·d1·... = %d targets, row-major)",
			op, what, in.Shape(), count, in.Len()/max(in.Size(1), 1)))
	}
}

func checkSmoothing(op string, eps float64) {
	if !(eps >= 0 && eps <= 1) {
		panic(fmt.Sprintf("nn: %s: label smoothing %v, want it in [0, 1]", op, eps))
	}
}

// classWeights returns the class weights as float64s (all ones for nil),
// panicking unless weight is [c].
func classWeights(op string, weight *autograd.Tensor, c int) []float64 {
	if weight == nil {
		w := make([]float64, c)
		for i := range w {
			w[i] = 1
		}
		return w
	}
	if weight.Dim() != 1 || weight.Len() != c {
		panic(fmt.Sprintf("nn: %s: weight %v for %d classes (want [%d])", op, weight.Shape(), c, c))
	}
	host, err := weight.To(autograd.CPU) // the weights of the targets are summed on the host
	if err != nil {
		panic(fmt.Sprintf("nn: %s: reading the class weights back from %v: %v", op, weight.Device(), err))
	}
	return host.Float64s()
}

// classWeightTensor returns weight [C] as a constant of in's dtype shaped to
// broadcast along axis 1 of in [N, C, d...]: [1, C, 1, ...].
func classWeightTensor(op string, weight, in *autograd.Tensor) *autograd.Tensor {
	c := in.Size(1)
	shape := make([]int, in.Dim())
	for i := range shape {
		shape[i] = 1
	}
	shape[1] = c
	return constant(in, classWeights(op, weight, c), shape)
}

// constant returns vals as a tensor of the given shape that requires no
// gradient, with like's dtype and on like's device. Moving it to a device
// that has failed panics with the device's error (see autograd.Device).
func constant(like *autograd.Tensor, vals []float64, shape []int) *autograd.Tensor {
	var c *autograd.Tensor
	if like.DType() == autograd.Float64 {
		c = autograd.New64(vals, shape...)
	} else {
		f := make([]float32, len(vals))
		for i, v := range vals {
			f[i] = float32(v)
		}
		c = autograd.New(f, shape...)
	}
	if dev := like.Device(); dev != autograd.CPU {
		moved, err := c.To(dev)
		if err != nil {
			panic(fmt.Sprintf("nn: moving a constant of shape %v to %v: %v", shape, dev, err))
		}
		return moved
	}
	return c
}
