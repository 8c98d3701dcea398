package autograd

// The kernel sets a device implements, one interface per op family. An op on
// a device's tensors type-asserts the device to its family's set, so a
// device may implement some families and not others (ops of the others then
// panic, naming the op and the device), and a new family is a new interface
// here without touching the devices that lack it.
//
// Every kernel writes out, a tensor the op has just allocated on the device
// (Device.Alloc) with the op's result shape, and reads its other operands,
// which live on the same device. Operands are contiguous and row-major;
// shapes follow the op's rules (checked by the op before it calls the
// kernel, so a kernel never sees a bad shape). Kernels return no error: a
// failing device keeps its first error (see Device).

// ElementwiseKernels computes the elementwise ops, broadcasting included:
// arithmetic, the unary table, comparisons, Where, and the copies that
// Expand, Permute and Clone make.
type ElementwiseKernels interface {
	// Fill sets every element of out to v.
	Fill(out *Tensor, v float64)
	// Strided sets out[i] = in[offset(i)], where offset(i) is the sum over
	// dimensions d of i's index along d times strides[d] (len(strides) ==
	// out.Dim()). Expand (strides 0 along broadcast axes), Permute and Clone
	// use it.
	Strided(out, in *Tensor, strides []int)
	// Unary sets out = op(in) elementwise; in has out's shape. op is one of
	// UnaryOps; params holds its constants (AddScalar's s, Clamp's lo and
	// hi, ...; see UnaryOps).
	Unary(op string, out, in *Tensor, params ...float64)
	// Binary sets out = op(a, b) elementwise over out's shape, which a and
	// b broadcast to (PyTorch's rule, trailing axes aligned). op is one of
	// BinaryOps.
	Binary(op string, out, a, b *Tensor)
	// Where sets out = b where mask is 0 and a elsewhere; mask, a and b
	// broadcast to out's shape.
	Where(out, mask, a, b *Tensor)
}

// ReduceKernels computes reductions and softmax along one axis at a time.
type ReduceKernels interface {
	// Reduce sets out to the reduction of in along axis; out has in's
	// shape with that axis of length 1. op is "Sum", "Max" or "Min" (a NaN
	// in a slice gives NaN; Max and Min are never called on an empty axis;
	// a Sum over one gives 0). Sums add in order of the index along axis,
	// as the CPU does.
	Reduce(op string, out, in *Tensor, axis int)
	// ArgReduce sets out (in's shape with axis of length 1) to the index
	// along axis of the largest ("ArgMax") or smallest ("ArgMin") element
	// of each slice, as a float32 value: the first on ties, the first NaN
	// where the slice holds one. The axis is never empty.
	ArgReduce(op string, out, in *Tensor, axis int)
	// Softmax sets out (in's shape) to the softmax of in along axis, or to
	// its log-softmax when log is true, shifted by the maximum as on the
	// CPU (an infinite maximum shifts by 0).
	Softmax(out, in *Tensor, axis int, log bool)
}

// UnaryOps and BinaryOps are the one table of the elementwise ops a device
// computes: autograd asks ElementwiseKernels.Unary and Binary for these
// names and no others, and a device may number them by their index here
// (the GPU's kernels do: their OP_ constants are these indices, checked by
// gpu's TestOpCodesMirrorWGSL). TestOpTablesMatchTheFunctions holds the
// table to what this package's functions ask a device for. Add an op at
// the end, with its kernel.

// UnaryOps names the elementwise functions of one operand that
// ElementwiseKernels.Unary computes. The names are those of this package's
// functions; "FiniteOrZero" maps ±Inf to 0 and keeps other values
// (LogSumExp's shift), "NormCDF" is Φ, the standard normal CDF (Gelu's
// derivative), and "Copy" copies. AddScalar, MulScalar, DivScalar,
// PowScalar and LeakyRelu take one constant in params, Clamp two (lo, hi);
// the others none.
var UnaryOps = []string{
	"Copy", "Abs", "Sign", "Exp", "Log", "Log2", "Log10", "Sqrt", "Sin", "Cos", "Tanh",
	"Sigmoid", "Relu", "Gelu", "GeluTanh", "Silu", "Softplus", "Floor", "Ceil", "Round",
	"Trunc", "NormCDF", "Square", "FiniteOrZero",
	"AddScalar", "MulScalar", "DivScalar", "PowScalar", "LeakyRelu",
	"Clamp",
}

// BinaryOps names the elementwise functions of two operands that
// ElementwiseKernels.Binary computes. Gt, Ge, Lt, Le and Eq give 1 where the
// relation holds and 0 elsewhere. MaximumShare(x, y) is the share of the
// gradient that Maximum gives x (1 where x wins or either is NaN, 0.5 on a
// tie, 0 where x loses), MinimumShare likewise; ExtremeMask(x, m) is 1 where
// x == m or both are NaN (the elements that Max and Min send gradient to).
var BinaryOps = []string{
	"Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum",
	"Gt", "Ge", "Lt", "Le", "Eq", "MaximumShare", "MinimumShare", "ExtremeMask",
}

// elementwiseOf returns dev's ElementwiseKernels, or panics naming op.
func elementwiseOf(op string, dev Device) ElementwiseKernels {
	k, ok := dev.(ElementwiseKernels)
	if !ok {
		noKernel(op, dev, "ElementwiseKernels")
	}
	return k
}

// reduceOf returns dev's ReduceKernels, or panics naming op.
func reduceOf(op string, dev Device) ReduceKernels {
	k, ok := dev.(ReduceKernels)
	if !ok {
		noKernel(op, dev, "ReduceKernels")
	}
	return k
}
