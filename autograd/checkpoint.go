package autograd

import "fmt"

// Checkpoint returns f(inputs) without keeping the activations inside f:
// the forward pass runs f on NoGrad values, so nothing in it is recorded,
// and the backward pass runs f again, recording, and backpropagates through
// that second run. Memory falls from f's activations to its inputs and
// output; the price is a second forward pass. As
// torch.utils.checkpoint.checkpoint(f, *inputs, use_reentrant=True):
//
//   - The inputs are cut from the graph for the second run and their
//     gradients passed on, so the output requires a gradient when an input
//     does (pass a leaf of your own with SetRequiresGrad when the inputs are
//     data and only the tensors f uses need gradients).
//   - Tensors f uses without taking them from its argument (parameters it
//     closes over) are used as they are: their gradients add into their
//     Grad during the second run, in the order a plain backward pass would
//     add them.
//   - f must compute the same values both times: give a random stream the
//     same seed in both runs (PyTorch saves and restores its RNG state).
//
// The gradients are bit for bit those of f without Checkpoint. Checkpoint
// serves Backward only: Grad through it is an error (the second run would
// add into the Grad of the tensors f closes over), and so is a second
// derivative through it.
func Checkpoint(f func(xs []*Tensor) *Tensor, inputs ...*Tensor) *Tensor {
	views := make([]*Tensor, len(inputs))
	for i, in := range inputs {
		views[i] = in.NoGrad()
	}
	out := f(views).view()
	return recordCheckpoint(out, inputs, func(g *Tensor) []*Tensor {
		cut := make([]*Tensor, len(inputs))
		for i, in := range inputs {
			cut[i] = in.Detach().SetRequiresGrad(in.requiresGrad)
		}
		again := f(cut)
		if !sameShape(again.shape, out.shape) || again.dtype != out.dtype {
			panic(fmt.Sprintf("autograd: Checkpoint: f gave %v %v the second time and %v %v the first", again.shape, again.dtype, out.shape, out.dtype))
		}
		grads := make([]*Tensor, len(inputs))
		if !again.requiresGrad {
			return grads
		}
		if err := again.BackwardWith(g); err != nil {
			panic(fmt.Sprintf("autograd: Checkpoint: backward through the second run of f: %v", err))
		}
		for i, c := range cut {
			grads[i] = c.grad
		}
		return grads
	})
}

// recordCheckpoint records a Checkpoint: a first-order rule, marked so that
// Grad refuses to run it.
func recordCheckpoint(out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	out = RecordFirstOrder("Checkpoint", out, inputs, backward)
	if out.node != nil {
		out.node.checkpoint = true
	}
	return out
}
