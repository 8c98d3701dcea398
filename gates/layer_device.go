package gates

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// DeviceKernels runs a gate layer on a device other than the CPU: the
// kernel set a device implements so that Layer.Forward works on its
// tensors (package gpu's AutogradDevice does, with the kernels of its
// recorded engine). Tensors are row-major, as Forward's: x [Rows, In] or
// [Rows, Groups, In] (d.SharedInput tells which), logits [Groups, Out, 16],
// y and the output gradient g [Rows, Groups, Out]. The kernels write their
// outputs, which the op has allocated on the device.
type DeviceKernels interface {
	// GateLayer sets y to the layer of wiring w and logits applied to x.
	GateLayer(y, x, logits *autograd.Tensor, w Wiring, d Dims)
	// GateLayerBackward sets dx and dlogits (either may be nil: not
	// wanted) to the gradients of x and the logits for the output
	// gradient g.
	GateLayerBackward(dx, dlogits, g, x, logits *autograd.Tensor, w Wiring, d Dims)
}

// deviceLayerOp is the gate layer as a custom op on a device; inputs are x
// and the logits, both on the device.
type deviceLayerOp struct {
	l *Layer
	d Dims
	k DeviceKernels
}

// deviceKernels returns the gate kernels of x's device, panicking, naming
// the layer, when it has none or the logits live elsewhere.
func (l *Layer) deviceKernels(x *autograd.Tensor) DeviceKernels {
	dev := x.Device()
	if l.Logits.Device() != dev {
		panic(fmt.Sprintf("gates: layer %q: input on %v, logits on %v (move both to one device with To)", l.Name, dev, l.Logits.Device()))
	}
	k, ok := dev.(DeviceKernels)
	if !ok {
		panic(fmt.Sprintf("gates: layer %q: Forward on %v, which has no gate kernels (gates.DeviceKernels); move x and the logits to the CPU", l.Name, dev))
	}
	return k
}

func (op *deviceLayerOp) Name() string { return "gates.Layer(" + op.l.Name + ")" }

func (op *deviceLayerOp) Forward(in []*autograd.Tensor) *autograd.Tensor {
	x := in[0]
	y := autograd.Empty(x.Device(), x.DType(), op.d.Rows, op.d.Groups, op.d.Out)
	op.k.GateLayer(y, x, in[1], op.l.Wiring, op.d)
	return y
}

func (op *deviceLayerOp) Backward(g *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	x, logits := in[0], in[1]
	var dx, dlogits *autograd.Tensor
	if x.RequiresGrad() {
		dx = autograd.Empty(x.Device(), x.DType(), x.Shape()...)
	}
	if logits.RequiresGrad() {
		dlogits = autograd.Empty(x.Device(), x.DType(), logits.Shape()...)
	}
	if dx != nil || dlogits != nil {
		op.k.GateLayerBackward(dx, dlogits, g, x, logits, op.l.Wiring, op.d)
	}
	return []*autograd.Tensor{dx, dlogits}
}
