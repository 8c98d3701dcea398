// Package gates implements differentiable logic gates: the 16 two-input
// Boolean ops, their relaxation to real inputs, layers of gates with fixed
// wiring and learned logits, and evaluation on bits.
//
// # One table
//
// The table in table.go is the single source of truth: an Op's number is its
// truth table (bits for ab = 00, 01, 10, 11, most significant first), and the
// relaxed coefficients (Coeffs, CoeffTable, CoeffTable32), derivatives (Grad),
// bit forms (Eval, Word) and expressions (Expr) are derived from it or tested
// against it on all four corners.
//
// # Layers and the one layout
//
// A Layer has Groups x Out gates over In inputs; all groups share one Wiring
// (gate k reads inputs Wiring.A[k] as a and Wiring.B[k] as b) and each group
// has its own logits. Per-gate arrays are [Groups, Out, ...], gate j of
// group g being gate g*Out + j:
//
//	logits  [Groups, Out, 16]     indexed by Op
//	probs   [Groups, Out, 16]     softmax of the logits
//	coeffs  [Groups, Out, 4]      c0, c1, c2, c3 with y = c0 + c1 a + c2 b + c3 ab
//	sums    [Groups, Out, 4]      sum over rows of g, g a, g b, g ab (backward)
//
// The kernels (SoftCoeffs, ForwardSoftFM, BackwardSoftFM, LogitGrads) are
// exported on plain slices of float32 or float64, so that other executors
// run and test against the same arithmetic. A layer applied to a batch of
// rows has one layout, feature-major (Dims gives the shape):
//
//	x       [inputs][rows]        inputs = In when the groups share x, else
//	                              Groups*In (input j of group g is feature g*In + j)
//	y       [Groups*Out][rows]    gate j of group g is feature g*Out + j
//
// Each gate streams contiguous vectors. It is the layout the cellular
// automaton trains on (package dlca's fused step) and the GPU's kernels use.
// ForwardSoftFMRows and BackwardSoftFMBlocks run a layer over a range of
// rows on the calling goroutine, for an executor that schedules rows itself
// (dlca's step takes tiles of rows through several layers in a row);
// AddPartialSums completes the backward pass's sums.
// The backward pass adds input gradients straight into dx (each goroutine
// owns a span of rows over every feature, and adds in gate order) and sums
// over fixed blocks of 128 rows combined in block order, so results are bit
// for bit the same for any number of goroutines. On amd64 with AVX2 (and
// without the purego build tag) the float32 inner loops run in assembly
// (featuremajor_amd64.s), eight rows at a time, with the Go loops'
// operations in the Go loops' order, so the results are bit for bit the
// same as well. The Go loops round every product (an explicit conversion)
// so that no build fuses multiply-adds: the bits do not depend on GOAMD64.
//
// Layer.Forward is one autograd custom op on row-major tensors (x [rows, In]
// or [rows, Groups, In], y [rows, Groups, Out]: rows are the batch); it
// transposes around the feature-major kernels. On an autograd device other
// than the CPU (x and Logits both there) it runs the device's
// DeviceKernels instead: package gpu's AutogradDevice implements them with
// its engine's gate kernels.
//
// # Argument order
//
// Functions that write into slices or buffers take their destinations
// first, as gonum does: ForwardSoftFM(y, x, ...), BackwardSoftFM(dx, sums,
// g, x, ...), SoftCoeffs(probs, coeffs, logits), EvalWords(out, ...).
//
// Layer.ForwardReference is the same layer composed from autograd
// primitives, the readable definition against which the fused op is tested.
//
// # Errors
//
// Programmer errors (shapes, wiring indices out of range, NaN logits reaching
// Forward) panic with a message prefixed "gates: " that names the layer and
// the problem. Wiring generators and Layer.Validate return errors for
// conditions that depend on configuration (a 'unique' wiring asked for with
// 2*out < in, a layer loaded with bad logits).
package gates
