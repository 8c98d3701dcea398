package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
)

// Linear is y = x·Wᵀ + b with Weight [out, in] and Bias [out] (nil when
// built without bias).
type Linear struct {
	Weight, Bias *autograd.Tensor
}

// NewLinear returns a Linear layer initialised as torch.nn.Linear: weight
// and bias uniform in ±1/√in. It panics on non-positive sizes.
func NewLinear(in, out int, bias bool, dtype autograd.DType, rng *rand.Rand) *Linear {
	if in <= 0 || out <= 0 {
		panic(fmt.Sprintf("nn: NewLinear: sizes %d -> %d", in, out))
	}
	l := &Linear{Weight: autograd.Zeros(dtype, out, in)}
	KaimingUniform(l.Weight, math.Sqrt(5), rng)
	if bias {
		l.Bias = autograd.Zeros(dtype, out)
		bound := 1 / math.Sqrt(float64(in))
		Uniform(l.Bias, -bound, bound, rng)
	}
	requireGrad(l.Parameters())
	return l
}

// Forward applies the layer to x [..., in].
func (l *Linear) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.Linear(x, l.Weight, l.Bias)
}

// Parameters returns the weight, then the bias if any.
func (l *Linear) Parameters() []*autograd.Tensor { return params(l.Weight, l.Bias) }

// Conv2d is a 2-D convolution layer with Weight [out, in/groups, k, k] and
// Bias [out] (or nil).
type Conv2d struct {
	Weight, Bias *autograd.Tensor
	Config       autograd.Conv2dConfig
}

// NewConv2d returns a Conv2d with a square kernel, initialised as
// torch.nn.Conv2d (uniform in ±1/√fan_in). It panics when groups do not
// divide the channel counts.
func NewConv2d(in, out, kernel int, cfg autograd.Conv2dConfig, bias bool, dtype autograd.DType, rng *rand.Rand) *Conv2d {
	w, b := newConvParams("NewConv2d", in, out, cfg.Groups, []int{kernel, kernel}, bias, dtype, rng)
	return &Conv2d{Weight: w, Bias: b, Config: cfg}
}

// Forward convolves x [N, in, H, W].
func (c *Conv2d) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.Conv2d(x, c.Weight, c.Bias, c.Config)
}

// Parameters returns the weight, then the bias if any.
func (c *Conv2d) Parameters() []*autograd.Tensor { return params(c.Weight, c.Bias) }

// Conv1d is a 1-D convolution layer with Weight [out, in/groups, k] and
// Bias [out] (or nil).
type Conv1d struct {
	Weight, Bias *autograd.Tensor
	Config       autograd.Conv1dConfig
}

// NewConv1d returns a Conv1d initialised as torch.nn.Conv1d. It panics when
// groups do not divide the channel counts.
func NewConv1d(in, out, kernel int, cfg autograd.Conv1dConfig, bias bool, dtype autograd.DType, rng *rand.Rand) *Conv1d {
	w, b := newConvParams("NewConv1d", in, out, cfg.Groups, []int{kernel}, bias, dtype, rng)
	return &Conv1d{Weight: w, Bias: b, Config: cfg}
}

// Forward convolves x [N, in, L].
func (c *Conv1d) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.Conv1d(x, c.Weight, c.Bias, c.Config)
}

// Parameters returns the weight, then the bias if any.
func (c *Conv1d) Parameters() []*autograd.Tensor { return params(c.Weight, c.Bias) }

// newConvParams returns a convolution's weight [out, in/groups, kernel...]
// and bias [out] (nil without one), initialised as PyTorch does and marked
// as requiring gradients. It panics, naming op, on sizes that do not fit.
func newConvParams(op string, in, out, groups int, kernel []int, bias bool, dtype autograd.DType, rng *rand.Rand) (w, b *autograd.Tensor) {
	groups = max(groups, 1)
	if in <= 0 || out <= 0 || kernel[0] <= 0 || in%groups != 0 || out%groups != 0 {
		panic(fmt.Sprintf("nn: %s: %d -> %d channels, kernel %v, groups %d", op, in, out, kernel, groups))
	}
	w = autograd.Zeros(dtype, append([]int{out, in / groups}, kernel...)...)
	KaimingUniform(w, math.Sqrt(5), rng)
	if bias {
		fanIn, _ := fans(w)
		bound := 1 / math.Sqrt(float64(fanIn))
		b = autograd.Zeros(dtype, out)
		Uniform(b, -bound, bound, rng)
	}
	requireGrad(params(w, b))
	return w, b
}

func params(ts ...*autograd.Tensor) []*autograd.Tensor {
	var ps []*autograd.Tensor
	for _, t := range ts {
		if t != nil {
			ps = append(ps, t)
		}
	}
	return ps
}

func requireGrad(ps []*autograd.Tensor) {
	for _, p := range ps {
		p.SetRequiresGrad(true)
	}
}
