package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
)

// ConvTranspose2d is a transposed 2-D convolution layer, as
// torch.nn.ConvTranspose2d: Weight [in, out/groups, k, k] (PyTorch's
// layout) and Bias [out] (or nil).
type ConvTranspose2d struct {
	Weight, Bias *autograd.Tensor
	Config       autograd.ConvTranspose2dConfig
}

// NewConvTranspose2d returns a ConvTranspose2d with a square kernel,
// initialised as torch.nn.ConvTranspose2d: uniform in ±1/√fan_in with
// PyTorch's fan_in of this weight, (out/groups)·k·k, for both the weight
// and the bias. It panics when groups do not divide the channel counts.
func NewConvTranspose2d(in, out, kernel int, cfg autograd.ConvTranspose2dConfig, bias bool, dtype autograd.DType, rng *rand.Rand) *ConvTranspose2d {
	groups := max(cfg.Groups, 1)
	if in <= 0 || out <= 0 || kernel <= 0 || in%groups != 0 || out%groups != 0 {
		panic(fmt.Sprintf("nn: NewConvTranspose2d: %d -> %d channels, kernel %d, groups %d", in, out, kernel, groups))
	}
	w := autograd.Zeros(dtype, in, out/groups, kernel, kernel)
	KaimingUniform(w, math.Sqrt(5), rng)
	var b *autograd.Tensor
	if bias {
		fanIn, _ := fans(w)
		bound := 1 / math.Sqrt(float64(fanIn))
		b = autograd.Zeros(dtype, out)
		Uniform(b, -bound, bound, rng)
	}
	requireGrad(params(w, b))
	return &ConvTranspose2d{Weight: w, Bias: b, Config: cfg}
}

// Forward applies the transposed convolution to x [N, in, H, W].
func (c *ConvTranspose2d) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.ConvTranspose2d(x, c.Weight, c.Bias, c.Config)
}

// Parameters returns the weight, then the bias if any.
func (c *ConvTranspose2d) Parameters() []*autograd.Tensor { return params(c.Weight, c.Bias) }

// AdaptiveAvgPool2d is autograd.AdaptiveAvgPool2d as a module, as
// torch.nn.AdaptiveAvgPool2d(Size); a size of 0 keeps the input's length
// on that axis (PyTorch's None).
type AdaptiveAvgPool2d struct{ Size [2]int }

// Forward pools x [N, C, H, W] or [C, H, W] to Size.
func (p AdaptiveAvgPool2d) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.AdaptiveAvgPool2d(x, p.Size)
}

// Parameters returns nil.
func (AdaptiveAvgPool2d) Parameters() []*autograd.Tensor { return nil }

// PReLU is a leaky ReLU with a learned slope, as torch.nn.PReLU: x where
// x > 0 and Weight·x elsewhere, with one slope shared by every channel
// (Weight [1]) or one per channel (Weight [C], channels on axis 1).
type PReLU struct {
	Weight *autograd.Tensor
}

// NewPReLU returns a PReLU with numParameters slopes (1, or the number of
// channels) all 0.25, torch.nn.PReLU's init. It panics when numParameters
// < 1.
func NewPReLU(numParameters int, dtype autograd.DType) *PReLU {
	if numParameters < 1 {
		panic(fmt.Sprintf("nn: NewPReLU: %d parameters (want 1 or the number of channels)", numParameters))
	}
	w := autograd.Full(dtype, 0.25, numParameters)
	w.SetRequiresGrad(true)
	return &PReLU{Weight: w}
}

// Forward returns x where x > 0 and Weight·x elsewhere (at 0 and at NaN
// too), so the gradient is PyTorch's prelu backward: g for x > 0 and
// Weight·g elsewhere for x, x·g where x <= 0 for the slope, summed over
// the positions sharing it. With several slopes, x needs at least two
// dimensions with the channels on axis 1; it panics otherwise.
func (p *PReLU) Forward(x *autograd.Tensor) *autograd.Tensor {
	var w *autograd.Tensor
	if c := p.Weight.Len(); c == 1 {
		w = autograd.Reshape(p.Weight) // a 0-D slope broadcasts to any x
	} else {
		if x.Dim() < 2 || x.Size(1) != c {
			panic(fmt.Sprintf("nn: PReLU: input %v for %d slopes (want channels, %d, on axis 1)", x.Shape(), c, c))
		}
		shape := make([]int, x.Dim()-1) // [C, 1, 1, ...] lines the slopes up with axis 1
		for i := range shape {
			shape[i] = 1
		}
		shape[0] = c
		w = autograd.Reshape(p.Weight, shape...)
	}
	positive := autograd.Gt(x, autograd.ZerosLike(w))
	return autograd.Where(positive, x, autograd.Mul(w, x))
}

// Parameters returns the slopes.
func (p *PReLU) Parameters() []*autograd.Tensor { return []*autograd.Tensor{p.Weight} }
