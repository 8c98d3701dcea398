package nn

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// DefaultIgnoreIndex is the class index ignored when ClassOptions.Ignore is
// not set: PyTorch's default ignore_index, -100. No class has it, so a
// target of -100 contributes nothing, as in PyTorch.
const DefaultIgnoreIndex = -100

// ClassOptions are the options of the classification losses
// (CrossEntropyLossWith, CrossEntropyLossProbs, NLLLossWith), named after
// the arguments of torch.nn.functional.cross_entropy. The zero value is
// PyTorch's default.
type ClassOptions struct {
	// Reduction combines the per-sample losses; the zero value is the mean.
	Reduction Reduction
	// Weight, when not nil, is a [C] tensor rescaling each class's loss.
	// With class-index targets the mean divides by the sum of the weights of
	// the targets that are not ignored, as PyTorch does; with probability
	// targets it divides by the number of samples. Weight is a constant: it
	// gets no gradient (PyTorch has no derivative for it either). It is
	// used where it lives, never read back from a device.
	Weight *autograd.Tensor
	// Ignore, when true, makes targets equal to IgnoreIndex contribute
	// nothing to the loss, its gradient, or the mean's denominator. When it
	// is false, targets equal to DefaultIgnoreIndex (-100, PyTorch's
	// default ignore_index) are ignored: a zero-value IgnoreIndex could not
	// be told from class 0, hence the flag.
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
// shape. An unbatched [C] input takes one target (PyTorch's 0-D target) and
// gives a 0-D loss under every reduction. Targets equal to the ignore index
// (-100 unless ClassOptions.Ignore says otherwise) count for nothing. With
// label smoothing ε the loss is (1-ε)·nll + ε/C·Σ_c -w_c·logp_c; under the
// mean each of the two terms is divided by the targets' weight sum on its
// own, as PyTorch does (so weights summing to 0 give NaN, not Inf).
//
// It panics, naming the shapes, on a target out of range that is not
// ignored, a targets length that does not fit logits, a weight that is not
// [C], or label smoothing outside [0, 1].
func CrossEntropyLossWith(logits *autograd.Tensor, targets []int, o ClassOptions) *autograd.Tensor {
	checkSmoothing("CrossEntropyLoss", o.LabelSmoothing)
	logits, unbatched := batched(logits)
	checkClassInput("CrossEntropyLoss", "logits", logits, len(targets))
	return unbatch(classLoss("CrossEntropyLoss", autograd.LogSoftmax(logits, 1), targets, o), unbatched)
}

// NLLLoss is the negative log-likelihood -logProbs[n, target[n]] for
// logProbs [N, C] (or one sample's [C]). It is NLLLossWith with only a reduction.
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
	logProbs, unbatched := batched(logProbs)
	checkClassInput("NLLLoss", "log-probabilities", logProbs, len(targets))
	return unbatch(classLoss("NLLLoss", logProbs, targets, o), unbatched)
}

// CrossEntropyLossProbs is the cross-entropy of probability ("soft")
// targets, -Σ_c w_c·target[n, c, d...]·log softmax(logits)[n, c, d...], as
// torch.nn.functional.cross_entropy with a floating-point target of the
// logits' shape ([C] for one unbatched sample, giving a 0-D loss). Label
// smoothing replaces target by (1-ε)·target + ε/C; the
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
	checkSame(op, logits, probs)
	logits, unbatched := batched(logits)
	probs, _ = batched(probs)
	checkClassInput(op, "logits", logits, -1)
	c := logits.Size(1)
	if eps := o.LabelSmoothing; eps != 0 {
		probs = autograd.AddScalar(autograd.MulScalar(probs, 1-eps), eps/float64(c))
	}
	prod := autograd.Mul(autograd.LogSoftmax(logits, 1), probs)
	if o.Weight != nil {
		checkClassWeight(op, o.Weight, c)
		prod = autograd.Mul(prod, classWeightTensor(op, o.Weight, logits))
	}
	return unbatch(reduce(autograd.Neg(autograd.Sum(prod, false, 1)), o.Reduction), unbatched)
}

// batched returns an unbatched input [C] as a batch of one, [1, C], and
// reports whether it did; other shapes are returned as they are.
func batched(in *autograd.Tensor) (*autograd.Tensor, bool) {
	if in.Dim() != 1 {
		return in, false
	}
	return autograd.Reshape(in, 1, in.Len()), true
}

// unbatch turns the loss of a batch of one made by batched back into that
// of the unbatched input: 'none' gives a 0-D loss, as PyTorch's does for a
// [C] input; the mean and sum are 0-D already.
func unbatch(l *autograd.Tensor, unbatched bool) *autograd.Tensor {
	if !unbatched || l.Dim() == 0 {
		return l
	}
	return autograd.Reshape(l)
}

// classLoss is the loss of class-index targets given log-probabilities logp
// [N, C, d...]: -w[t]·logp[t] per sample and position, plus the label
// smoothing term, reduced as PyTorch's nll_loss and cross_entropy do.
//
// Every constant is built on logp's device from the host's targets (the
// picked indices, the mask of targets kept) and the weight tensor where it
// lives: nothing is read back, so a weight on a device costs no sync.
func classLoss(op string, logp *autograd.Tensor, targets []int, o ClassOptions) *autograd.Tensor {
	shape := logp.Shape()
	c := shape[1]
	checkClassWeight(op, o.Weight, c)
	ignoreIndex := o.ignoreIndex()
	// Ignored targets gather class 0 (any valid index) with weight 0 and are
	// then replaced by zeros, so a -Inf log-probability there cannot turn
	// into NaN.
	idx := make([]int, len(targets))
	keep := make([]float64, len(targets))
	kept := 0
	for i, k := range targets {
		if k == ignoreIndex {
			continue
		}
		if k < 0 || k >= c {
			panic(fmt.Sprintf("nn: %s: target %d (at %d) out of range [0, %d) for input %v (ignore_index is %d)", op, k, i, c, shape, ignoreIndex))
		}
		idx[i], keep[i] = k, 1
		kept++
	}
	outShape := append([]int{shape[0]}, shape[2:]...)
	keepMask := constant(logp, keep, outShape)
	// targetWeight is each position's w[t] (0 where ignored); total is their
	// sum, the weighted mean's denominator.
	targetWeight := keepMask
	var total *autograd.Tensor
	if o.Weight != nil {
		picked := autograd.Reshape(autograd.Gather(weightLike(op, o.Weight, logp), 0, idx), outShape...)
		targetWeight = autograd.Mul(picked, keepMask)
		total = autograd.Sum(targetWeight, false)
	}
	mask := func(l *autograd.Tensor) *autograd.Tensor {
		if kept == len(targets) {
			return l
		}
		return autograd.Where(keepMask, l, autograd.Zeros(logp.DType()))
	}
	picked := autograd.Reshape(autograd.Gather(logp, 1, idx), outShape...)
	nll := mask(autograd.Neg(autograd.Mul(picked, targetWeight)))
	var smooth *autograd.Tensor // -Σ_c w_c·logp_c, scaled by ε/C
	if eps := o.LabelSmoothing; eps != 0 {
		weighted := logp
		if o.Weight != nil {
			weighted = autograd.Mul(logp, classWeightTensor(op, o.Weight, logp))
		}
		smooth = mask(autograd.MulScalar(autograd.Neg(autograd.Sum(weighted, false, 1)), eps/float64(c)))
		nll = autograd.MulScalar(nll, 1-eps)
	}
	switch o.Reduction {
	case ReduceNone, ReduceSum:
		l := nll
		if smooth != nil {
			l = autograd.Add(nll, smooth)
		}
		return reduce(l, o.Reduction)
	}
	// The weighted mean divides each term by the weight sum on its own, as
	// PyTorch does: targets whose weights sum to 0 give 0/0 = NaN (not the
	// smoothing term's x/0 = Inf), and so does every target ignored.
	mean := func(l *autograd.Tensor) *autograd.Tensor {
		if total == nil {
			return autograd.DivScalar(autograd.Sum(l, false), float64(kept))
		}
		return autograd.Div(autograd.Sum(l, false), total)
	}
	if smooth == nil {
		return mean(nll)
	}
	return autograd.Add(mean(nll), mean(smooth))
}

// ignoreIndex returns the class index whose targets are ignored: IgnoreIndex
// when Ignore is set, else PyTorch's default -100.
func (o ClassOptions) ignoreIndex() int {
	if o.Ignore {
		return o.IgnoreIndex
	}
	return DefaultIgnoreIndex
}

// checkClassInput panics unless in is [N, C, d...] (at least 2-D) with
// N·d1·... = count; count < 0 skips the count check.
func checkClassInput(op, what string, in *autograd.Tensor, count int) {
	if in.Dim() < 2 {
		panic(fmt.Sprintf("nn: %s: %s %v, want [C], [N, C] or [N, C, d1, ...]", op, what, in.Shape()))
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

// checkClassWeight panics unless weight is nil or [c].
func checkClassWeight(op string, weight *autograd.Tensor, c int) {
	if weight != nil && (weight.Dim() != 1 || weight.Len() != c) {
		panic(fmt.Sprintf("nn: %s: weight %v for %d classes (want [%d])", op, weight.Shape(), c, c))
	}
}

// weightLike returns the class weights as a constant (no gradient, as
// PyTorch has no derivative for them) of in's dtype on in's device. Weights
// already there stay there, never read back; CPU weights for an input on a
// device are uploaded. Weights on a device for a CPU input panic, as they
// would have to be read back (move them with To).
func weightLike(op string, weight, in *autograd.Tensor) *autograd.Tensor {
	w := weight.Detach()
	if dev := in.Device(); w.Device() != dev {
		if w.Device() != autograd.CPU {
			panic(fmt.Sprintf("nn: %s: weight on %v for an input on %v (move the weight with To)", op, w.Device(), dev))
		}
		w = constant(in, w.Float64s(), w.Shape())
	}
	return autograd.Cast(w, in.DType())
}

// classWeightTensor returns weight [C] as a constant of in's dtype shaped to
// broadcast along axis 1 of in [N, C, d...]: [1, C, 1, ...].
func classWeightTensor(op string, weight, in *autograd.Tensor) *autograd.Tensor {
	shape := make([]int, in.Dim())
	for i := range shape {
		shape[i] = 1
	}
	shape[1] = in.Size(1)
	return autograd.Reshape(weightLike(op, weight, in), shape...)
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
