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
	groups := max(cfg.Groups, 1)
	if in <= 0 || out <= 0 || kernel <= 0 || in%groups != 0 || out%groups != 0 {
		panic(fmt.Sprintf("nn: NewConv2d: %d -> %d channels, kernel %d, groups %d", in, out, kernel, groups))
	}
	c := &Conv2d{Weight: autograd.Zeros(dtype, out, in/groups, kernel, kernel), Config: cfg}
	c.Bias = initConv(c.Weight, bias, rng)
	return c
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
	groups := max(cfg.Groups, 1)
	if in <= 0 || out <= 0 || kernel <= 0 || in%groups != 0 || out%groups != 0 {
		panic(fmt.Sprintf("nn: NewConv1d: %d -> %d channels, kernel %d, groups %d", in, out, kernel, groups))
	}
	c := &Conv1d{Weight: autograd.Zeros(dtype, out, in/groups, kernel), Config: cfg}
	c.Bias = initConv(c.Weight, bias, rng)
	return c
}

// Forward convolves x [N, in, L].
func (c *Conv1d) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.Conv1d(x, c.Weight, c.Bias, c.Config)
}

// Parameters returns the weight, then the bias if any.
func (c *Conv1d) Parameters() []*autograd.Tensor { return params(c.Weight, c.Bias) }

// initConv initialises a convolution weight as PyTorch does and returns the
// bias (nil without one), both marked as requiring gradients.
func initConv(w *autograd.Tensor, bias bool, rng *rand.Rand) *autograd.Tensor {
	KaimingUniform(w, math.Sqrt(5), rng)
	var b *autograd.Tensor
	if bias {
		fanIn, _ := fans(w)
		bound := 1 / math.Sqrt(float64(fanIn))
		b = autograd.Zeros(w.DType(), w.Size(0))
		Uniform(b, -bound, bound, rng)
	}
	requireGrad(params(w, b))
	return b
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
