package dlca

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

// GraphOptions configure GraphRolloutWith. The zero value is GraphRollout:
// synchronous, soft, every step's activations kept.
type GraphOptions struct {
	// Fire, if not nil, makes the rollout asynchronous: a
	// [steps, B, H, W, 1] tensor on the state's device, 1 where a cell
	// fires at a step and 0 where it keeps its state. Config.FireTensor
	// draws the masks an asynchronous Rollout with the same seed steps with.
	// As a tensor it can be a captured step's input (package gpu), new
	// every iteration.
	Fire *autograd.Tensor
	// StraightThrough steps forward with every gate its argmax op and
	// backpropagates the soft model's gradient at those activations
	// (gates.Layer.HardCoefficients in ForwardFMWith), as
	// RolloutOptions.StraightThrough.
	StraightThrough bool
	// After, if not nil, is called after every step t (1-based) with the new
	// state and returns the state to go on with (RolloutOptions.After); the
	// state penalty of package bptt adds up the states here.
	After func(t int, state *autograd.Tensor) *autograd.Tensor
	// Recompute, if positive and shorter than the rollout, runs every
	// Recompute steps inside autograd.Checkpoint: the forward pass keeps
	// only the state at the start of each segment, and the backward pass
	// runs each segment again (the same gradients, the activations of one
	// segment alive at a time). Not with After, which would see the
	// segments' states twice.
	Recompute int
}

// GraphRolloutWith is GraphRollout with the options of an asynchronous,
// straight-through, observed or checkpointed rollout: autograd's general
// ops and each gate layer's fused op, which run wherever they run (an
// autograd device too). On the CPU it computes what Rollout computes with
// the same options (TestGraphRolloutWithMatchesRollout); Rollout is faster
// there. It panics if Fire's shape does not fit or Recompute is combined
// with After.
func (m *Model) GraphRolloutWith(state *autograd.Tensor, steps int, opt GraphOptions) *autograd.Tensor {
	s := state.Shape()
	if f := opt.Fire; f != nil {
		fs := f.Shape()
		if len(s) != 4 || len(fs) != 5 || fs[0] < steps || fs[1] != s[0] || fs[2] != s[1] || fs[3] != s[2] || fs[4] != 1 {
			panic(fmt.Sprintf("dlca: GraphRolloutWith: fire masks of shape %v for %d steps of a state of shape %v: want [steps, B, H, W, 1] (Config.FireTensor)", fs, steps, s))
		}
	}
	g := gridOf("GraphRolloutWith", state, m.Config.Channels, m.Config.Boundary)
	k := opt.Recompute
	if k > 0 && k < steps && opt.After != nil {
		panic("dlca: GraphRolloutWith: Recompute with After: the checkpointed segments run twice, so After would see their states twice (keep every step's activations instead)")
	}
	gc, state := m.graphCoefficients(g, opt.StraightThrough, state)
	if k <= 0 || k >= steps {
		return m.graphSteps(state, 0, steps, opt, gc)
	}
	for t0 := 0; t0 < steps; t0 += k {
		n := min(k, steps-t0)
		state = autograd.Checkpoint(func(xs []*autograd.Tensor) *autograd.Tensor {
			return m.graphSteps(xs[0], t0, n, opt, gc)
		}, state)
	}
	return state
}

// graphSteps runs steps t0 to t0+n-1 of a graph rollout.
func (m *Model) graphSteps(state *autograd.Tensor, t0, n int, opt GraphOptions, c *graphCoeffs) *autograd.Tensor {
	for t := t0; t < t0+n; t++ {
		next := m.graphStep(state, c)
		if opt.Fire != nil {
			s := state.Shape()
			fire := autograd.Reshape(autograd.Narrow(opt.Fire, 0, t, 1), s[0], s[1], s[2], 1)
			next = autograd.Where(fire, next, state)
		}
		if opt.After != nil {
			next = opt.After(t+1, next)
		}
		state = next
	}
	return state
}

// graphStep is referenceStep with the activations feature-major, the
// gate kernels' layout (gates.Layer.ForwardFMWith, with the coefficients
// computed once for the rollout): the neighbourhoods are [9, cells*C], one
// gather, every layer's output [Groups, Out, rows] is the next one's input
// as it is, and only the perception's outputs (reordered into the update
// network's input features), the state's own channels and the new state
// are permuted, three permutes a step instead of two per layer.
func (m *Model) graphStep(state *autograd.Tensor, gc *graphCoeffs) *autograd.Tensor {
	cfg := m.Config
	apply := func(i int, l *gates.Layer, x *autograd.Tensor) *autograd.Tensor {
		var hard *autograd.Tensor
		if gc.hard != nil {
			hard = gc.hard[i]
		}
		if gc.grads == nil {
			return l.ForwardFMWith(x, gc.soft[i], hard)
		}
		return l.ForwardFMInto(x, gc.soft[i], hard, gc.grads[i])
	}
	s := state.Shape()
	bsz, h, w, c := s[0], s[1], s[2], s[3]
	n := bsz * h * w
	// The neighbourhoods [9, cells*C] in one gather of the state's rows and
	// a zero row (what a zero boundary sees beyond the grid).
	rows := autograd.Pad(autograd.Reshape(state, n, c), 0, 0, 0, 0, 1)
	x := autograd.Reshape(autograd.IndexSelect(rows, 0, gc.neighbours), NeighbourhoodSize, n*c)
	for i, l := range m.Perception {
		x = apply(i, l, x) // [Kernels, Out, cells*C]
	}
	// The update network's input feature of channel ch, bit b and kernel k
	// is ch*bits*Kernels + b*Kernels + k, after the C own channels
	// (referenceStep's order).
	bits := cfg.PerceptionBits()
	percep := autograd.Reshape(autograd.Permute(autograd.Reshape(x, cfg.Kernels, bits, n, c), 3, 1, 0, 2), c*bits*cfg.Kernels, n)
	x = autograd.Cat(0, autograd.Permute(autograd.Reshape(state, n, c), 1, 0), percep)
	for i, l := range m.Update {
		x = autograd.Reshape(apply(len(m.Perception)+i, l, x), l.Out, n)
	}
	return autograd.Reshape(autograd.Permute(x, 1, 0), bsz, h, w, c)
}

// graphCoeffs are every layer's coefficients (Layers order), computed once
// for a rollout, detached, with their gradients, summed in place by every
// step (gates.Layer.ForwardFMInto), its hard coefficients when it is
// straight-through, and the rows the neighbourhoods gather: for position n
// and cell i, row neighbours[n*cells+i] of the state's rows followed by a
// zero row (Grid.sources, the cell seen or the zero row beyond a zero
// boundary).
type graphCoeffs struct {
	soft, grads, hard []*autograd.Tensor
	neighbours        []int
}

// graphCoefficients computes the coefficients of every layer once
// (gates.Layer.Coefficients, HardCoefficients): every step reads them, and
// their gradient reaches the logits through the softmax once, from the
// per-gate sums of all the steps added up (as Rollout's coeffOp does). The
// steps add their sums into one zeroed tensor per layer, in the order their
// backward passes run (step T-1 first, as autograd would add them, but with
// no addition op per step and layer); the state it returns is tied to the
// coefficients by an op that is the rollout's first and so the last of its
// backward pass, which hands those totals to the coefficients. With
// logits that need no gradient there is nothing to sum or tie.
func (m *Model) graphCoefficients(g Grid, straight bool, state *autograd.Tensor) (*graphCoeffs, *autograd.Tensor) {
	c := &graphCoeffs{}
	for _, src := range g.sources() {
		if src < 0 {
			c.neighbours = append(c.neighbours, g.Cells())
		} else {
			c.neighbours = append(c.neighbours, int(src))
		}
	}
	var soft []*autograd.Tensor
	grad := false
	for _, l := range m.Layers() {
		coeffs := l.Coefficients()
		soft = append(soft, coeffs)
		grad = grad || coeffs.RequiresGrad()
		c.soft = append(c.soft, coeffs.Detach())
		if straight {
			c.hard = append(c.hard, l.HardCoefficients())
		}
	}
	if !grad {
		return c, state
	}
	for _, coeffs := range soft {
		c.grads = append(c.grads, autograd.ZerosLike(coeffs))
	}
	grads := c.grads
	state = autograd.RecordFirstOrder("dlca.tieCoefficients", state.Detach(), append([]*autograd.Tensor{state}, soft...), func(g *autograd.Tensor) []*autograd.Tensor {
		return append([]*autograd.Tensor{g}, grads...)
	})
	return c, state
}

// FireTensor returns the first steps fire masks of Config.FireMasks(seed)
// for a grid of batch x height x width cells, the masks an asynchronous
// Rollout with that seed steps with, as a [steps, batch, height, width, 1]
// tensor of dtype holding 1 where a cell fires and 0 where it does not:
// GraphOptions.Fire.
func (c Config) FireTensor(dtype autograd.DType, seed uint64, steps, batch, height, width int) *autograd.Tensor {
	cells := batch * height * width
	masks := c.FireMasks(seed)
	v := make([]float64, 0, steps*cells)
	for range steps {
		for _, f := range masks.Next(cells) {
			if f {
				v = append(v, 1)
			} else {
				v = append(v, 0)
			}
		}
	}
	return autograd.Cast(autograd.New64(v, steps, batch, height, width, 1), dtype)
}
