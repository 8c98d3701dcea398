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
// # Layers and layouts
//
// A Layer has Groups x Out gates over In inputs; all groups share one Wiring
// (gate k reads inputs Wiring.A[k] as a and Wiring.B[k] as b) and each group
// has its own logits. Every array is row-major and contiguous:
//
//	x       [rows, In]            every group reads the same row (shared input)
//	x       [rows, Groups, In]    group g reads x[r, g, :]
//	y       [rows, Groups, Out]
//	logits  [Groups, Out, 16]     indexed by Op
//	probs   [Groups, Out, 16]     softmax of the logits
//	coeffs  [Groups, Out, 4]      c0, c1, c2, c3 with y = c0 + c1 a + c2 b + c3 ab
//	sums    [Groups, Out, 4]      sum over rows of g, g a, g b, g ab (backward)
//
// Layer.Forward is one autograd custom op. Its kernels (SoftCoeffs,
// ForwardSoft, BackwardSoft, LogitGrads) are exported on plain slices of
// float32 or float64 so that other executors can run and test against the
// same arithmetic. The input gradient is a gather through a ReverseIndex,
// never a scatter, and rows are split into chunks fixed by the layer's shape,
// so results are bit for bit the same for any number of goroutines. Inside
// the kernels one row is one loop over every group's gates, the wiring
// expanded to offsets within the row.
//
// # Feature-major kernels
//
// ForwardSoftFM and BackwardSoftFM (featuremajor.go) are the same layer on
// the transposed layout, which executors that keep their own activation
// buffers use (package dlca's fused step):
//
//	x       [inputs][rows]        inputs = In, or Groups*In (feature g*In + j)
//	y       [Groups*Out][rows]    gate j of group g is feature g*Out + j
//
// with Dims, coefficients and sums as above. Each gate streams contiguous
// vectors, so these kernels are about twice as fast as the row-major ones;
// use them when the caller can keep its activations feature-major, and the
// row-major ones for autograd tensors, whose rows are the batch. The
// backward pass adds input gradients straight into dx (each goroutine owns
// a span of rows over every feature, and adds in gate order) and sums over
// fixed blocks of 128 rows combined in block order, so it too is bit for bit
// the same for any number of goroutines. On amd64 with AVX2 (and without
// the purego build tag) their float32 inner loops run in assembly
// (featuremajor_amd64.s), eight rows at a time, with the Go loops' operations
// in the Go loops' order, so the results are bit for bit the same as well.
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
