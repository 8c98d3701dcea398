package gates

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// FMKernels is the kernel set a device adds to DeviceKernels for ForwardFM:
// the gate layer on feature-major tensors, x [In][Rows] or
// [Groups*In][Rows], y and g [Groups*Out][Rows] (the kernels' own layout,
// nothing transposed); straight runs the forward pass with every gate its
// argmax op (StraightThroughKernels' forward). The backward pass is soft.
type FMKernels interface {
	GateLayerFM(y, x, logits *autograd.Tensor, w Wiring, d Dims, straight bool)
	GateLayerFMBackward(dx, dlogits, g, x, logits *autograd.Tensor, w Wiring, d Dims)
}

// ForwardFM is Forward (or, with straight, ForwardStraightThrough) on
// feature-major tensors, the kernels' layout: x is [In, rows] (every group
// reads the same features) or [Groups, In, rows], and y is
// [Groups, Out, rows]. A network of layers applied this way transposes
// nothing between them. It panics as Forward does, or when x's device has
// no FMKernels.
func (l *Layer) ForwardFM(x *autograd.Tensor, straight bool) *autograd.Tensor {
	d := l.dimsFM(x)
	if x.Device() != autograd.CPU || l.Logits.Device() != autograd.CPU {
		k := l.deviceKernels(x)
		fm, ok := k.(FMKernels)
		if !ok {
			panic(fmt.Sprintf("gates: layer %q: ForwardFM on %v, which has no feature-major kernels (gates.FMKernels)", l.Name, x.Device()))
		}
		return autograd.Apply(&deviceLayerOp{l: l, d: d, k: k, fm: fm, straight: straight}, x, l.Logits)
	}
	if l.Logits.DType() == autograd.Float64 {
		op := &layerOp[float64]{l: l, d: d, p: softParamsOf[float64](l, l.Logits.Data64()), fm: true}
		if straight {
			op.hard = HardCoeffs[float64](l.HardOps())
		}
		return autograd.Apply(op, x, l.Logits)
	}
	op := &layerOp[float32]{l: l, d: d, p: softParamsOf[float32](l, l.Logits.Data32()), fm: true}
	if straight {
		op.hard = HardCoeffs[float32](l.HardOps())
	}
	return autograd.Apply(op, x, l.Logits)
}

// dimsFM is dims for ForwardFM's feature-major x.
func (l *Layer) dimsFM(x *autograd.Tensor) Dims {
	l.checkApply(x)
	s := x.Shape()
	switch {
	case len(s) == 2 && s[0] == l.In:
		return Dims{Rows: s[1], Groups: l.Groups, In: l.In, Out: l.Out, SharedInput: true}
	case len(s) == 3 && s[0] == l.Groups && s[1] == l.In:
		return Dims{Rows: s[2], Groups: l.Groups, In: l.In, Out: l.Out}
	}
	panic(fmt.Sprintf("gates: layer %q: ForwardFM: input of shape %v, want [%d rows] or [%d %d rows]", l.Name, s, l.In, l.Groups, l.In))
}
