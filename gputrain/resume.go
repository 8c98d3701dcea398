package gputrain

import (
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/bptt"
)

var _ bptt.Resumable = (*Engine)(nil)

// OptimizerState implements bptt.Resumable: AdamW's state read back from
// the device, in the CPU engine's format (a run checkpointed on one engine
// resumes on the other).
func (e *Engine) OptimizerState() (optim.State, error) {
	if err := e.dev.Err(); err != nil {
		return optim.State{}, err
	}
	return e.opt.State(), nil
}

// LoadOptimizerState implements bptt.Resumable. The moments are new tensors
// on the device, so the captured steps, which bind the old ones, are
// captured again at the next iteration.
func (e *Engine) LoadOptimizerState(s optim.State) error {
	e.release()
	return e.opt.LoadState(s)
}
