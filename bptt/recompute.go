package bptt

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// CacheStepBytes is the most activations one step may keep for the CPU
// engine to recompute step by step by itself (Setup.Segment). Measured on
// the reference machine (32 MiB of L3; docs/perf/dlca.md): the
// checkerboard's steps, 6 MiB each (10 MiB when they kept the
// perception's too), train 15-20% faster recomputed one at a time than
// kept, since the backward pass then reads a step's activations from the
// cache instead of memory, which more than pays for the second forward
// pass; the lizard's, 8 MiB, train as fast either way, recomputed in a
// sixth of the memory. Steps of 21 MiB (the lizard's, perception
// included) trained 5-10% slower recomputed.
const CacheStepBytes = 16 << 20

// Segment returns the segment length, in steps, of the CPU engine's
// gradient checkpointing over time for s on a height x width grid, 0 for
// none (every step's activations kept): Recompute when it is set and
// shorter than the rollout (one segment of every step would keep them all
// and add a second forward pass for nothing); otherwise 1, keeping every
// state and recomputing one step at a time, when a step's activations fit
// in CacheStepBytes and there are two steps or more. Either way the
// gradients are bit for bit the same.
func (s Setup) Segment(height, width int) int {
	if s.Recompute >= s.Steps {
		return 0
	}
	if s.Recompute > 0 || s.Steps < 2 {
		return s.Recompute
	}
	if estimateStep(s, height, width).StepBytes <= CacheStepBytes {
		return 1
	}
	return 0
}

// recomputedLoss is the CPU engine's rollout, loss and backward pass with
// gradient checkpointing over time in segments of k > 0 steps: each k-step
// segment of the rollout runs inside autograd.Checkpoint, so the forward
// pass keeps no activations, only the state at the start of every segment;
// the backward pass then reruns one segment at a time, recording it, and
// backpropagates through it before moving to the one before. At most k
// steps' activations and ceil(T/k) states are alive at once, instead of T
// steps' activations; the price is a second forward pass.
//
// NOTE: the gradients are bit for bit those of the plain rollout. Every
// segment steps with the same coefficient tensors (leaves sharing the data
// of one Model.Coefficients call, which the segments close over), so each
// step's contribution is added to them in the same order (step T-1 first)
// as one backward pass adds it; the fire masks of a segment are the plain
// rollout's (the same source, advanced past the earlier steps); and
// coeffOp's backward runs once on the total, as it does in the plain path.
func (e *CPUEngine) recomputedLoss(init, target *autograd.Tensor, fireSeed uint64, k, workers int) (*autograd.Tensor, error) {
	steps := e.setup.Steps
	cells := init.Len() / e.m.Config.Channels
	masks := func(skip int) *dlca.FireMasks {
		if !e.setup.Async {
			return nil
		}
		f := e.m.Config.FireMasks(fireSeed)
		for range skip {
			f.Next(cells)
		}
		return f
	}
	coeffs := e.m.Coefficients()
	leaves := make([]*autograd.Tensor, len(coeffs))
	for i, c := range coeffs {
		leaves[i] = c.Detach().SetRequiresGrad(true)
	}
	// The initial state is data; as a leaf that requires a gradient it makes
	// the first segment record, like the others.
	state := init.Detach().SetRequiresGrad(true)
	for t0 := 0; t0 < steps; t0 += k {
		n := min(k, steps-t0)
		// Without recording (the first run) the rollout keeps one step's
		// buffers in the workspace; recording (the second), n steps'.
		state = autograd.Checkpoint(func(xs []*autograd.Tensor) *autograd.Tensor {
			return e.m.Rollout(xs[0], n, dlca.RolloutOptions{Async: e.setup.Async, Masks: masks(t0), Coefficients: leaves, Workspace: &e.ws, Workers: workers, StraightThrough: e.straight})
		}, state)
	}
	loss := Loss(state, target, e.setup.LossChannels)
	if err := loss.Backward(); err != nil {
		return nil, err
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
