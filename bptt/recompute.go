package bptt

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// recomputedLoss is the CPU engine's rollout, loss and backward pass with
// gradient checkpointing over time (Setup.Recompute = k > 0): the forward
// pass keeps no activations, only the state at the start of every k-step
// segment; the backward pass then reruns one segment at a time, recording
// it, and backpropagates through it before moving to the one before. At
// most k steps' activations and ceil(T/k) states are alive at once, instead
// of T steps' activations; the price is a second forward pass.
//
// NOTE: the gradients are bit for bit those of the plain rollout. Every
// segment steps with the same coefficient tensors (leaves sharing the data
// of one Model.Coefficients call), so each step's contribution is added to
// them in the same order (step T-1 first) as one backward pass adds it;
// the fire masks of a segment are the plain rollout's (the same source,
// advanced past the earlier steps); and coeffOp's backward runs once on the
// total, as it does in the plain path.
func (e *CPU) recomputedLoss(init, target *autograd.Tensor, fireSeed uint64) (*autograd.Tensor, error) {
	k, steps := e.setup.Recompute, e.setup.Steps
	cells := init.Len() / e.m.Config.Channels
	masks := func(skip int) *dlca.FireMasks {
		if !e.setup.Async {
			return nil
		}
		f := dlca.NewFireMasks(fireSeed, e.m.Config.FireRate)
		for range skip {
			f.Next(cells)
		}
		return f
	}
	coeffs := e.m.Coefficients()
	fixed := make([]*autograd.Tensor, len(coeffs))
	for i, c := range coeffs {
		fixed[i] = c.Detach()
	}
	var starts []*autograd.Tensor
	state := init
	autograd.NoGrad(func() {
		fire := masks(0)
		for t := range steps {
			if t%k == 0 {
				starts = append(starts, state)
			}
			// One step per call: the workspace keeps one step's buffers.
			state = e.m.Rollout(state, 1, dlca.RolloutOptions{Async: e.setup.Async, Masks: fire, Coefficients: fixed, Workspace: &e.ws})
		}
	})
	final := state.Detach().SetRequiresGrad(true)
	loss := Loss(final, target, e.setup.LossChannels)
	if err := loss.Backward(); err != nil {
		return nil, err
	}
	leaves := make([]*autograd.Tensor, len(coeffs))
	for i, c := range coeffs {
		leaves[i] = c.Detach().SetRequiresGrad(true)
	}
	g := final.Grad()
	for s := len(starts) - 1; s >= 0; s-- {
		t0 := s * k
		start := starts[s].Detach().SetRequiresGrad(true)
		end := e.m.Rollout(start, min(k, steps-t0), dlca.RolloutOptions{Async: e.setup.Async, Masks: masks(t0), Coefficients: leaves, Workspace: &e.ws})
		if err := end.BackwardWith(g); err != nil {
			return nil, err
		}
		g = start.Grad()
	}
	for i, c := range coeffs {
		if g := leaves[i].Grad(); g != nil {
			if err := c.BackwardWith(g); err != nil {
				return nil, err
			}
		}
	}
	return loss, nil
}
