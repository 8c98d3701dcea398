package dlca

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// ReferenceRollout is Rollout (synchronous) written only with autograd's
// general ops: padding by index selection, the neighbourhood as slices, each
// gate layer as gates.Layer.ForwardReference (the one composed gate layer
// that every package's tests use). It is slow and memory
// hungry, and kept on purpose as the readable definition that the fused path
// is tested against.
func (m *Model) ReferenceRollout(state *autograd.Tensor, steps int) *autograd.Tensor {
	return m.referenceRollout(state, steps, (*gates.Layer).ForwardReference)
}

// referenceRollout is ReferenceRollout with each gate layer applied by
// layer (the tests' straight-through reference replaces it).
func (m *Model) referenceRollout(state *autograd.Tensor, steps int, layer func(*gates.Layer, *autograd.Tensor) *autograd.Tensor) *autograd.Tensor {
	for range steps {
		state = m.referenceStep(state, layer)
	}
	return state
}

func (m *Model) referenceStep(state *autograd.Tensor, layer func(*gates.Layer, *autograd.Tensor) *autograd.Tensor) *autograd.Tensor {
	cfg := m.Config
	s := state.Shape()
	bsz, h, w, c := s[0], s[1], s[2], s[3]
	n := bsz * h * w

	x := referenceNeighbourhood(state, cfg.Boundary)

	for _, l := range m.Perception {
		x = layer(l, x)
	}
	bits := cfg.PerceptionBits()
	percep := autograd.Reshape(autograd.Permute(autograd.Reshape(x, n, c, cfg.Kernels, bits), 0, 1, 3, 2), n, c*bits*cfg.Kernels)
	x = autograd.Cat(1, autograd.Reshape(state, n, c), percep)
	for _, l := range m.Update {
		x = autograd.Reshape(layer(l, x), n, l.Out)
	}
	return autograd.Reshape(x, bsz, h, w, c)
}

// referenceNeighbourhood is Neighbourhood written with autograd's general
// ops: pad one cell on every side, then stack the 9 shifted views.
func referenceNeighbourhood(state *autograd.Tensor, b circuit.Boundary) *autograd.Tensor {
	s := state.Shape()
	h, w := s[1], s[2]
	var padded *autograd.Tensor
	if b == circuit.Periodic {
		padded = autograd.IndexSelect(autograd.IndexSelect(state, 1, wrapIndex(h)), 2, wrapIndex(w))
	} else {
		padded = autograd.Pad(state, 0, 0, 0, 1, 1, 1, 1, 0, 0)
	}
	var views []*autograd.Tensor
	for k := range NeighbourhoodSize {
		dy, dx := offset(k)
		views = append(views, autograd.Narrow(autograd.Narrow(padded, 1, 1+dy, h), 2, 1+dx, w))
	}
	return autograd.Reshape(autograd.Stack(4, views...), s[0]*h*w*s[3], NeighbourhoodSize)
}

// wrapIndex lists n-1, 0, 1, ..., n-1, 0: the rows of a periodic grid of n
// rows padded by one on each side.
func wrapIndex(n int) []int {
	idx := []int{n - 1}
	for i := range n {
		idx = append(idx, i)
	}
	return append(idx, 0)
}

// GraphRollout is ReferenceRollout with each gate layer as its fused op
// (gates.Layer.Forward): a synchronous rollout of autograd's general ops,
// which runs wherever they run, on an autograd device too (package gpu's
// AutogradDevice) when the state and the logits live there; it is how a
// model trains through autograd's graph on such a device. On the CPU,
// Rollout is faster (one fused op per step).
func (m *Model) GraphRollout(state *autograd.Tensor, steps int) *autograd.Tensor {
	return m.referenceRollout(state, steps, (*gates.Layer).Forward)
}
