package autograd

// CustomOp is an op with a hand-written forward and backward, for fused
// kernels that would be slow or memory-hungry as a composition of built-in
// ops (the gate layer, for example). Apply records it in the graph.
type CustomOp interface {
	// Name identifies the op in panics and error messages.
	Name() string
	// Forward computes the output from the inputs. It must not modify them.
	Forward(inputs []*Tensor) *Tensor
	// Backward returns the gradient of each input, in order, given the
	// gradient of the output; entries may be nil (no gradient or zero).
	// Inputs and output are those of the matching Forward call.
	Backward(grad *Tensor, inputs []*Tensor, output *Tensor) []*Tensor
}

// Apply runs op.Forward on inputs and, when recording, records op.Backward as
// the result's backward rule.
func Apply(op CustomOp, inputs ...*Tensor) *Tensor {
	out := op.Forward(inputs)
	return Record(op.Name(), out, inputs, func(g *Tensor) []*Tensor {
		return op.Backward(g, inputs, out)
	})
}
