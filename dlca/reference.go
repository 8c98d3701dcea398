package dlca

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/gates"
)

// ReferenceRollout is Rollout (synchronous) written only with autograd's
// general ops: padding by index selection, the neighbourhood as slices, each
// gate layer as softmax, table product and gathers. It is slow and memory
// hungry, and kept on purpose as the readable definition that the fused path
// is tested against.
func (m *Model) ReferenceRollout(state *autograd.Tensor, steps int) *autograd.Tensor {
	for range steps {
		state = m.referenceStep(state)
	}
	return state
}

func (m *Model) referenceStep(state *autograd.Tensor) *autograd.Tensor {
	cfg := m.Config
	s := state.Shape()
	bsz, h, w, c := s[0], s[1], s[2], s[3]
	n := bsz * h * w

	x := referenceNeighbourhood(state, cfg.Boundary)

	for _, l := range m.Perception {
		x = referenceLayer(l, x)
	}
	bits := cfg.PerceptionBits()
	percep := autograd.Reshape(autograd.Permute(autograd.Reshape(x, n, c, cfg.Kernels, bits), 0, 1, 3, 2), n, c*bits*cfg.Kernels)
	x = autograd.Cat(1, autograd.Reshape(state, n, c), percep)
	for _, l := range m.Update {
		x = autograd.Reshape(referenceLayer(l, x), n, l.Out)
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

// referenceLayer applies a gate layer to x ([rows, In] shared by all groups,
// or [rows, Groups, In]) and returns [rows, Groups, Out]:
// y = c0 + c1*a + c2*b + c3*a*b with c = softmax(logits) . table.
func referenceLayer(l *gates.Layer, x *autograd.Tensor) *autograd.Tensor {
	dt := l.Logits.DType()
	table := autograd.Zeros(dt, gates.NumOps, 4)
	for o, cs := range gates.CoeffTable() {
		for j, v := range cs {
			table.SetAt(o*4+j, v)
		}
	}
	probs := autograd.Softmax(l.Logits, -1)                                            // [G, Out, 16]
	coef := autograd.Sum(autograd.Mul(autograd.Unsqueeze(probs, -1), table), false, 2) // [G, Out, 4]
	ia, ib := ints(l.Wiring.A), ints(l.Wiring.B)
	var a, b *autograd.Tensor
	if x.Dim() == 2 {
		a = autograd.Unsqueeze(autograd.IndexSelect(x, 1, ia), 1) // [rows, 1, Out]
		b = autograd.Unsqueeze(autograd.IndexSelect(x, 1, ib), 1)
	} else {
		a = autograd.IndexSelect(x, 2, ia) // [rows, G, Out]
		b = autograd.IndexSelect(x, 2, ib)
	}
	cj := func(j int) *autograd.Tensor { return autograd.Squeeze(autograd.Narrow(coef, 2, j, 1), 2) }
	y := autograd.Add(cj(0), autograd.Mul(cj(1), a))
	y = autograd.Add(y, autograd.Mul(cj(2), b))
	return autograd.Add(y, autograd.Mul(cj(3), autograd.Mul(a, b)))
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

func ints(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}
