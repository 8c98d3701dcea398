package nn

import (
	"math/rand/v2"
	"slices"

	"github.com/dlca/dlca/autograd"
)

// Module is a differentiable function with parameters.
type Module interface {
	Forward(x *autograd.Tensor) *autograd.Tensor
	Parameters() []*autograd.Tensor
}

// Trainable is a module whose behaviour differs between training and
// evaluation (Dropout, and containers holding one).
type Trainable interface {
	SetTraining(on bool)
}

// SetTraining switches m (and, for containers, every layer inside) between
// training and evaluation mode.
func SetTraining(m Module, on bool) {
	if t, ok := m.(Trainable); ok {
		t.SetTraining(on)
	}
}

// Buffered is a module with state that is not a parameter: tensors it
// updates itself, such as BatchNorm's running statistics. No optimiser
// touches them; a checkpoint of the module saves them beside the parameters.
type Buffered interface {
	Buffers() []*autograd.Tensor
}

// To moves m's parameters and buffers to dev in place, as PyTorch's
// module.to(device): the tensors stay the same (MoveTo), so an optimiser
// built on m's parameters keeps updating them. An optimiser that already
// holds state (moments, momentum) keeps it where it was: move it with its
// State and LoadState, which puts each buffer on its parameter's device:
//
//	s := opt.State()
//	if err := nn.To(model, dev); err != nil { ... }
//	if err := opt.LoadState(s); err != nil { ... }
//
// Counters (BatchNorm's NumBatchesTracked) stay on the CPU. It returns the
// first device error.
func To(m Module, dev autograd.Device) error {
	host := counters(m)
	for _, t := range append(m.Parameters(), Buffers(m)...) {
		if slices.Contains(host, t) {
			continue
		}
		if err := t.MoveTo(dev); err != nil {
			return err
		}
	}
	return nil
}

// Buffers lists m's buffers (for containers, every layer's, in layer order),
// or nil when it has none. Like Parameters, the order is fixed, so buffers
// saved from one model instance load into another built the same way.
func Buffers(m Module) []*autograd.Tensor {
	if b, ok := m.(Buffered); ok {
		return b.Buffers()
	}
	return nil
}

// Sequential applies its layers in order.
type Sequential struct {
	Layers []Module
}

// NewSequential returns a Sequential of layers.
func NewSequential(layers ...Module) *Sequential { return &Sequential{Layers: layers} }

// Forward applies every layer in turn.
func (s *Sequential) Forward(x *autograd.Tensor) *autograd.Tensor {
	for _, l := range s.Layers {
		x = l.Forward(x)
	}
	return x
}

// Parameters lists the layers' parameters in layer order.
func (s *Sequential) Parameters() []*autograd.Tensor {
	var ps []*autograd.Tensor
	for _, l := range s.Layers {
		ps = append(ps, l.Parameters()...)
	}
	return ps
}

// Buffers lists the layers' buffers in layer order.
func (s *Sequential) Buffers() []*autograd.Tensor {
	var bs []*autograd.Tensor
	for _, l := range s.Layers {
		bs = append(bs, Buffers(l)...)
	}
	return bs
}

// SetTraining sets the mode of every layer.
func (s *Sequential) SetTraining(on bool) {
	for _, l := range s.Layers {
		SetTraining(l, on)
	}
}

// Func wraps a parameter-free function (an activation, a reshape) as a
// Module.
type Func func(x *autograd.Tensor) *autograd.Tensor

// Forward applies the function.
func (f Func) Forward(x *autograd.Tensor) *autograd.Tensor { return f(x) }

// Parameters returns nil.
func (Func) Parameters() []*autograd.Tensor { return nil }

// ReLU, Tanh, Sigmoid, GELU and Flatten as modules.
var (
	ReLU    Module = Func(autograd.Relu)
	Tanh    Module = Func(autograd.Tanh)
	Sigmoid Module = Func(autograd.Sigmoid)
	GELU    Module = Func(autograd.Gelu)
	// Flatten keeps the batch dimension and flattens the rest.
	Flatten Module = Func(autograd.Flatten)
)

// Dropout zeroes activations with probability P while training (see
// autograd.Dropout); in evaluation mode it is the identity.
type Dropout struct {
	P        float64
	Training bool
	Rng      *rand.Rand
}

// NewDropout returns a Dropout in training mode drawing its masks from rng.
func NewDropout(p float64, rng *rand.Rand) *Dropout { return &Dropout{P: p, Training: true, Rng: rng} }

// Forward applies dropout in training mode.
func (d *Dropout) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.Dropout(x, d.P, d.Training, d.Rng)
}

// Parameters returns nil.
func (d *Dropout) Parameters() []*autograd.Tensor { return nil }

// SetTraining switches between training and evaluation.
func (d *Dropout) SetTraining(on bool) { d.Training = on }

// MaxPool2d is autograd.MaxPool2d as a module.
type MaxPool2d struct{ Kernel, Stride, Padding int }

// Forward pools x [N, C, H, W].
func (p MaxPool2d) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.MaxPool2d(x, p.Kernel, p.Stride, p.Padding)
}

// Parameters returns nil.
func (MaxPool2d) Parameters() []*autograd.Tensor { return nil }

// AvgPool2d is autograd.AvgPool2d as a module.
type AvgPool2d struct{ Kernel, Stride, Padding int }

// Forward pools x [N, C, H, W].
func (p AvgPool2d) Forward(x *autograd.Tensor) *autograd.Tensor {
	return autograd.AvgPool2d(x, p.Kernel, p.Stride, p.Padding)
}

// Parameters returns nil.
func (AvgPool2d) Parameters() []*autograd.Tensor { return nil }
