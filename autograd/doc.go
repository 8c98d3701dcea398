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
// requires a gradient and none is a NoGrad value, the op records a node
// holding its backward rule. The backward rule of every op is written next to
// its forward, in terms of other tensor ops, so gradients are computed by the
// same code on both dtypes, and a backward pass can itself be recorded.
//
// Backward walks the recorded graph in a deterministic order (the graph is
// kept in slices, never iterated through a map), sums the contributions of a
// tensor used more than once, and accumulates into the Grad of every leaf that
// requires a gradient. Call ZeroGrad (or Optimizer.ZeroGrad) between steps.
//
// # Gradients of gradients
//
// With BackwardOptions.CreateGraph the backward pass records its own work,
// so a gradient is a differentiable tensor: Grad(out, inputs, options)
// returns gradients as torch.autograd.grad does, for Hessian-vector products
// and gradient penalties. Rules that compute outside the graph (CustomOp,
// RecordFirstOrder) give correct first derivatives and ErrNoSecondOrder
// when differentiated again. CheckGradGrad checks second derivatives.
//
// # No-grad is a value, not a mode
//
// Tensor.NoGrad returns a view whose computations record nothing: ops with
// a NoGrad input give NoGrad results. There is no process-wide switch, so an
// evaluation on NoGrad values in one goroutine never stops another
// goroutine's training from recording. Without CreateGraph the gradient
// flowing through a backward pass is such a value, which is how the pass
// avoids recording. Checkpoint trades memory for a second forward pass.
//
// Semantics follow PyTorch wherever it has one: broadcasting, reductions with
// keepdim, padding, loss reductions, AdamW's decoupled weight decay.
//
// Reshape (and Squeeze, Unsqueeze, Flatten) return views sharing their
// input's storage; every other op allocates its result.
//
// # Kernels, speed and determinism
//
// Element loops are written once over the Float type parameter and
// instantiated for float32 and float64. Add, Sub, Mul and Div compute in the
// tensor's own type; other elementwise functions are defined once in
// float64 and converted on the way in and out, and their derivatives are
// compositions of tensor ops, so that they can be differentiated again.
// Matrix products go through gonum's BLAS Gemm (blas32/blas64), and
// convolutions are im2col followed by Gemm. Loops over more than about 32K
// elements are split into one contiguous chunk per CPU; every output element
// is computed whole by one goroutine, and sums across goroutines (the
// convolution's weight gradient) are taken over fixed-size blocks combined
// in order, so results are bit-identical whatever GOMAXPROCS is.
//
// Heavy backward rules (MatMul, Linear, Conv2d) skip the product for an
// input that does not require a gradient, such as the data.
//
// # Special values
//
// Ops compute what the math gives in IEEE arithmetic and say so where it
// matters: Log(0) = -Inf with gradient +Inf, Sqrt(0) = 0 with gradient +Inf,
// Relu'(0) = 0, Abs'(0) = 0, the rounding ops have gradient 0, Max and Min
// split the gradient evenly among ties (torch.amax's rule; MaxDim and MinDim
// send it to the returned index, as torch.max(t, dim)), Std and the 2-norm
// have gradient 0 where they are 0, Prod's and Cumprod's gradients are exact
// with zeros in the input, and at NaN inputs gradients follow PyTorch: Relu
// passes the gradient, Abs gives NaN, Maximum and Minimum give both operands
// the whole gradient. Softmax and LogSoftmax shift by the
// maximum so huge logits stay finite, and Div's gradient stays finite (and
// exactly 0 for a zero numerator) when the divisor's square underflows.
// The mean of no elements is NaN and the sum of none is 0; Max of an empty
// axis panics.
//
// # Devices
//
// A tensor lives on a Device: the CPU (the default, with its elements in Go
// slices) or another device that keeps them in its own Storage, such as the
// WebGPU device of package gpu (gpu.OpenAutograd). Tensor.To copies a
// tensor to a device (recorded, so gradients flow back), Tensor.MoveTo and
// nn.To move parameters in place, and reading values back is explicit:
// a tensor on a device has no Item or Float64s until it is moved to CPU.
// An op runs on the device of its inputs, through the kernel set of its
// family that the device implements (ElementwiseKernels, ReduceKernels;
// optim.DeviceKernels for the optimisers); inputs on two devices panic,
// naming the op and both, except a 0-D CPU tensor, which any device takes as
// a constant (PyTorch's rule). Gradients live on their tensor's device.
// This package never imports a device, so it builds without cgo, and the
// CPU path is the code it always was. A device keeps its first error and
// returns it from every later read (see Device).
//
// # Gradient checking
//
// CheckGrad compares Backward against central finite differences in
// float64; any package defining a CustomOp can call it in its tests.
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
