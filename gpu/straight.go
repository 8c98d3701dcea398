package gpu

import "github.com/dlca/dlca/bptt"

// Straight-through training (bptt's Run.StraightThroughFrom, not the
// paper's method), as the CPU engine does it (dlca.RolloutOptions.
// StraightThrough): the forward program steps with every gate one-hot on
// its most probable op (gate_hard_coeffs.wgsl, one dispatch more, after
// gate_coeffs, into Engine.hard), while the backward program reads the
// soft coefficients and probabilities as always: the gradient is the soft
// model's at the circuit's activations, y = soft(x) +
// stop_gradient(hard(x) - soft(x)) at every gate layer. The activations
// the backward program reads are the forward's, so nothing else changes;
// the state penalty (penalty.go) adds its gradient at the hard states.
//
// An iteration whose loss is 0 (the circuit right on its batch) leaves the
// model and AdamW's state as they are, as the CPU engine's does: the step
// program (clipping and AdamW) is submitted apart, after the loss is read
// back, and only when it is not 0. That is one more submission and the
// host's wait for the loss before the step, instead of after it.

var _ bptt.StraightThroughEngine = (*Engine)(nil)

// SetStraightThrough implements bptt.StraightThroughEngine: the following
// iterations train straight-through (true) or the paper's way (false).
// Turning it on or off records the forward program again at the next
// Iterate (once per run with straight_through_from).
func (e *Engine) SetStraightThrough(on bool) { e.straight = on }

// prepareStraight records the forward program again if it was recorded
// for the other method.
func (e *Engine) prepareStraight() error {
	r := e.r
	if r.straight == e.straight {
		return nil
	}
	r.forward.Release()
	r.forward = e.d.NewProgram()
	return e.recordForward(r.forward)
}

// stepUnlessRight runs the step program of a straight-through iteration
// whose loss, read back, is loss: AdamW counts and takes a step unless
// the loss is 0.
func (e *Engine) stepUnlessRight(loss float32) error {
	if loss == 0 {
		return nil
	}
	if err := e.opt.Advance(e.d); err != nil {
		return err
	}
	return e.r.step.Run()
}
