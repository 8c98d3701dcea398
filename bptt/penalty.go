package bptt

import (
	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// SetStatePenalty implements StatePenaltyEngine.
func (e *CPUEngine) SetStatePenalty(weight float64) { e.statePenalty = weight }

// penalisedLoss is the CPU engine's rollout, loss and backward pass with the
// state penalty of Run.StatePenalty: the loss differentiated is the paper's
// plus statePenalty times the sum of x(1-x) over the states after steps 1
// to T-1. It returns the paper's loss alone, which is what the run reports.
//
// Why: a soft rollout at loss 0 can pass values between 0 and 1 from step to
// step (the coloured G's do, hundreds per step) and land on bits only at the
// last; the circuit passes bits, so it cannot follow, and its loss stays above
// 0. The penalty is 0 only when every intermediate state is bits.
//
// NOTE: the penalty needs every step's state in one recorded graph, so this
// path keeps every step's activations (no gradient checkpointing over time,
// whatever Setup.Recompute says).
func (e *CPUEngine) penalisedLoss(init, target *autograd.Tensor, fireSeed uint64, workers int) (*autograd.Tensor, error) {
	steps := e.setup.Steps
	var penalty *autograd.Tensor
	after := func(t int, state *autograd.Tensor) *autograd.Tensor {
		if t < steps {
			p := StatePenalty(state)
			if penalty == nil {
				penalty = p
			} else {
				penalty = autograd.Add(penalty, p)
			}
		}
		return state
	}
	final := e.m.Rollout(init, steps, dlca.RolloutOptions{Async: e.setup.Async, Seed: fireSeed, Workspace: &e.ws, Workers: workers, StraightThrough: e.straight, After: after})
	loss := Loss(final, target, e.setup.LossChannels)
	total := loss
	if penalty != nil {
		total = autograd.Add(loss, autograd.MulScalar(penalty, e.statePenalty))
	}
	return loss, total.Backward()
}

// StatePenalty is the state penalty of one state, unweighted: the sum of
// x(1-x) over its values (0 only on bits), as a scalar in state's graph.
// The GPU engine's kernel (gpu's state_penalty_grad.wgsl) is held to its
// gradient.
func StatePenalty(state *autograd.Tensor) *autograd.Tensor {
	return autograd.Sum(autograd.Mul(state, autograd.RSubScalar(state, 1)), false)
}
