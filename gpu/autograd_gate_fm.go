package gpu

import (
	"runtime"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

var _ gates.FMKernels = (*AutogradDevice)(nil)

// GateLayerFM sets y to the gate layer applied to x, both feature-major
// (gates.FMKernels): the kernels' own layout, so nothing is transposed;
// straight steps forward with every gate its argmax op.
func (a *AutogradDevice) GateLayerFM(y, x, logits *autograd.Tensor, w gates.Wiring, d gates.Dims, straight bool) {
	gl := a.gateCoeffs(logits, w, d)
	ops := a.ops()
	coeffs := gl.g.Coeffs
	if straight {
		coeffs = a.scratchFor(gl, 4*d.Gates())
		a.run(ops.GateHardCoeffs(coeffs, gl.g))
	}
	a.run(ops.GateForward(a.buf(y), a.buf(x), gl.l, coeffs, d.Rows, d.SharedInput))
	runtime.KeepAlive(gl.keep)
}

// GateLayerFMBackward sets dx and dlogits, where not nil, for the
// feature-major output gradient g (gates.FMKernels).
func (a *AutogradDevice) GateLayerFMBackward(dx, dlogits, g, x, logits *autograd.Tensor, w gates.Wiring, d gates.Dims) {
	gl := a.gateCoeffs(logits, w, d)
	xb, gb := a.buf(x), a.buf(g)
	if dx != nil {
		a.run(a.ops().GateBackwardInput(a.buf(dx), xb, gb, gl.l, gl.g, d.Rows, d.SharedInput))
	}
	if dlogits != nil {
		a.gateLogitGrad(gl, dlogits, xb, gb, d)
	}
	runtime.KeepAlive(gl.keep)
}
