package dlca

import (
	"fmt"

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

// coeffOp turns one layer's logits [G, Out, 16] into the gates' relaxed
// coefficients [G, Out, 4] (softmax, then the table). Computing them once per
// rollout, as an op of their own, keeps the softmax out of every step; the
// gradient the steps send back is exactly the four per-gate sums that
// gates.LogitGrads expects.
type coeffOp[F gates.Float] struct {
	layer string
	probs []F
}

func (op *coeffOp[F]) Name() string { return "dlca.coefficients(" + op.layer + ")" }

func (op *coeffOp[F]) Forward(in []*autograd.Tensor) *autograd.Tensor {
	s := in[0].Shape()
	out := autograd.Zeros(in[0].DType(), s[0], s[1], 4)
	op.probs = make([]F, in[0].Len())
	if k := gates.SoftCoeffs(op.probs, data[F](out), data[F](in[0])); k >= 0 {
		panic(fmt.Sprintf("dlca: layer %s: non-finite logit at gate %d (training diverged?)", op.layer, k))
	}
	return out
}

func (op *coeffOp[F]) Backward(grad *autograd.Tensor, in []*autograd.Tensor, _ *autograd.Tensor) []*autograd.Tensor {
	sums := grad.Float64s()
	d := autograd.ZerosLike(in[0])
	gates.LogitGrads(data[F](d), op.probs, sums)
	return []*autograd.Tensor{d}
}

// coefficients applies coeffOp to every layer's logits, in Layers order.
func (m *Model) coefficients() []*autograd.Tensor {
	var cs []*autograd.Tensor
	for _, l := range m.Layers() {
		if l.Logits.DType() == autograd.Float64 {
			cs = append(cs, autograd.Apply(&coeffOp[float64]{layer: l.Name}, l.Logits))
		} else {
			cs = append(cs, autograd.Apply(&coeffOp[float32]{layer: l.Name}, l.Logits))
		}
	}
	return cs
}

// plan is what every step of a rollout shares: the layers' shapes for a
// given number of cells and their reverse indices.
type plan struct {
	m     *Model
	g     grid
	dims  []gates.Dims // Layers order
	revs  []gates.ReverseIndex
	wires []gates.Wiring
}

func newPlan(m *Model, g grid) *plan {
	p := &plan{m: m, g: g}
	n, c, k := g.cells(), m.Config.Channels, m.Config.Kernels
	for i, l := range m.Perception {
		p.dims = append(p.dims, gates.Dims{Rows: n * c, Groups: k, In: l.In, Out: l.Out, SharedInput: i == 0})
	}
	for _, l := range m.Update {
		p.dims = append(p.dims, gates.Dims{Rows: n, Groups: 1, In: l.In, Out: l.Out})
	}
	for _, l := range m.Layers() {
		p.revs = append(p.revs, gates.NewReverseIndex(l.Wiring, l.In))
		p.wires = append(p.wires, l.Wiring)
	}
	return p
}

// activations are one step's stored intermediate values, kept for the
// backward pass: the neighbourhoods, every layer's output and the update
// network's input.
type activations[F gates.Float] struct {
	nb     []F   // [cells, C, 9]
	layers [][]F // Layers order: [cells*C, K, out] then [cells, out]
	uin    []F   // [cells, UpdateInputs]
}

func newActivations[F gates.Float](p *plan) *activations[F] {
	a := &activations[F]{
		nb:  make([]F, p.g.cells()*p.g.Channels*NeighbourhoodSize),
		uin: make([]F, p.g.cells()*p.m.Config.UpdateInputs()),
	}
	for _, d := range p.dims {
		a.layers = append(a.layers, make([]F, d.YLen()))
	}
	return a
}

// fits reports whether a holds the activations of plan p.
func (a *activations[F]) fits(p *plan) bool {
	if len(a.layers) != len(p.dims) || len(a.nb) != p.g.cells()*p.g.Channels*NeighbourhoodSize {
		return false
	}
	for i, d := range p.dims {
		if len(a.layers[i]) != d.YLen() {
			return false
		}
	}
	return true
}

// assembleUpdateInput writes each cell's update input: its own C values, then
// the perception bits in the order (channel, bit, kernel), as the paper's
// notebook lays them out. percep is the last kernel layer's output
// [cells, C, K, S].
func assembleUpdateInput[F gates.Float](uin, state, percep []F, cells, c, k, s int) {
	w := c * (1 + k*s)
	for cell := range cells {
		row := uin[cell*w : (cell+1)*w]
		copy(row[:c], state[cell*c:(cell+1)*c])
		p := percep[cell*c*k*s : (cell+1)*c*k*s]
		for ch := range c {
			for kk := range k {
				for b := range s {
					row[c+(ch*s+b)*k+kk] = p[(ch*k+kk)*s+b]
				}
			}
		}
	}
}

// splitUpdateInputGrad is assembleUpdateInput's backward pass: it adds the own
// part of duin to dstate and writes the perception part to dpercep.
func splitUpdateInputGrad[F gates.Float](dstate, dpercep, duin []F, cells, c, k, s int) {
	w := c * (1 + k*s)
	for cell := range cells {
		row := duin[cell*w : (cell+1)*w]
		for ch, v := range row[:c] {
			dstate[cell*c+ch] += v
		}
		p := dpercep[cell*c*k*s : (cell+1)*c*k*s]
		for ch := range c {
			for kk := range k {
				for b := range s {
					p[(ch*k+kk)*s+b] = row[c+(ch*s+b)*k+kk]
				}
			}
		}
	}
}
