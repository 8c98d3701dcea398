package gpu

import (
	"fmt"

	"github.com/dlca/dlca/bptt"
)

// The state penalty (bptt's Run.StatePenalty, not the paper's method): the
// loss differentiated adds weight times the sum of x(1-x) over the states
// after steps 1 to T-1, so the backward program adds weight*(1-2x) to the
// gradient of each of those states (state_penalty_grad.wgsl, T-1 dispatches
// more per iteration while the weight is positive, none while it is 0). The
// loss read back stays the paper's: the forward program is unchanged.

var _ bptt.StatePenaltyEngine = (*Engine)(nil)

// SetStatePenalty implements bptt.StatePenaltyEngine: the following
// iterations add weight times the state penalty to the loss they minimise
// (0: none, the paper's method). Turning it on or off records the backward
// program again at the next Iterate; another positive weight only rewrites
// the uniforms of its dispatches.
func (e *Engine) SetStatePenalty(weight float64) {
	if !(weight >= 0) {
		panic(fmt.Sprintf("gpu: Engine.SetStatePenalty(%v): the weight must not be negative or NaN", weight))
	}
	e.penalty = weight
}

// recordStatePenalty records, into the backward program p, the penalty's
// gradient of the state after step t (1 to T-1) once the step after it
// has added its own into dstate, and keeps the dispatch's uniform.
func (e *Engine) recordStatePenalty(p *Program, dstate *Buffer, t int) error {
	r := e.r
	if err := p.StatePenaltyGrad(dstate, r.state[t], r.grid.Len(), r.penaltyWeight); err != nil {
		return err
	}
	r.penaltyUniforms = append(r.penaltyUniforms, p.uniforms[len(p.uniforms)-1])
	return nil
}

// preparePenalty makes the backward program add the penalty of the weight
// set last: recorded with or without its dispatches, their weight written.
func (e *Engine) preparePenalty() error {
	r := e.r
	if on := e.penalty > 0; on != r.penalised {
		r.backward.Release()
		r.backward = e.d.NewProgram()
		return e.recordBackward(r.backward)
	}
	w := float32(e.penalty)
	if !r.penalised || w == r.penaltyWeight {
		return nil
	}
	const shader = "state_penalty_grad.wgsl"
	raw := encodeParams(shader, penaltyParams{N: uint32(r.grid.Len()), Weight: w})
	for _, u := range r.penaltyUniforms {
		if err := e.d.writeParams(u, shader, raw); err != nil {
			return err
		}
	}
	r.penaltyWeight = w
	return nil
}
