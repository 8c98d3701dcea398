package autograd

import (
	"fmt"
	"slices"

	"github.com/dlca/dlca/internal/parallel"
)

// Float is the element type of tensor storage. Every element loop is written
// once over Float and instantiated for float32 and float64.
type Float interface{ ~float32 | ~float64 }

// parallelMin is the smallest amount of work (elements) worth splitting
// across goroutines; below it the loop runs on the calling goroutine.
const parallelMin = 1 << 15

// ParallelFor calls body on disjoint ranges [lo, hi) covering [0, n). Loops
// of at least 32K iterations are split into one contiguous chunk per CPU;
// smaller ones run on the calling goroutine. Use it only where each index
// writes its own outputs (no sums across ranges), so that the result does
// not depend on the split: this package computes every reduction whole
// within one goroutine.
func ParallelFor(n int, body func(lo, hi int)) {
	parallelForCost(n, 1, body)
}

// parallelForCost is parallelFor for loops whose iterations each cost about
// cost elements of work. Above parallelMin, the number of goroutines is
// the one timing shows to be fastest for loops of that size
// (threadChoices): one, when the machine's other cores do not pay.
func parallelForCost(n, cost int, body func(lo, hi int)) {
	work := n * max(cost, 1)
	if work < parallelMin {
		body(0, n)
		return
	}
	choice := loopChoices.of(work)
	run := choice.Next(float64(work))
	parallel.For(n, run.Workers, func(_, lo, hi int) { body(lo, hi) })
	choice.Done(run)
}

// mapSlice sets dst[i] = f(src[i]), computing in float64.
func mapSlice[T Float](dst, src []T, f func(float64) float64) {
	ParallelFor(len(dst), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = T(f(float64(src[i])))
		}
	})
}

// mapUnary returns f applied to every element of t, with t's dtype and shape.
// It records nothing, and runs on the CPU alone (see unaryOn).
func mapUnary(t *Tensor, f func(float64) float64) *Tensor {
	out := emptyFor(nil, t.dtype, t.shape...) // mapSlice writes every element
	if t.dtype == Float64 {
		mapSlice(out.f64, t.f64, f)
	} else {
		mapSlice(out.f32, t.f32, f)
	}
	return out
}

// unaryOn is mapUnary on t's device: f on the CPU, the device's kernel op
// (one of UnaryOps, with its constants params) elsewhere.
func unaryOn(op string, t *Tensor, f func(float64) float64, params ...float64) *Tensor {
	if t.dev == nil {
		return mapUnary(t, f)
	}
	if !slices.Contains(UnaryOps, op) {
		panic(fmt.Sprintf("autograd: %s has no kernel on %v (it is not one of UnaryOps); move its operand to the CPU with To(autograd.CPU)", op, t.dev))
	}
	out := newOn(t.dev, t.dtype, t.shape)
	// A copy, so that params does not escape and the CPU path allocates
	// no slice for it.
	elementwiseOf(op, t.dev).Unary(op, out, t, append([]float64(nil), params...)...)
	return out
}

// mapBinary returns f(a, b) elementwise over the broadcast shape of a and b,
// computed on the CPU by f and on another device by its kernel op (one of
// BinaryOps). It records nothing. It panics naming op when the shapes do not
// broadcast, the dtypes differ or the devices do.
func mapBinary(op string, a, b *Tensor, f func(x, y float64) float64) *Tensor {
	if dev := deviceOf(op, a, b); dev != nil {
		return binaryOn(dev, op, a, b)
	}
	return binary(op, a, b, funcRow[float32](f), funcRow[float64](f))
}

// binaryOn computes a op b on dev with its kernel op, over the broadcast
// shape.
func binaryOn(dev Device, op string, a, b *Tensor) *Tensor {
	if !slices.Contains(BinaryOps, op) {
		panic(fmt.Sprintf("autograd: %s has no kernel on %v (it is not one of BinaryOps); move its operands to the CPU with To(autograd.CPU)", op, dev))
	}
	checkDType(op, a, b)
	out := newOn(dev, a.dtype, broadcastShapes(op, a.shape, b.shape))
	elementwiseOf(op, dev).Binary(op, out, onDevice(dev, a), onDevice(dev, b))
	return out
}

// arithOp names the four arithmetic operations, which get loops of their
// own: they are the most frequent ops and too cheap to call through a
// function value per element.
type arithOp uint8

const (
	opAdd arithOp = iota
	opSub
	opMul
	opDiv
)

// arith returns a op b over the broadcast shape, recording nothing.
func arith(name string, a, b *Tensor, op arithOp) *Tensor {
	if dev := deviceOf(name, a, b); dev != nil {
		return binaryOn(dev, name, a, b)
	}
	return binary(name, a, b, arithRow[float32](op), arithRow[float64](op))
}

// rowFunc computes one row of a binary op: dst[j] from a[j*ia] and b[j*ib]
// (a stride is 0 along a broadcast dimension, else 1).
type rowFunc[T Float] func(dst, a, b []T, ia, ib int)

func funcRow[T Float](f func(x, y float64) float64) rowFunc[T] {
	return func(dst, a, b []T, ia, ib int) {
		for j := range dst {
			dst[j] = T(f(float64(a[j*ia]), float64(b[j*ib])))
		}
	}
}

// arithRow computes in T directly; for these four operations that rounds
// exactly as computing in float64 and converting would.
func arithRow[T Float](op arithOp) rowFunc[T] {
	return func(dst, a, b []T, ia, ib int) {
		switch op {
		case opAdd:
			for j := range dst {
				dst[j] = a[j*ia] + b[j*ib]
			}
		case opSub:
			for j := range dst {
				dst[j] = a[j*ia] - b[j*ib]
			}
		case opMul:
			for j := range dst {
				dst[j] = a[j*ia] * b[j*ib]
			}
		case opDiv:
			for j := range dst {
				dst[j] = a[j*ia] / b[j*ib]
			}
		}
	}
}

func binary(op string, a, b *Tensor, row32 rowFunc[float32], row64 rowFunc[float64]) *Tensor {
	checkDType(op, a, b)
	shape := broadcastShapes(op, a.shape, b.shape)
	out := emptyFor(nil, a.dtype, shape...) // the row functions write every element
	if a.dtype == Float64 {
		binaryKernel(out.f64, a.f64, b.f64, shape, a.shape, b.shape, row64)
	} else {
		binaryKernel(out.f32, a.f32, b.f32, shape, a.shape, b.shape, row32)
	}
	return out
}

// binaryKernel fills dst over the broadcast shape, row by row of the last
// dimension; each input's row offset comes from its broadcast strides (0
// along a broadcast dimension).
func binaryKernel[T Float](dst, a, b []T, shape, aShape, bShape []int, row rowFunc[T]) {
	if len(dst) == 0 {
		return
	}
	if sameShape(aShape, bShape) {
		ParallelFor(len(dst), func(lo, hi int) {
			row(dst[lo:hi], a[lo:hi], b[lo:hi], 1, 1)
		})
		return
	}
	sa, sb := broadcastStrides(aShape, shape), broadcastStrides(bShape, shape)
	nd := len(shape)
	inner := 1
	var ia, ib int
	if nd > 0 {
		inner = shape[nd-1]
		ia, ib = sa[nd-1], sb[nd-1]
	}
	rows := len(dst) / inner
	parallelForCost(rows, inner, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			oa, ob := rowOffset(r, shape, sa), rowOffset(r, shape, sb)
			row(dst[r*inner:(r+1)*inner], a[oa:], b[ob:], ia, ib)
		}
	})
}

// rowOffset returns the storage offset of row r (an index over all but the
// last dimension of shape) in a tensor with the given strides.
func rowOffset(r int, shape, strides []int) int {
	off := 0
	for d := len(shape) - 2; d >= 0; d-- {
		off += (r % shape[d]) * strides[d]
		r /= shape[d]
	}
	return off
}

// stridesOf returns the row-major strides of shape.
func stridesOf(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for d := len(shape) - 1; d >= 0; d-- {
		s[d] = acc
		acc *= shape[d]
	}
	return s
}

// convert copies src into dst, converting the element type.
func convert[D, S Float](dst []D, src []S) {
	for i, v := range src {
		dst[i] = D(v)
	}
}
