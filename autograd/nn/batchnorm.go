package nn

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/autograd"
)

// BatchNormConfig holds the options of torch.nn.BatchNorm1d/2d. Its zero
// value is not PyTorch's default (a zero eps, momentum and no affine are all
// legitimate choices); start from DefaultBatchNorm and change what differs.
type BatchNormConfig struct {
	// Eps is added to the variance before the square root.
	Eps float64
	// Momentum is the weight of the new batch in the running statistics:
	// running = (1 - Momentum)·running + Momentum·batch.
	Momentum float64
	// CumulativeAverage replaces Momentum by 1/NumBatchesTracked, a plain
	// average of every batch seen (PyTorch's momentum=None).
	CumulativeAverage bool
	// Affine gives the layer a learnable per-channel Weight and Bias.
	Affine bool
	// TrackRunningStats keeps RunningMean and RunningVar, used in evaluation
	// mode; without them the layer normalises with the batch's statistics in
	// both modes, as PyTorch does.
	TrackRunningStats bool
}

// DefaultBatchNorm returns PyTorch's defaults: eps 1e-5, momentum 0.1,
// affine, tracking running statistics.
func DefaultBatchNorm() BatchNormConfig {
	return BatchNormConfig{Eps: 1e-5, Momentum: 0.1, Affine: true, TrackRunningStats: true}
}

// BatchNorm normalises each channel (axis 1) over the batch and every
// position, as torch.nn.BatchNorm1d ([N, C] or [N, C, L]) and BatchNorm2d
// ([N, C, H, W]). In training mode (the mode it is built in) it uses the
// batch's mean and biased variance and updates the running statistics with
// the batch's unbiased variance, as PyTorch; in evaluation mode
// (SetTraining(false)) it uses the running statistics.
//
// RunningMean, RunningVar ([C], starting at 0 and 1) and NumBatchesTracked
// ([1] float64, a count) are buffers, not parameters: no optimiser updates
// them, and Buffers lists them for saving with the parameters.
type BatchNorm struct {
	Config       BatchNormConfig
	Weight, Bias *autograd.Tensor // [C]; nil without Affine

	RunningMean, RunningVar *autograd.Tensor // [C]; nil without TrackRunningStats
	NumBatchesTracked       *autograd.Tensor // [1] float64; nil without TrackRunningStats

	Training bool

	name     string // BatchNorm1d or BatchNorm2d, for messages
	ranks    []int  // the input ranks accepted
	features int
}

// NewBatchNorm1d returns a BatchNorm for inputs [N, C] or [N, C, L], in
// training mode. It panics on non-positive features.
func NewBatchNorm1d(features int, cfg BatchNormConfig, dtype autograd.DType) *BatchNorm {
	return newBatchNorm("BatchNorm1d", []int{2, 3}, features, cfg, dtype)
}

// NewBatchNorm2d returns a BatchNorm for inputs [N, C, H, W], in training
// mode. It panics on non-positive features.
func NewBatchNorm2d(features int, cfg BatchNormConfig, dtype autograd.DType) *BatchNorm {
	return newBatchNorm("BatchNorm2d", []int{4}, features, cfg, dtype)
}

func newBatchNorm(name string, ranks []int, features int, cfg BatchNormConfig, dtype autograd.DType) *BatchNorm {
	if features <= 0 {
		panic(fmt.Sprintf("nn: New%s: %d features", name, features))
	}
	b := &BatchNorm{Config: cfg, Training: true, name: name, ranks: ranks, features: features}
	if cfg.Affine {
		b.Weight, b.Bias = newAffine(dtype, features)
	}
	if cfg.TrackRunningStats {
		b.RunningMean = autograd.Zeros(dtype, features)
		b.RunningVar = autograd.Ones(dtype, features)
		b.NumBatchesTracked = autograd.Zeros(autograd.Float64, 1)
	}
	return b
}

// Forward normalises x. It panics when x's rank or channel count does not
// fit, or, in training mode, when a channel has a single value (its
// variance is undefined; PyTorch raises there too).
func (b *BatchNorm) Forward(x *autograd.Tensor) *autograd.Tensor {
	if !slices.Contains(b.ranks, x.Dim()) || x.Size(1) != b.features {
		panic(fmt.Sprintf("nn: %s: input %v, want rank %v with %d channels on axis 1", b.name, x.Shape(), b.ranks, b.features))
	}
	axes := []int{0}
	for a := 2; a < x.Dim(); a++ {
		axes = append(axes, a)
	}
	if !b.Training && b.RunningMean != nil {
		shape := channelShape(b.features, x.Dim())
		mean := autograd.Reshape(b.RunningMean.Detach(), shape...)
		rstd := autograd.PowScalar(autograd.AddScalar(autograd.Reshape(b.RunningVar.Detach(), shape...), b.Config.Eps), -0.5)
		return affineChannels(autograd.Mul(autograd.Sub(x, mean), rstd), b.Weight, b.Bias)
	}
	count := x.Len() / b.features
	if b.Training && count <= 1 {
		panic(fmt.Sprintf("nn: %s: input %v has %d value per channel; training needs more than 1", b.name, x.Shape(), count))
	}
	y, mean, variance := normalize(x, b.Config.Eps, axes...)
	switch {
	case !b.Training || b.RunningMean == nil:
	case b.RunningMean.Device() == autograd.CPU:
		b.track(mean.Float64s(), variance.Float64s(), count)
	default:
		b.trackOn(mean, variance, count)
	}
	return affineChannels(y, b.Weight, b.Bias)
}

// track folds one batch's per-channel mean and biased variance over count
// values into the running statistics, with the variance made unbiased.
func (b *BatchNorm) track(mean, variance []float64, count int) {
	m, unbias := b.count(count)
	for c := range mean {
		b.RunningMean.SetAt(c, (1-m)*b.RunningMean.At(c)+m*mean[c])
		b.RunningVar.SetAt(c, (1-m)*b.RunningVar.At(c)+m*variance[c]*unbias)
	}
}

// trackOn is track on a device: the running statistics are computed there
// and copied into RunningMean and RunningVar in place (as track does on the
// CPU, and PyTorch does on every device), so a list taken from Buffers
// before the forward pass sees them. The count stays on the CPU.
func (b *BatchNorm) trackOn(mean, variance *autograd.Tensor, count int) {
	k, ok := b.RunningMean.Device().(autograd.ElementwiseKernels)
	if !ok {
		panic(fmt.Sprintf("nn: %s: running statistics on %v, which has no autograd.ElementwiseKernels to update them in place", b.name, b.RunningMean.Device()))
	}
	m, unbias := b.count(count)
	fold := func(running, batch *autograd.Tensor, scale float64) {
		batch = autograd.Reshape(batch.Detach(), b.features)
		next := autograd.Add(autograd.MulScalar(running.Detach(), 1-m), autograd.MulScalar(batch, m*scale))
		k.Unary("Copy", running, next)
	}
	fold(b.RunningMean, mean, 1)
	fold(b.RunningVar, variance, unbias)
}

// count counts one more batch of count values per channel and returns the
// weight of the batch in the running statistics and the factor that makes
// its variance unbiased.
func (b *BatchNorm) count(count int) (momentum, unbias float64) {
	batches := b.NumBatchesTracked.At(0) + 1
	b.NumBatchesTracked.SetAt(0, batches)
	momentum = b.Config.Momentum
	if b.Config.CumulativeAverage {
		momentum = 1 / batches
	}
	return momentum, float64(count) / float64(count-1)
}

// counters returns the tensors of m that count rather than compute
// (BatchNorm's NumBatchesTracked): they stay on the CPU whatever device
// the rest of m moves to.
func counters(m Module) []*autograd.Tensor {
	switch l := m.(type) {
	case *Sequential:
		var cs []*autograd.Tensor
		for _, layer := range l.Layers {
			cs = append(cs, counters(layer)...)
		}
		return cs
	case *BatchNorm:
		return params(l.NumBatchesTracked)
	}
	return nil
}

// Parameters returns the weight and bias (none without affine).
func (b *BatchNorm) Parameters() []*autograd.Tensor { return params(b.Weight, b.Bias) }

// Buffers returns RunningMean, RunningVar and NumBatchesTracked (none
// without running statistics).
func (b *BatchNorm) Buffers() []*autograd.Tensor {
	return params(b.RunningMean, b.RunningVar, b.NumBatchesTracked)
}

// SetTraining switches between batch statistics (training, which also
// updates the running ones) and running statistics (evaluation).
func (b *BatchNorm) SetTraining(on bool) { b.Training = on }
