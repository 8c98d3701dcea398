package gpu

import (
	"runtime"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

// The gate layer on an AutogradDevice (gates.DeviceKernels): the recorded
// engine's kernels (gate_coeffs.wgsl, gate_forward.wgsl, ...), which work
// feature-major, between transposes of the row-major autograd tensors.

var _ gates.DeviceKernels = (*AutogradDevice)(nil)

// gateLayer is one application of a gate layer on the device: its wiring,
// from the cache (see indexCache), per-gate buffers from the pool, and x
// feature-major.
type gateLayer struct {
	l    *Layer
	g    *Gates
	xt   *Buffer
	keep []autograd.Storage // the pooled storage behind the buffers
}

// gateLayer finds or uploads the wiring of w, computes the probabilities and
// coefficients of logits, and transposes x to [inputs][rows].
func (a *AutogradDevice) gateLayer(x, logits *autograd.Tensor, w gates.Wiring, d gates.Dims) *gateLayer {
	gl := a.gateWiring(w, d)
	n := d.Gates()
	gl.g = &Gates{N: n, Logits: a.buf(logits)}
	gl.g.Probs = a.scratchFor(gl, 16*n)
	gl.g.Coeffs = a.scratchFor(gl, 4*n)
	gl.xt = a.scratchFor(gl, d.XLen())
	ops := a.ops()
	a.run(ops.GateCoeffs(gl.g))
	a.run(ops.Permute(gl.xt, a.buf(x), []int{d.Rows, d.XLen() / max(d.Rows, 1)}, 1, 0))
	return gl
}

// gateWiring finds or uploads the wiring of w (see indexCache).
func (a *AutogradDevice) gateWiring(w gates.Wiring, d gates.Dims) *gateLayer {
	gl := &gateLayer{l: &Layer{Name: "autograd", In: d.In, Out: d.Out, Groups: d.Groups}}
	ix := a.cachedIndex("gate wiring", wiringPairs(w), d.In, func() (start, slots []uint32) { return wiringReverse(w, d.In) })
	gl.l.wiring, gl.l.revStart, gl.l.revSlot = ix.ix.offs, ix.ix.start, ix.ix.pos
	gl.keep = append(gl.keep, ix.keep...)
	return gl
}

// scratchFor returns pooled scratch of n elements kept alive by gl.
func (a *AutogradDevice) scratchFor(gl *gateLayer, n int) *Buffer {
	s, b := a.scratch(n)
	gl.keep = append(gl.keep, s)
	return b
}

// GateLayer sets y to the gate layer applied to x (see gates.DeviceKernels).
func (a *AutogradDevice) GateLayer(y, x, logits *autograd.Tensor, w gates.Wiring, d gates.Dims) {
	gl := a.gateLayer(x, logits, w, d)
	yt := a.scratchFor(gl, d.YLen())
	ops := a.ops()
	a.run(ops.GateForward(yt, gl.xt, gl.l, gl.g.Coeffs, d.Rows, d.SharedInput))
	a.run(ops.Permute(a.buf(y), yt, []int{d.Gates(), d.Rows}, 1, 0))
	runtime.KeepAlive(gl.keep)
}

// GateLayerBackward sets dx and dlogits, where not nil, for the output
// gradient g (see gates.DeviceKernels).
func (a *AutogradDevice) GateLayerBackward(dx, dlogits, g, x, logits *autograd.Tensor, w gates.Wiring, d gates.Dims) {
	gl := a.gateLayer(x, logits, w, d)
	gt := a.scratchFor(gl, d.YLen())
	ops := a.ops()
	a.run(ops.Permute(gt, a.buf(g), []int{d.Rows, d.Gates()}, 1, 0))
	if dx != nil {
		gxt := a.scratchFor(gl, d.XLen())
		a.run(ops.GateBackwardInput(gxt, gl.xt, gt, gl.l, gl.g, d.Rows, d.SharedInput))
		a.run(ops.Permute(a.buf(dx), gxt, []int{d.XLen() / max(d.Rows, 1), d.Rows}, 1, 0))
	}
	if dlogits != nil {
		gl.g.Sums, gl.g.Grads = a.scratchFor(gl, 4*d.Gates()), a.buf(dlogits)
		ops.r.Clear(gl.g.Sums)
		ops.r.Clear(gl.g.Grads)
		a.run(ops.GateSums(gl.g, gl.xt, gt, gl.l, d.Rows, d.SharedInput))
		a.run(ops.GateLogitGrad(gl.g))
	}
	runtime.KeepAlive(gl.keep)
}
