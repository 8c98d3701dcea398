package gpu

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/autograd"
)

// The kernel sets of AutogradDevice: autograd.ElementwiseKernels and
// autograd.ReduceKernels, each method one dispatch of a kernel under
// shaders/autograd/.

var (
	_ autograd.Device             = (*AutogradDevice)(nil)
	_ autograd.ElementwiseKernels = (*AutogradDevice)(nil)
	_ autograd.ReduceKernels      = (*AutogradDevice)(nil)
)

// maxDims is the most dimensions an elementwise kernel indexes, after
// merging the dimensions that are contiguous in every operand.
const maxDims = 8

// ewParams mirrors EwParams (declared in shaders/lib/params.wgsl), the
// uniform of the elementwise kernels. St holds four rows of maxDims
// entries: the output's shape, then the strides of up to three operands.
type ewParams struct {
	N, NDim, Op, _ uint32
	P0, P1         float32
	_, _           uint32
	St             [4 * maxDims]uint32
}

// axisParams mirrors AxisParams (declared in shaders/lib/params.wgsl), the
// uniform of the kernels that work along one axis, viewed as
// [Outer, N, Inner].
type axisParams struct {
	Outer, N, Inner, Op uint32
}

// Op codes, mirrored by the OP_ constants of the kernels: an op's code is
// its index in its list. The elementwise ops are numbered by autograd's own
// table (autograd.UnaryOps for unary.wgsl, autograd.BinaryOps for
// binary.wgsl); the reductions by these lists. TestOpCodesMirrorWGSL holds
// the kernels' constants to them.
var (
	reduceCodes = []string{"Sum", "Max", "Min"}
	argCodes    = []string{"ArgMax", "ArgMin"}
)

// code returns op's index in codes; an op autograd names that the kernel
// lacks is a programmer error.
func code(kernel string, codes []string, op string) uint32 {
	i := slices.Index(codes, op)
	if i < 0 {
		panic(fmt.Sprintf("gpu: shaders/autograd/%s has no op %q", kernel, op))
	}
	return uint32(i)
}

// Fill sets every element of out to v.
func (a *AutogradDevice) Fill(out *autograd.Tensor, v float64) {
	a.dispatch("autograd/fill.wgsl", out.Len(), ewParams{N: uint32(out.Len()), P0: float32(v)}, a.buffer(out))
}

// Unary sets out = op(in) elementwise (see autograd.ElementwiseKernels).
func (a *AutogradDevice) Unary(op string, out, in *autograd.Tensor, params ...float64) {
	p := ewParams{N: uint32(out.Len()), Op: code("unary.wgsl", autograd.UnaryOps, op)}
	if len(params) > 0 {
		p.P0 = float32(params[0])
	}
	if len(params) > 1 {
		p.P1 = float32(params[1])
	}
	a.dispatch("autograd/unary.wgsl", out.Len(), p, a.buffer(out), a.buffer(in))
}

// Strided sets out[i] = in[offset(i)] (see autograd.ElementwiseKernels).
func (a *AutogradDevice) Strided(out, in *autograd.Tensor, strides []int) {
	if p, ok := a.layout("Strided", out.Shape(), strides); ok {
		a.dispatch("autograd/strided.wgsl", out.Len(), p, a.buffer(out), a.buffer(in))
	}
}

// Binary sets out = op(a, b) with broadcasting (see
// autograd.ElementwiseKernels).
func (a *AutogradDevice) Binary(op string, out, x, y *autograd.Tensor) {
	shape := out.Shape()
	p, ok := a.layout(op, shape, broadcastStrides(x.Shape(), shape), broadcastStrides(y.Shape(), shape))
	if !ok {
		return
	}
	p.Op = code("binary.wgsl", autograd.BinaryOps, op)
	a.dispatch("autograd/binary.wgsl", out.Len(), p, a.buffer(out), a.buffer(x), a.buffer(y))
}

// Where sets out = x where mask is non-zero, else y, with broadcasting.
func (a *AutogradDevice) Where(out, mask, x, y *autograd.Tensor) {
	shape := out.Shape()
	p, ok := a.layout("Where", shape, broadcastStrides(mask.Shape(), shape),
		broadcastStrides(x.Shape(), shape), broadcastStrides(y.Shape(), shape))
	if ok {
		a.dispatch("autograd/where.wgsl", out.Len(), p, a.buffer(out), a.buffer(mask), a.buffer(x), a.buffer(y))
	}
}

// wideReduceMin is the shortest axis that reduce_wide.wgsl reduces, with a
// workgroup per output; shorter ones take reduce.wgsl's invocation per
// output, which sums in the CPU's order.
const wideReduceMin = 256

// Reduce reduces in along axis into out (see autograd.ReduceKernels).
func (a *AutogradDevice) Reduce(op string, out, in *autograd.Tensor, axis int) {
	p := alongAxis(in.Shape(), axis)
	p.Op = code("reduce.wgsl", reduceCodes, op)
	if p.N >= wideReduceMin {
		a.dispatch("autograd/reduce_wide.wgsl", out.Len()*workgroupSize, p, a.buffer(out), a.buffer(in))
		return
	}
	a.dispatch("autograd/reduce.wgsl", out.Len(), p, a.buffer(out), a.buffer(in))
}

// ArgReduce sets out to the index of each slice's extreme along axis (see
// autograd.ReduceKernels).
func (a *AutogradDevice) ArgReduce(op string, out, in *autograd.Tensor, axis int) {
	p := alongAxis(in.Shape(), axis)
	p.Op = code("argreduce.wgsl", argCodes, op)
	a.dispatch("autograd/argreduce.wgsl", out.Len(), p, a.buffer(out), a.buffer(in))
}

// Softmax sets out to the (log-)softmax of in along axis: an invocation per
// slice, or on axes of wideReduceMin or more a workgroup per slice
// (softmax_wide.wgsl), as Reduce chooses.
func (a *AutogradDevice) Softmax(out, in *autograd.Tensor, axis int, log bool) {
	p := alongAxis(in.Shape(), axis)
	if log {
		p.Op = 1
	}
	slices := int(p.Outer * p.Inner)
	if p.N >= wideReduceMin {
		a.dispatch("autograd/softmax_wide.wgsl", slices*workgroupSize, p, a.buffer(out), a.buffer(in))
		return
	}
	a.dispatch("autograd/softmax.wgsl", slices, p, a.buffer(out), a.buffer(in))
}

// alongAxis views shape as [outer, n, inner] around axis.
func alongAxis(shape []int, axis int) axisParams {
	outer, inner := 1, 1
	for _, s := range shape[:axis] {
		outer *= s
	}
	for _, s := range shape[axis+1:] {
		inner *= s
	}
	return axisParams{Outer: uint32(outer), N: uint32(shape[axis]), Inner: uint32(inner)}
}

// layout fills the shape and strides of an elementwise kernel's params,
// merging dimensions that are contiguous in every operand. Past maxDims
// after merging it keeps an error naming op and returns false.
func (a *AutogradDevice) layout(op string, shape []int, strides ...[]int) (ewParams, bool) {
	n := 1
	for _, s := range shape {
		n *= s
	}
	p := ewParams{N: uint32(n)}
	shape, strides = mergeDims(shape, strides)
	if len(shape) > maxDims {
		a.fail(fmt.Errorf("gpu: %s over %d dimensions that do not merge; the kernels index at most %d (reshape first)", op, len(shape), maxDims))
		return p, false
	}
	p.NDim = uint32(len(shape))
	for d, s := range shape {
		p.St[d] = uint32(s)
		for j, st := range strides {
			p.St[(j+1)*maxDims+d] = uint32(st[d])
		}
	}
	return p, true
}

// mergeDims drops dimensions of length 1 and merges each dimension into the
// next where every operand steps over it as over one longer dimension.
func mergeDims(shape []int, strides [][]int) ([]int, [][]int) {
	var ms []int
	mst := make([][]int, len(strides))
	for d := range shape {
		if shape[d] == 1 {
			continue
		}
		if k := len(ms) - 1; k >= 0 && mergeable(shape[d], mst, strides, d) {
			ms[k] *= shape[d]
			for j := range strides {
				mst[j][k] = strides[j][d]
			}
			continue
		}
		ms = append(ms, shape[d])
		for j := range strides {
			mst[j] = append(mst[j], strides[j][d])
		}
	}
	return ms, mst
}

// mergeable reports whether dimension d, of length n, continues the last
// merged dimension in every operand: the latter's stride is n of d's.
func mergeable(n int, merged, strides [][]int, d int) bool {
	for j := range strides {
		last := merged[j][len(merged[j])-1]
		if last != strides[j][d]*n {
			return false
		}
	}
	return true
}

// broadcastStrides returns the strides for reading a contiguous tensor of
// shape as the larger shape out it broadcasts to: 0 along broadcast axes.
func broadcastStrides(shape, out []int) []int {
	s := make([]int, len(out))
	off := len(out) - len(shape)
	acc := 1
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] != 1 {
			s[off+d] = acc
		}
		acc *= shape[d]
	}
	return s
}
