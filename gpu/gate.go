package gpu

import (
	"fmt"

	"github.com/dlca/dlca/gates"
)

// Layer is a gate layer's fixed structure on the device: its wiring and
// reverse index. Its logits and per-gate values live in model-wide buffers
// (see Gates), starting at gate GateBase.
type Layer struct {
	Name     string
	In, Out  int
	Groups   int
	GateBase int // index of the layer's first gate in the model-wide buffers
	wiring   *Buffer
	revStart *Buffer
	revSlot  *Buffer
}

// NewLayer uploads the wiring of a layer of groups x w.Len() gates reading in
// inputs. It panics if w reads outside [0, in).
func (d *Device) NewLayer(name string, in, groups int, w gates.Wiring, gateBase int) (*Layer, error) {
	start, slots := wiringReverse(w, in)
	l := &Layer{Name: name, In: in, Out: w.Len(), Groups: groups, GateBase: gateBase}
	var err error
	if l.wiring, err = NewBufferFrom(d, name+" wiring", wiringPairs(w)); err != nil {
		return nil, err
	}
	if l.revStart, err = NewBufferFrom(d, name+" reverse start", start); err != nil {
		l.Release()
		return nil, err
	}
	if l.revSlot, err = NewBufferFrom(d, name+" reverse slots", slots); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// wiringPairs returns what a Layer's wiring buffer holds: w as (a, b)
// pairs, for the engine's layers and the autograd device's gate op.
func wiringPairs(w gates.Wiring) []uint32 {
	pairs := make([]uint32, 0, 2*w.Len())
	for k := range w.A {
		pairs = append(pairs, uint32(w.A[k]), uint32(w.B[k]))
	}
	return pairs
}

// wiringReverse returns what a Layer's reverse index buffers hold: the
// reverse index of w over in inputs (gates.ReverseIndex).
func wiringReverse(w gates.Wiring, in int) (start, slots []uint32) {
	rev := gates.NewReverseIndex(w, in)
	return toU32(rev.Start), toU32(rev.Slot)
}

// Release frees the layer's buffers.
func (l *Layer) Release() {
	l.wiring.Release()
	l.revStart.Release()
	l.revSlot.Release()
}

// Gates are the model-wide per-gate buffers: every layer's gates numbered
// consecutively, logits [n][16] and what the kernels derive from them.
type Gates struct {
	N      int
	Logits *Buffer // [N][16], the parameters
	Probs  *Buffer // [N][16], softmax(Logits)
	Coeffs *Buffer // [N][4], relaxed form
	Sums   *Buffer // [N][4], backward sums accumulated over rows and steps
	Grads  *Buffer // [N][16], dL/dLogits
}

// NewGates allocates the per-gate buffers of n gates.
func (d *Device) NewGates(n int) (*Gates, error) {
	g := &Gates{N: n}
	for _, b := range []struct {
		dst  **Buffer
		name string
		per  int
	}{{&g.Logits, "logits", 16}, {&g.Probs, "probs", 16}, {&g.Coeffs, "coeffs", 4}, {&g.Sums, "sums", 4}, {&g.Grads, "grads", 16}} {
		var err error
		if *b.dst, err = d.NewBuffer(b.name, n*b.per); err != nil {
			g.Release()
			return nil, err
		}
	}
	return g, nil
}

// Release frees the buffers.
func (g *Gates) Release() {
	for _, b := range []*Buffer{g.Logits, g.Probs, g.Coeffs, g.Sums, g.Grads} {
		b.Release()
	}
}

// params returns the uniform of l applied to rows rows of x.
func (l *Layer) params(rows int, sharedX bool) gateParams {
	p := gateParams{Rows: uint32(rows), In: uint32(l.In), Out: uint32(l.Out), Groups: uint32(l.Groups), GateBase: uint32(l.GateBase)}
	if !sharedX {
		p.XGroupStride = uint32(l.In)
	}
	return p
}

// xLen is the length of l's input for rows rows.
func (l *Layer) xLen(rows int, sharedX bool) int {
	if sharedX {
		return rows * l.In
	}
	return rows * l.Groups * l.In
}

func (l *Layer) check(op string, rows int, sharedX bool, x, y *Buffer) {
	if x.N < l.xLen(rows, sharedX) || y.N < rows*l.Groups*l.Out {
		panic(fmt.Sprintf("gpu: %s of layer %q (%d groups, %d -> %d) on %d rows: x has %d elements, y %d",
			op, l.Name, l.Groups, l.In, l.Out, rows, x.N, y.N))
	}
}

// GateCoeffs records gate_coeffs.wgsl: Probs and Coeffs from Logits.
func (o Ops) GateCoeffs(g *Gates) error {
	return o.dispatch("gate_coeffs.wgsl", g.N, countParams{N: uint32(g.N)}, o.r.device().table, g.Logits, g.Probs, g.Coeffs)
}

// GateHardCoeffs records gate_hard_coeffs.wgsl: into hard ([N][4]) every
// gate's coefficients one-hot on its most probable op, from g.Logits.
func (o Ops) GateHardCoeffs(hard *Buffer, g *Gates) error {
	if hard.N < 4*g.N {
		panic(fmt.Sprintf("gpu: GateHardCoeffs of %d gates into %q of %d elements", g.N, hard.Label, hard.N))
	}
	return o.dispatch("gate_hard_coeffs.wgsl", g.N, countParams{N: uint32(g.N)}, o.r.device().table, g.Logits, hard)
}

// GateForward records gate_forward.wgsl: y = layer l applied to rows rows of
// x, both feature-major (see gates.ForwardSoftFM), with the gates'
// coefficients in coeffs ([all gates][4]: Gates.Coeffs, or the hard ones
// of GateHardCoeffs).
func (o Ops) GateForward(y, x *Buffer, l *Layer, coeffs *Buffer, rows int, sharedX bool) error {
	l.check("GateForward", rows, sharedX, x, y)
	return o.dispatch("gate_forward.wgsl", rows*l.Groups*l.Out, l.params(rows, sharedX), l.wiring, coeffs, x, y)
}

// GateBackwardInput records gate_backward_input.wgsl: gx = dL/dx given gy.
func (o Ops) GateBackwardInput(gx, x, gy *Buffer, l *Layer, g *Gates, rows int, sharedX bool) error {
	l.check("GateBackwardInput", rows, sharedX, x, gy)
	if gx.N < l.xLen(rows, sharedX) {
		panic(fmt.Sprintf("gpu: GateBackwardInput of layer %q: gx has %d elements, want %d", l.Name, gx.N, l.xLen(rows, sharedX)))
	}
	return o.dispatch("gate_backward_input.wgsl", l.xLen(rows, sharedX), l.params(rows, sharedX),
		l.wiring, l.revStart, l.revSlot, g.Coeffs, x, gy, gx)
}

// GateSums records gate_sums.wgsl: adds the layer's four per-gate sums over
// the rows into g.Sums.
func (o Ops) GateSums(g *Gates, x, gy *Buffer, l *Layer, rows int, sharedX bool) error {
	l.check("GateSums", rows, sharedX, x, gy)
	return o.r.DispatchGroups("gate_sums.wgsl", l.Groups*l.Out, l.params(rows, sharedX), l.wiring, x, gy, g.Sums)
}

// GateBackward records gate_backward.wgsl: GateBackwardInput into gx and
// GateSums (added into g.Sums) in one dispatch, with the same bits.
func (o Ops) GateBackward(gx, x, gy *Buffer, l *Layer, g *Gates, rows int, sharedX bool) error {
	l.check("GateBackward", rows, sharedX, x, gy)
	n := l.xLen(rows, sharedX)
	if gx.N < n {
		panic(fmt.Sprintf("gpu: GateBackward of layer %q: gx has %d elements, want %d", l.Name, gx.N, n))
	}
	return o.r.DispatchGroups("gate_backward.wgsl", l.Groups*l.Out+ceilDiv(n, workgroupSize), l.params(rows, sharedX),
		l.wiring, l.revStart, l.revSlot, g.Coeffs, x, gy, gx, g.Sums)
}

// GateLogitGrad records gate_logit_grad.wgsl: adds dL/dLogits, from the sums
// and probabilities, into g.Grads.
func (o Ops) GateLogitGrad(g *Gates) error {
	return o.dispatch("gate_logit_grad.wgsl", g.N, countParams{N: uint32(g.N)}, o.r.device().table, g.Probs, g.Sums, g.Grads)
}

func toU32(s []int32) []uint32 {
	out := make([]uint32, len(s))
	for i, v := range s {
		out[i] = uint32(v)
	}
	return out
}
