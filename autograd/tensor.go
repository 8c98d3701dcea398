package autograd

import (
	"fmt"
	"math"
)

// DType is the element type of a tensor.
type DType uint8

const (
	// Float32 is the default element type.
	Float32 DType = iota
	// Float64 is used for gradient checks and wherever precision matters.
	Float64
)

// String returns "float32" or "float64".
func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Tensor is an n-dimensional array of float32 or float64 values, together with
// the autograd bookkeeping: whether it requires a gradient, its accumulated
// gradient (for leaves) and the graph node that produced it (for op results).
//
// On the CPU exactly one of f32 and f64 is in use, chosen by dtype; on
// another device (dev non-nil) both are nil and store holds the elements.
// The data is contiguous and row-major.
type Tensor struct {
	shape []int
	dtype DType
	f32   []float32
	f64   []float64
	dev   Device  // nil on the CPU
	store Storage // the elements on dev

	requiresGrad bool
	grad         *Tensor
	node         *node
	noGrad       bool // a NoGrad value: ops on it record nothing
	retainGrad   bool // keep the gradient of a non-leaf (RetainGrad)
}

// New returns a float32 tensor of the given shape that uses data as its
// storage (no copy). New panics if len(data) does not match the shape.
func New(data []float32, shape ...int) *Tensor {
	checkLen("New", len(data), shape)
	return &Tensor{shape: cloneInts(shape), dtype: Float32, f32: data}
}

// New64 returns a float64 tensor of the given shape that uses data as its
// storage (no copy). New64 panics if len(data) does not match the shape.
func New64(data []float64, shape ...int) *Tensor {
	checkLen("New64", len(data), shape)
	return &Tensor{shape: cloneInts(shape), dtype: Float64, f64: data}
}

// Zeros returns a tensor of zeros of the given dtype and shape.
func Zeros(dtype DType, shape ...int) *Tensor {
	n := numel(shape)
	if dtype == Float64 {
		return New64(allocStorage[float64](n), shape...)
	}
	return New(allocStorage[float32](n), shape...)
}

// Full returns a tensor of the given dtype and shape with every element v.
func Full(dtype DType, v float64, shape ...int) *Tensor {
	t := Zeros(dtype, shape...)
	t.Fill(v)
	return t
}

// Ones returns a tensor of ones of the given dtype and shape.
func Ones(dtype DType, shape ...int) *Tensor { return Full(dtype, 1, shape...) }

// Scalar returns a 0-D float32 tensor holding v.
func Scalar(v float32) *Tensor { return New([]float32{v}) }

// Scalar64 returns a 0-D float64 tensor holding v.
func Scalar64(v float64) *Tensor { return New64([]float64{v}) }

// ZerosLike returns a tensor of zeros with t's dtype and shape, on t's device.
func ZerosLike(t *Tensor) *Tensor {
	if t.dev != nil {
		return fullOn(t.dev, t.dtype, 0, t.shape)
	}
	return Zeros(t.dtype, t.shape...)
}

// Shape returns the tensor's shape. The caller must not modify it.
func (t *Tensor) Shape() []int { return t.shape }

// Dim returns the number of dimensions (0 for a scalar).
func (t *Tensor) Dim() int { return len(t.shape) }

// Size returns the length of dimension axis; a negative axis counts from the
// end. Size panics if axis is out of range.
func (t *Tensor) Size(axis int) int { return t.shape[normAxis("Size", axis, len(t.shape))] }

// Len returns the number of elements.
func (t *Tensor) Len() int {
	if t.dev != nil {
		return numel(t.shape)
	}
	if t.dtype == Float64 {
		return len(t.f64)
	}
	return len(t.f32)
}

// DType returns the element type.
func (t *Tensor) DType() DType { return t.dtype }

// Data32 returns the float32 storage (nil for a float64 tensor, or one on a
// device other than the CPU: see Storage). Writing to it
// changes the tensor; do so only for leaves, outside a recorded graph.
func (t *Tensor) Data32() []float32 { return t.f32 }

// Data64 returns the float64 storage (nil for a float32 tensor, or one on a
// device other than the CPU). Writing to it
// changes the tensor; do so only for leaves, outside a recorded graph.
func (t *Tensor) Data64() []float64 { return t.f64 }

// At returns element i of the flat storage as a float64. It reads CPU
// tensors only: on a tensor that lives on another device it panics, naming
// the device and saying to read the tensor back first (To(autograd.CPU)).
func (t *Tensor) At(i int) float64 {
	if t.dev != nil {
		panic(elementOnDevice{"At", t})
	}
	if t.dtype == Float64 {
		return t.f64[i]
	}
	return float64(t.f32[i])
}

// SetAt sets element i of the flat storage of a CPU tensor; it panics as
// At does on a tensor that lives on another device.
func (t *Tensor) SetAt(i int, v float64) {
	if t.dev != nil {
		panic(elementOnDevice{"SetAt", t})
	}
	if t.dtype == Float64 {
		t.f64[i] = v
		return
	}
	t.f32[i] = float32(v)
}

// Float64s returns a copy of the elements as float64. It panics for a
// tensor on a device other than the CPU (move it with To first).
func (t *Tensor) Float64s() []float64 {
	t.mustBeCPU("Float64s")
	out := make([]float64, t.Len())
	for i := range out {
		out[i] = t.At(i)
	}
	return out
}

// Item returns the single element of a tensor that holds exactly one.
// Item panics otherwise, and for a tensor on a device other than the CPU
// (move it with To first: reading back is explicit).
func (t *Tensor) Item() float64 {
	t.mustBeCPU("Item")
	if t.Len() != 1 {
		panic(fmt.Sprintf("autograd: Item of a tensor of shape %v (%d elements); want exactly 1", t.shape, t.Len()))
	}
	return t.At(0)
}

// Fill sets every element to v in place, on t's device.
func (t *Tensor) Fill(v float64) {
	if t.dev != nil {
		elementwiseOf("Fill", t.dev).Fill(t, v)
		return
	}
	if t.dtype == Float64 {
		for i := range t.f64 {
			t.f64[i] = v
		}
		return
	}
	f := float32(v)
	for i := range t.f32 {
		t.f32[i] = f
	}
}

// Clone returns a copy of t's data and shape on t's device, detached from
// any graph.
func (t *Tensor) Clone() *Tensor {
	if t.dev != nil {
		c := newOn(t.dev, t.dtype, t.shape)
		elementwiseOf("Clone", t.dev).Unary("Copy", c, t)
		return c
	}
	c := &Tensor{shape: cloneInts(t.shape), dtype: t.dtype}
	if t.dtype == Float64 {
		c.f64 = pool64.takeDirty(len(t.f64)) // the copy writes every element
		copy(c.f64, t.f64)
	} else {
		c.f32 = pool32.takeDirty(len(t.f32))
		copy(c.f32, t.f32)
	}
	return c
}

// HasNaN reports whether any element is NaN or infinite. It panics for a
// tensor on a device other than the CPU.
func (t *Tensor) HasNaN() bool {
	t.mustBeCPU("HasNaN")
	for i := 0; i < t.Len(); i++ {
		v := t.At(i)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// String formats the tensor's shape, dtype and (for small CPU tensors)
// values; a tensor on another device shows its device instead.
func (t *Tensor) String() string {
	if t.dev != nil {
		return fmt.Sprintf("Tensor(%v %v on %v)", t.shape, t.dtype, t.dev)
	}
	if t.Len() <= 16 {
		return fmt.Sprintf("Tensor(%v %v %v)", t.shape, t.dtype, t.Float64s())
	}
	return fmt.Sprintf("Tensor(%v %v, %d elements)", t.shape, t.dtype, t.Len())
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		if s < 0 {
			panic(fmt.Sprintf("autograd: negative dimension in shape %v", shape))
		}
		n *= s
	}
	return n
}

func checkLen(op string, n int, shape []int) {
	if want := numel(shape); n != want {
		panic(fmt.Sprintf("autograd: %s: %d values for shape %v (want %d)", op, n, shape, want))
	}
}

func cloneInts(s []int) []int { return append([]int{}, s...) }

// normAxis turns a possibly negative axis into an index in [0, ndim).
func normAxis(op string, axis, ndim int) int {
	a := axis
	if a < 0 {
		a += ndim
	}
	if a < 0 || a >= ndim {
		panic(fmt.Sprintf("autograd: %s: axis %d out of range for %d dimensions", op, axis, ndim))
	}
	return a
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
