package nn

import (
	"fmt"

	"github.com/dlca/dlca/autograd"
)

// CheckpointSequential runs layers on x in segments, as
// torch.utils.checkpoint.checkpoint_sequential(layers, segments, x): the
// layers are cut into segments runs of len(layers)/segments layers, the
// last run taking the rest; every run but the last goes through
// autograd.Checkpoint, so only its input is kept for the backward pass,
// which runs it again. The gradients are bit for bit those of running the
// layers plainly. Layers must compute the same values both times (give a
// Dropout's random stream the same state, or train without it).
//
// Unlike PyTorch's reentrant checkpoint, a segment whose input needs no
// gradient (the data) still gives its parameters their gradients: its
// input is then given to autograd.Checkpoint as a leaf of its own that
// requires one (what PyTorch's use_reentrant=False does); a NoGrad input
// records nothing, as everywhere. It panics when
// segments is not between 1 and len(layers).
func CheckpointSequential(layers []Module, segments int, x *autograd.Tensor) *autograd.Tensor {
	if segments < 1 || segments > len(layers) {
		panic(fmt.Sprintf("nn: CheckpointSequential: %d segments for %d layers (want 1 to %d)", segments, len(layers), len(layers)))
	}
	size := len(layers) / segments
	start := 0
	for range segments - 1 {
		run := NewSequential(layers[start : start+size]...)
		in := x
		if !in.RequiresGrad() && !in.IsNoGrad() && anyRequiresGrad(run.Parameters()) {
			in = in.Detach().SetRequiresGrad(true)
		}
		x = autograd.Checkpoint(func(xs []*autograd.Tensor) *autograd.Tensor { return run.Forward(xs[0]) }, in)
		start += size
	}
	return NewSequential(layers[start:]...).Forward(x)
}

func anyRequiresGrad(ts []*autograd.Tensor) bool {
	for _, t := range ts {
		if t.RequiresGrad() {
			return true
		}
	}
	return false
}
