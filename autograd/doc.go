// Package autograd is a small reverse-mode automatic differentiation library:
// n-dimensional tensors of float32 (the default) or float64, broadcasting
// arithmetic, a backward rule for every op, nn layers, losses, optimisers,
// schedulers and a numerical gradient checker.
//
// # Conventions
//
// Tensors are row-major and contiguous. Shapes are []int; a 0-D tensor (shape
// []) is a scalar and holds one element; a shape containing 0 is empty and
// holds none. Both work with every op.
//
// Every op returns a new tensor and never modifies its inputs. When any input
// requires a gradient and recording is on (see NoGrad), the op records a node
// holding its backward rule. The backward rule of every op is written next to
// its forward, in terms of other tensor ops, so gradients are computed by the
// same code on both dtypes.
//
// Backward walks the recorded graph in a deterministic order (the graph is
// kept in slices, never iterated through a map), sums the contributions of a
// tensor used more than once, and accumulates into the Grad of every leaf that
// requires a gradient. Call ZeroGrad (or Optimizer.ZeroGrad) between steps.
//
// Semantics follow PyTorch wherever it has one: broadcasting, reductions with
// keepdim, padding, loss reductions, AdamW's decoupled weight decay.
//
// # Errors
//
// Programmer errors panic with a message prefixed "autograd: " that names the
// op and the shapes involved: shape mismatches, out-of-range axes or indices,
// mixed dtypes. Doc comments say when a function panics. Conditions that can
// legitimately arise at run time, such as calling Backward on a tensor that
// needs no gradient or on a graph already freed, return an error.
//
// # Extending
//
// CustomOp lets other packages add an op with a hand-written forward and
// backward (the gates package registers its fused gate layer this way); Apply
// records it in the graph like any built-in op.
package autograd
