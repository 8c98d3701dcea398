package gpu

import (
	"runtime"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

var _ gates.StraightThroughKernels = (*AutogradDevice)(nil)

// GateLayerHard sets y to the gate layer applied to x with every gate
// one-hot on its most probable op (gates.StraightThroughKernels): the
// engine's gate_hard_coeffs.wgsl from the logits on the device, then
// gate_forward with those coefficients. The backward pass of a
// straight-through layer is GateLayerBackward's, soft.
func (a *AutogradDevice) GateLayerHard(y, x, logits *autograd.Tensor, w gates.Wiring, d gates.Dims) {
	gl := a.gateLayer(x, logits, w, d)
	hard := a.scratchFor(gl, 4*d.Gates())
	yt := a.scratchFor(gl, d.YLen())
	ops := a.ops()
	a.run(ops.GateHardCoeffs(hard, gl.g))
	a.run(ops.GateForward(yt, gl.xt, gl.l, hard, d.Rows, d.SharedInput))
	a.run(ops.Permute(a.buf(y), yt, []int{d.Gates(), d.Rows}, 1, 0))
	runtime.KeepAlive(gl.keep)
}
