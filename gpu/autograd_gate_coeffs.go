package gpu

import (
	"runtime"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

var _ gates.CoeffKernels = (*AutogradDevice)(nil)

// GateCoefficients sets probs and coeffs from logits (gates.CoeffKernels):
// gate_coeffs.wgsl.
func (a *AutogradDevice) GateCoefficients(probs, coeffs, logits *autograd.Tensor) {
	n := logits.Len() / gates.NumOps
	a.run(a.ops().GateCoeffs(&Gates{N: n, Logits: a.buf(logits), Probs: a.buf(probs), Coeffs: a.buf(coeffs)}))
}

// GateCoefficientsGrad sets dlogits from the coefficients' gradient dcoeffs
// (gates.CoeffKernels): gate_logit_grad.wgsl, which adds, into dlogits
// cleared first.
func (a *AutogradDevice) GateCoefficientsGrad(dlogits, probs, dcoeffs *autograd.Tensor) {
	n := probs.Len() / gates.NumOps
	g := &Gates{N: n, Probs: a.buf(probs), Sums: a.buf(dcoeffs), Grads: a.buf(dlogits)}
	ops := a.ops()
	ops.r.Clear(g.Grads)
	a.run(ops.GateLogitGrad(g))
}

// GateHardCoefficients sets hard from logits (gates.CoeffKernels):
// gate_hard_coeffs.wgsl.
func (a *AutogradDevice) GateHardCoefficients(hard, logits *autograd.Tensor) {
	n := logits.Len() / gates.NumOps
	a.run(a.ops().GateHardCoeffs(a.buf(hard), &Gates{N: n, Logits: a.buf(logits)}))
}

// GateLayerCoeffs sets y to the layer with coefficients coeffs applied to
// x, both feature-major (gates.CoeffKernels): gate_forward.wgsl alone.
func (a *AutogradDevice) GateLayerCoeffs(y, x, coeffs *autograd.Tensor, w gates.Wiring, d gates.Dims) {
	gl := a.gateWiring(w, d)
	a.run(a.ops().GateForward(a.buf(y), a.buf(x), gl.l, a.buf(coeffs), d.Rows, d.SharedInput))
	runtime.KeepAlive(gl.keep)
}

// GateLayerCoeffsBackward sets dx and dcoeffs, where not nil, for the
// feature-major output gradient g (gates.CoeffKernels): the input gradient
// and the per-gate sums, into dcoeffs cleared first, in one dispatch
// (gate_backward.wgsl) when both are wanted and SetOneDispatchGateBackward
// says so.
func (a *AutogradDevice) GateLayerCoeffsBackward(dx, dcoeffs, g, x, coeffs *autograd.Tensor, w gates.Wiring, d gates.Dims) {
	if dcoeffs != nil {
		a.ops().r.Clear(a.buf(dcoeffs))
	}
	a.gateLayerCoeffsBackward(dx, dcoeffs, g, x, coeffs, w, d)
}

// GateLayerCoeffsBackwardInto is GateLayerCoeffsBackward adding the sums
// into dcoeffs (gates.CoeffKernels): gate_sums.wgsl adds, so a rollout's
// steps sum their coefficients' gradient in place.
func (a *AutogradDevice) GateLayerCoeffsBackwardInto(dx, dcoeffs, g, x, coeffs *autograd.Tensor, w gates.Wiring, d gates.Dims) {
	a.gateLayerCoeffsBackward(dx, dcoeffs, g, x, coeffs, w, d)
}

// gateLayerCoeffsBackward sets dx and adds the per-gate sums into dcoeffs,
// where not nil.
func (a *AutogradDevice) gateLayerCoeffsBackward(dx, dcoeffs, g, x, coeffs *autograd.Tensor, w gates.Wiring, d gates.Dims) {
	gl := a.gateWiring(w, d)
	ops := a.ops()
	xb, gb := a.buf(x), a.buf(g)
	gs := &Gates{N: d.Gates(), Coeffs: a.buf(coeffs)}
	if dcoeffs != nil {
		gs.Sums = a.buf(dcoeffs)
	}
	switch {
	case dx != nil && dcoeffs != nil && a.oneDispatchGateBackward():
		a.run(ops.GateBackward(a.buf(dx), xb, gb, gl.l, gs, d.Rows, d.SharedInput))
	case dx != nil && dcoeffs != nil:
		a.run(ops.GateBackwardInput(a.buf(dx), xb, gb, gl.l, gs, d.Rows, d.SharedInput))
		a.run(ops.GateSums(gs, xb, gb, gl.l, d.Rows, d.SharedInput))
	case dx != nil:
		a.run(ops.GateBackwardInput(a.buf(dx), xb, gb, gl.l, gs, d.Rows, d.SharedInput))
	case dcoeffs != nil:
		a.run(ops.GateSums(gs, xb, gb, gl.l, d.Rows, d.SharedInput))
	}
	runtime.KeepAlive(gl.keep)
}

// SetOneDispatchGateBackward chooses how a gate layer's backward pass that
// wants both gradients (GateLayerCoeffsBackward, ...Into) is recorded from
// now on: one dispatch of gate_backward.wgsl (on), or gate_backward_input.wgsl
// and gate_sums.wgsl (off); the same bits either way
// (TestGateBackwardIsInputGradAndSums). The default is one dispatch on a
// hardware GPU, where dispatches are what an iteration costs, and two on a
// software adapter: on lavapipe the one dispatch made the checkerboard
// iteration about 1.7 times as slow as the two (docs/PERFORMANCE.md), the gate
// sums' workgroup barriers most likely slowing every invocation of the
// kernel that holds them, the input gradient's too.
func (a *AutogradDevice) SetOneDispatchGateBackward(on bool) { a.gateBackward = &on }

// oneDispatchGateBackward reports SetOneDispatchGateBackward's choice.
func (a *AutogradDevice) oneDispatchGateBackward() bool {
	if a.gateBackward != nil {
		return *a.gateBackward
	}
	return !a.d.IsSoftware()
}
