package gates

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// StraightThroughKernels is the kernel a device adds to DeviceKernels for
// ForwardStraightThrough: GateLayerHard sets y to the layer applied to x
// with every gate one-hot on its most probable op (HardOps' argmax, ties to
// the lowest op), computed from logits on the device.
type StraightThroughKernels interface {
	GateLayerHard(y, x, logits *autograd.Tensor, w Wiring, d Dims)
}

// ForwardStraightThrough is Forward with the straight-through estimator:
// the value is the layer with every gate its argmax op (the circuit's gate,
// HardOps), the gradients for x and the logits are the soft layer's taken
// at x, as stop_gradient(hard(x) - soft(x)) + soft(x) would give but with
// the hard value exactly. One fused op, like Forward; on a device the
// argmax is taken there (StraightThroughKernels), so it follows the logits
// as they train without a read-back. It panics as Forward does, or when
// the device has no StraightThroughKernels.
func (l *Layer) ForwardStraightThrough(x *autograd.Tensor) *autograd.Tensor {
	d := l.dims(x)
	if x.Device() != autograd.CPU || l.Logits.Device() != autograd.CPU {
		k := l.deviceKernels(x)
		hard, ok := k.(StraightThroughKernels)
		if !ok {
			panic(fmt.Sprintf("gates: layer %q: ForwardStraightThrough on %v, which has no straight-through kernel (gates.StraightThroughKernels)", l.Name, x.Device()))
		}
		return autograd.Apply(&deviceLayerOp{l: l, d: d, k: k, hard: hard}, x, l.Logits)
	}
	ops := l.HardOps()
	if l.Logits.DType() == autograd.Float64 {
		return autograd.Apply(&layerOp[float64]{l: l, d: d, p: softParamsOf[float64](l, l.Logits.Data64()), hard: HardCoeffs[float64](ops)}, x, l.Logits)
	}
	return autograd.Apply(&layerOp[float32]{l: l, d: d, p: softParamsOf[float32](l, l.Logits.Data32()), hard: HardCoeffs[float32](ops)}, x, l.Logits)
}
