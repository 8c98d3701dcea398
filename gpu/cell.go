package gpu

import (
	"fmt"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
)

// Grid is the shape of a batch of states [Batch, Height, Width, Channels]
// and its boundary: the dlca package's.
type Grid = dlca.Grid

func gridParamsOf(g Grid) gridParams {
	p := gridParams{Batch: uint32(g.Batch), Height: uint32(g.Height), Width: uint32(g.Width), Channels: uint32(g.Channels)}
	if g.Boundary == circuit.Periodic {
		p.Periodic = 1
	}
	return p
}

func cellParamsOf(g Grid) cellParams {
	return cellParams{Cells: uint32(g.Cells()), Channels: uint32(g.Channels)}
}

// Concat is the layout of the update network's input: Channels own values,
// then Channels*Kernels*Bits perception values (see update_input.wgsl).
type Concat struct {
	Cells, Channels, Kernels, Bits int
}

// Width is the update input's width per cell.
func (c Concat) Width() int { return c.Channels * (1 + c.Kernels*c.Bits) }

func (c Concat) params() concatParams {
	return concatParams{Cells: uint32(c.Cells), Channels: uint32(c.Channels), Kernels: uint32(c.Kernels), Bits: uint32(c.Bits)}
}

func need(op string, b *Buffer, n int) {
	if b.N < n {
		panic(fmt.Sprintf("gpu: %s: buffer %q has %d elements, needs %d", op, b.Label, b.N, n))
	}
}

// PerceptionGather records perception_gather.wgsl: nb [cells*C, 9] from state.
func (p *Program) PerceptionGather(nb, state *Buffer, g Grid) error {
	need("PerceptionGather", state, g.Len())
	need("PerceptionGather", nb, 9*g.Len())
	return p.Dispatch("perception_gather.wgsl", 9*g.Len(), gridParamsOf(g), state, nb)
}

// PerceptionGatherBackward records perception_gather_backward.wgsl: adds
// the neighbourhood gradient dnb to dstate.
func (p *Program) PerceptionGatherBackward(dstate, dnb *Buffer, g Grid) error {
	need("PerceptionGatherBackward", dnb, 9*g.Len())
	need("PerceptionGatherBackward", dstate, g.Len())
	return p.Dispatch("perception_gather_backward.wgsl", g.Len(), gridParamsOf(g), dnb, dstate)
}

// UpdateInput records update_input.wgsl: uin from state and percep.
func (p *Program) UpdateInput(uin, state, percep *Buffer, c Concat) error {
	need("UpdateInput", state, c.Cells*c.Channels)
	need("UpdateInput", percep, c.Cells*c.Channels*c.Kernels*c.Bits)
	need("UpdateInput", uin, c.Cells*c.Width())
	return p.Dispatch("update_input.wgsl", c.Cells*c.Width(), c.params(), state, percep, uin)
}

// UpdateInputBackward records update_input_backward.wgsl: adds the own part
// of duin to dstate and writes the perception part to dpercep.
func (p *Program) UpdateInputBackward(dstate, dpercep, duin *Buffer, c Concat) error {
	need("UpdateInputBackward", duin, c.Cells*c.Width())
	need("UpdateInputBackward", dstate, c.Cells*c.Channels)
	need("UpdateInputBackward", dpercep, c.Cells*c.Channels*c.Kernels*c.Bits)
	return p.Dispatch("update_input_backward.wgsl", c.Cells*c.Width(), c.params(), duin, dstate, dpercep)
}

// FireMask records fire_mask.wgsl: next = fire ? upd : state, per cell.
func (p *Program) FireMask(next, fire, state, upd *Buffer, g Grid) error {
	need("FireMask", fire, g.Cells())
	for _, b := range []*Buffer{state, upd, next} {
		need("FireMask", b, g.Len())
	}
	return p.Dispatch("fire_mask.wgsl", g.Len(), cellParamsOf(g), fire, state, upd, next)
}

// FireMaskBackward records fire_mask_backward.wgsl: dupd and dstate (both
// overwritten) from dnext.
func (p *Program) FireMaskBackward(dupd, dstate, fire, dnext *Buffer, g Grid) error {
	need("FireMaskBackward", fire, g.Cells())
	for _, b := range []*Buffer{dnext, dupd, dstate} {
		need("FireMaskBackward", b, g.Len())
	}
	return p.Dispatch("fire_mask_backward.wgsl", g.Len(), cellParamsOf(g), fire, dnext, dupd, dstate)
}

// Loss records loss.wgsl: loss[0] = sum weight[c]*(state-target)^2 and
// dstate = its gradient.
func (p *Program) Loss(loss, dstate, weight, state, target *Buffer, g Grid) error {
	need("Loss", weight, g.Channels)
	for _, b := range []*Buffer{state, target, dstate} {
		need("Loss", b, g.Len())
	}
	need("Loss", loss, 1)
	return p.DispatchGroups("loss.wgsl", 1, cellParamsOf(g), weight, state, target, dstate, loss)
}

// StatePenaltyGrad records state_penalty_grad.wgsl: adds the state
// penalty's gradient weight*(1-2x) to the first n elements of dstate, x
// those of state.
func (p *Program) StatePenaltyGrad(dstate, state *Buffer, n int, weight float32) error {
	need("StatePenaltyGrad", state, n)
	need("StatePenaltyGrad", dstate, n)
	return p.Dispatch("state_penalty_grad.wgsl", n, penaltyParams{N: uint32(n), Weight: weight}, state, dstate)
}
