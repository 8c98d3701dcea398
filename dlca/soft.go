package dlca

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

// data returns t's storage as []F; F must match t's dtype.
func data[F gates.Float](t *autograd.Tensor) []F {
	var v any
	if t.DType() == autograd.Float64 {
		v = t.Data64()
	} else {
		v = t.Data32()
	}
	return v.([]F)
}

// Coefficients returns every layer's gate coefficients [G, Out, 4] as
// autograd ops of the logits, in Layers order: what Rollout computes once and
// every step reads (see RolloutOptions.Coefficients).
func (m *Model) Coefficients() []*autograd.Tensor { return m.coefficients() }

// hardCoeffs returns every layer's coefficients with each gate one-hot on
// its most probable op (gates.Layer.HardOps): the circuit's gates in the
// soft kernels' form, [][]float32 or [][]float64 by the model's dtype, in
// Layers order. A straight-through rollout steps forward with them.
func (m *Model) hardCoeffs() any {
	if m.DType() == autograd.Float64 {
		return hardCoefficients[float64](m)
	}
	return hardCoefficients[float32](m)
}

func hardCoefficients[F gates.Float](m *Model) [][]F {
	var cs [][]F
	for _, l := range m.Layers() {
		cs = append(cs, gates.HardCoeffs[F](l.HardOps()))
	}
	return cs
}

// coefficients applies gates.Layer.Coefficients to every layer's logits, in
// Layers order: computed once per rollout, as ops of their own, they keep
// the softmax out of every step, and the gradient the steps send back is
// exactly the four per-gate sums that gates.LogitGrads expects.
func (m *Model) coefficients() []*autograd.Tensor {
	var cs []*autograd.Tensor
	for _, l := range m.Layers() {
		cs = append(cs, l.Coefficients())
	}
	return cs
}

// plan is what every step of a rollout shares: the layers as the gates
// package's feature-major kernels take them. Perception runs over cells*C
// rows (row c*cells + cell is channel c of a cell), the update network over
// cells rows.
type plan struct {
	m       *Model
	g       Grid
	layers  []fmLayer // Layers order
	workers int       // goroutines per phase of a step; 0: GOMAXPROCS
	runs    [][]run   // g.runs(): the cells each cell sees
}

// fmLayer is a gate layer for gates.ForwardSoftFM and BackwardSoftFM.
type fmLayer struct {
	w gates.Wiring
	d gates.Dims
}

// newPlan returns the plan of m's steps on g, whose runs are g.runs().
func newPlan(m *Model, g Grid, runs [][]run) *plan {
	p := &plan{m: m, g: g, runs: runs}
	n, c := g.Cells(), m.Config.Channels
	for i, l := range m.Perception {
		p.layers = append(p.layers, fmLayer{l.Wiring, gates.Dims{Rows: n * c, Groups: l.Groups, In: l.In, Out: l.Out, SharedInput: i == 0}})
	}
	for _, l := range m.Update {
		p.layers = append(p.layers, fmLayer{l.Wiring, gates.Dims{Rows: n, Groups: 1, In: l.In, Out: l.Out, SharedInput: true}})
	}
	return p
}

// activations are one step's stored intermediate values, kept for the
// backward pass, all feature-major: the update network's input
// [UpdateInputs][cells] and every update layer's output [gates][cells].
// The perception's are not kept: its tiles recompute them (tiles.go).
type activations[F gates.Float] struct {
	uin    []F
	layers [][]F
}

func newActivations[F gates.Float](p *plan) *activations[F] {
	a := &activations[F]{uin: make([]F, p.g.Cells()*p.m.Config.UpdateInputs())}
	_, update := p.phases()
	for _, l := range p.layers[update.from:update.to] {
		a.layers = append(a.layers, make([]F, l.d.YLen()))
	}
	return a
}

// fits reports whether a holds the activations of plan p.
func (a *activations[F]) fits(p *plan) bool {
	_, update := p.phases()
	if len(a.layers) != update.to-update.from || len(a.uin) != p.g.Cells()*p.m.Config.UpdateInputs() {
		return false
	}
	for i, l := range p.layers[update.from:update.to] {
		if len(a.layers[i]) != l.d.YLen() {
			return false
		}
	}
	return true
}
