package nn

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/autograd"
)

// Normalisation layers. Each normalises with the biased variance, as
// PyTorch does: y = (x - mean)/√(var + eps), then scales and shifts by its
// affine parameters (weight ones and bias zeros at construction). They are
// compositions of autograd ops, so their gradients (of any order) come from
// those ops.

// normalize returns (x - mean)/√(var + eps) with mean and biased variance
// over axes (kept), and the mean and variance themselves.
func normalize(x *autograd.Tensor, eps float64, axes ...int) (y, mean, variance *autograd.Tensor) {
	mean = autograd.Mean(x, true, axes...)
	dev := autograd.Sub(x, mean)
	variance = autograd.Mean(autograd.Square(dev), true, axes...)
	// (var + eps)^-½, PyTorch's rstd, through PowScalar, whose backward is
	// differentiable again.
	rstd := autograd.PowScalar(autograd.AddScalar(variance, eps), -0.5)
	return autograd.Mul(dev, rstd), mean, variance
}

// channelShape returns the shape [1, c, 1, ...] of rank dims, which
// broadcasts a per-channel [c] tensor along axis 1.
func channelShape(c, dims int) []int {
	shape := make([]int, dims)
	for i := range shape {
		shape[i] = 1
	}
	shape[1] = c
	return shape
}

// affineChannels returns y·weight + bias with weight and bias [C] broadcast along
// axis 1 of y; y itself when weight is nil.
func affineChannels(y, weight, bias *autograd.Tensor) *autograd.Tensor {
	if weight == nil {
		return y
	}
	shape := channelShape(weight.Len(), y.Dim())
	return autograd.Add(autograd.Mul(y, autograd.Reshape(weight, shape...)), autograd.Reshape(bias, shape...))
}

// newAffine returns a weight of ones and a bias of zeros of the given shape,
// both requiring gradients.
func newAffine(dtype autograd.DType, shape ...int) (weight, bias *autograd.Tensor) {
	weight, bias = autograd.Ones(dtype, shape...), autograd.Zeros(dtype, shape...)
	requireGrad(params(weight, bias))
	return weight, bias
}

// LayerNorm normalises over the trailing dimensions NormalizedShape, as
// torch.nn.LayerNorm(normalized_shape, eps, elementwise_affine). Weight and
// Bias have the shape NormalizedShape (nil without elementwise affine).
type LayerNorm struct {
	NormalizedShape []int
	Eps             float64
	Weight, Bias    *autograd.Tensor
}

// NewLayerNorm returns a LayerNorm over the trailing dimensions shape
// (PyTorch's default eps is 1e-5). It panics on an empty shape or a
// non-positive length.
func NewLayerNorm(shape []int, eps float64, affine bool, dtype autograd.DType) *LayerNorm {
	if len(shape) == 0 || slices.Min(shape) <= 0 {
		panic(fmt.Sprintf("nn: NewLayerNorm: normalized shape %v", shape))
	}
	l := &LayerNorm{NormalizedShape: slices.Clone(shape), Eps: eps}
	if affine {
		l.Weight, l.Bias = newAffine(dtype, shape...)
	}
	return l
}

// Forward normalises x [..., NormalizedShape...]. It panics when x's
// trailing dimensions are not NormalizedShape.
func (l *LayerNorm) Forward(x *autograd.Tensor) *autograd.Tensor {
	k := len(l.NormalizedShape)
	if x.Dim() < k || !slices.Equal(x.Shape()[x.Dim()-k:], l.NormalizedShape) {
		panic(fmt.Sprintf("nn: LayerNorm: input %v does not end in the normalized shape %v", x.Shape(), l.NormalizedShape))
	}
	axes := make([]int, k)
	for i := range axes {
		axes[i] = x.Dim() - k + i
	}
	y, _, _ := normalize(x, l.Eps, axes...)
	if l.Weight == nil {
		return y
	}
	return autograd.Add(autograd.Mul(y, l.Weight), l.Bias)
}

// Parameters returns the weight and bias (none without affine).
func (l *LayerNorm) Parameters() []*autograd.Tensor { return params(l.Weight, l.Bias) }

// GroupNorm normalises each sample over groups of channels, as
// torch.nn.GroupNorm(num_groups, num_channels, eps, affine): input
// [N, C, *], statistics over the C/Groups channels of a group and all
// positions. Weight and Bias are [C] (nil without affine).
type GroupNorm struct {
	Groups, Channels int
	Eps              float64
	Weight, Bias     *autograd.Tensor
}

// NewGroupNorm returns a GroupNorm (PyTorch's default eps is 1e-5). It
// panics unless groups divides channels.
func NewGroupNorm(groups, channels int, eps float64, affine bool, dtype autograd.DType) *GroupNorm {
	if groups <= 0 || channels <= 0 || channels%groups != 0 {
		panic(fmt.Sprintf("nn: NewGroupNorm: %d groups for %d channels (groups must divide channels)", groups, channels))
	}
	g := &GroupNorm{Groups: groups, Channels: channels, Eps: eps}
	if affine {
		g.Weight, g.Bias = newAffine(dtype, channels)
	}
	return g
}

// Forward normalises x [N, C, *]. It panics unless x has at least 2
// dimensions and C channels.
func (g *GroupNorm) Forward(x *autograd.Tensor) *autograd.Tensor {
	if x.Dim() < 2 || x.Size(1) != g.Channels {
		panic(fmt.Sprintf("nn: GroupNorm: input %v, want [N, %d, *]", x.Shape(), g.Channels))
	}
	n := x.Size(0)
	grouped := autograd.Reshape(x, n, g.Groups, x.Len()/max(n*g.Groups, 1))
	y, _, _ := normalize(grouped, g.Eps, 2)
	return affineChannels(autograd.Reshape(y, x.Shape()...), g.Weight, g.Bias)
}

// Parameters returns the weight and bias (none without affine).
func (g *GroupNorm) Parameters() []*autograd.Tensor { return params(g.Weight, g.Bias) }
