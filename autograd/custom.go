package autograd

// CustomOp is an op with a hand-written forward and backward, for fused
// kernels that would be slow or memory-hungry as a composition of built-in
// ops (the gate layer, for example). Apply records it in the graph.
type CustomOp interface {
	// Name identifies the op in panics and error messages.
	Name() string
	// Forward computes the output from the inputs, which it receives as
	// NoGrad values: nothing it computes is recorded. It must not modify
	// them.
	Forward(inputs []*Tensor) *Tensor
	// Backward returns the gradient of each input, in order, given the
	// gradient of the output; entries may be nil (no gradient or zero).
	// Inputs and output are those of the matching Forward call (inputs as
	// given to Apply, so RequiresGrad tells which gradients are wanted).
	Backward(grad *Tensor, inputs []*Tensor, output *Tensor) []*Tensor
}

// Apply runs op.Forward on inputs and records op.Backward as the result's
// backward rule. A custom rule is taken to be first-order (it typically
// reads raw data): a backward pass with CreateGraph gives correct first
// derivatives, and differentiating them again returns ErrNoSecondOrder.
func Apply(op CustomOp, inputs ...*Tensor) *Tensor {
	views := make([]*Tensor, len(inputs))
	for i, in := range inputs {
		if in != nil {
			views[i] = in.NoGrad()
		}
	}
	// A fresh header, so that an output that is an input's view (or was
	// marked NoGrad by the ops Forward used) starts ordinary.
	out := op.Forward(views).view()
	return RecordFirstOrder(op.Name(), out, inputs, func(g *Tensor) []*Tensor {
		return op.Backward(g, inputs, out)
	})
}
