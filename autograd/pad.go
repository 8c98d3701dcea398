package autograd

import "fmt"

// PadMode says how Pad fills the cells it adds: the mode argument of
// torch.nn.functional.pad, and the padding_mode of torch.nn.Conv1d/Conv2d.
type PadMode int

const (
	// PadConstant fills with a constant: F.pad's 'constant', and a
	// convolution's 'zeros' (the zero value, so the default).
	PadConstant PadMode = iota
	// PadReflect mirrors the input about its edge cell, which is not
	// repeated: 'reflect'. Each pad must be shorter than the axis.
	PadReflect
	// PadReplicate repeats the edge cell: 'replicate'.
	PadReplicate
	// PadCircular wraps around, as if the input repeated: 'circular'. Each
	// pad must be at most the axis length (after negative pads crop it).
	PadCircular
)

// String returns PyTorch's name for the mode.
func (m PadMode) String() string {
	switch m {
	case PadConstant:
		return "constant"
	case PadReflect:
		return "reflect"
	case PadReplicate:
		return "replicate"
	case PadCircular:
		return "circular"
	}
	return fmt.Sprintf("PadMode(%d)", int(m))
}

// Pad is torch.nn.functional.pad(t, pads, mode='constant', value=value).
// pads holds (before, after) pairs starting from the LAST dimension, so
// Pad(t, 0, 1, 2) adds one element before and two after along the last
// axis, and Pad(t, 0, 0, 0, 1, 1) one row before and after along the axis
// before it. A negative pad removes that many elements (a crop). It panics
// on an odd count, more pairs than dimensions, or a crop longer than its
// axis.
func Pad(t *Tensor, value float64, pads ...int) *Tensor {
	before, after := padPairs("Pad", t, pads)
	for d := range before {
		if t.shape[d]+before[d]+after[d] < 0 {
			panic(fmt.Sprintf("autograd: Pad: pads %v leave a negative length on axis %d of shape %v", pads, d, t.shape))
		}
	}
	return padAxes(cropAxes(t, before, after), positive(before), positive(after), value)
}

// PadWith is torch.nn.functional.pad(t, pads, mode): pads as in Pad, and
// PadConstant pads with zeros. The gradient of a cell copied from the
// input, once or many times, is summed into that input cell.
//
// NOTE: PyTorch accepts the non-constant modes only on the last one to
// three axes of a 2-D to 5-D tensor; PadWith takes any trailing axes. As
// PyTorch, reflect and replicate place negative pads on the original axis
// (a cell at position p before the input's start is input[-p] for reflect),
// while circular first crops and then wraps around what is left.
// It panics as Pad does, and when a pad is too long for the mode (see
// PadMode).
func PadWith(t *Tensor, mode PadMode, pads ...int) *Tensor {
	if mode == PadConstant {
		return Pad(t, 0, pads...)
	}
	before, after := padPairs("PadWith", t, pads)
	shape := t.shape
	if mode == PadCircular {
		t = cropAxes(t, before, after)
		before, after = positive(before), positive(after)
	}
	for d := range before {
		if before[d] == 0 && after[d] == 0 {
			continue
		}
		idx := padIndex(mode, t.shape[d], before[d], after[d])
		if idx == nil {
			panic(fmt.Sprintf("autograd: PadWith: %s pads %v too long for axis %d of shape %v", mode, pads, d, shape))
		}
		t = IndexSelect(t, d, idx)
	}
	return t
}

// padIndex returns, for each cell of an axis of length n padded with before
// and after cells in a non-constant mode, the input cell it copies, or nil
// when the pads do not fit the mode.
func padIndex(mode PadMode, n, before, after int) []int {
	size := n + before + after
	ok := size >= 0 && n > 0
	switch mode {
	case PadReflect:
		ok = ok && before < n && after < n
	case PadCircular:
		ok = ok && before <= n && after <= n
	case PadReplicate:
	default:
		panic(fmt.Sprintf("autograd: PadWith: unknown %v", mode))
	}
	if !ok {
		return nil
	}
	idx := make([]int, size)
	for j := range idx {
		p := j - before // position in the input; outside [0, n) in the pads
		switch mode {
		case PadReflect:
			p = min(max(p, -p), 2*(n-1)-p)
		case PadReplicate:
			p = min(max(p, 0), n-1)
		case PadCircular:
			p = (p%n + n) % n
		}
		idx[j] = p
	}
	return idx
}

// padPairs checks F.pad's pads for t and returns them per axis, first axis
// first.
func padPairs(op string, t *Tensor, pads []int) (before, after []int) {
	if len(pads)%2 != 0 || len(pads)/2 > t.Dim() {
		panic(fmt.Sprintf("autograd: %s: pads %v for shape %v (want (before, after) pairs, last axis first, at most one pair per axis)", op, pads, t.shape))
	}
	before, after = make([]int, t.Dim()), make([]int, t.Dim())
	for i := range len(pads) / 2 {
		d := t.Dim() - 1 - i
		before[d], after[d] = pads[2*i], pads[2*i+1]
	}
	return before, after
}

// positive returns pads with the negative entries set to 0.
func positive(pads []int) []int {
	out := make([]int, len(pads))
	for d, p := range pads {
		out[d] = max(p, 0)
	}
	return out
}

// cropAxes removes -before[d] and -after[d] elements from each axis d where
// they are negative (Narrow per axis), leaving the others.
func cropAxes(t *Tensor, before, after []int) *Tensor {
	for d := range before {
		lo, hi := max(-before[d], 0), max(-after[d], 0)
		if lo > 0 || hi > 0 {
			t = Narrow(t, d, lo, t.shape[d]-lo-hi)
		}
	}
	return t
}

// padAxes pads each dimension d with before[d] >= 0 and after[d] >= 0
// elements of value. Its gradient crops the padding off again with Narrow,
// whose own gradient is padAxes, so gradients of any order are recorded.
func padAxes(t *Tensor, before, after []int, value float64) *Tensor {
	shape := cloneInts(t.shape)
	for d := range shape {
		shape[d] += before[d] + after[d]
	}
	var out *Tensor
	if t.dev != nil {
		out = fullOn(t.dev, t.dtype, value, shape)
	} else {
		out = Full(t.dtype, value, shape...)
	}
	copyBlock(out, before, t, make([]int, t.Dim()), t.shape)
	return Record("Pad", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		return []*Tensor{cropAxes(g, negate(before), negate(after))}
	})
}

func negate(pads []int) []int {
	out := make([]int, len(pads))
	for d, p := range pads {
		out[d] = -p
	}
	return out
}

// copyBlock copies the block of the given size starting at index soff of src
// to the block starting at index doff of dst.
func copyBlock(dst *Tensor, doff []int, src *Tensor, soff, size []int) {
	if numel(size) == 0 {
		return
	}
	if dev := deviceOf("copy", dst, src); dev != nil {
		kernelsOf[CopyKernels]("Narrow, Cat and Pad", dev, "CopyKernels").CopyBlock(dst, doff, src, soff, size)
		return
	}
	ds, ss := stridesOf(dst.shape), stridesOf(src.shape)
	d0, s0 := 0, 0
	for d := range size {
		d0 += doff[d] * ds[d]
		s0 += soff[d] * ss[d]
	}
	if dst.dtype == Float64 {
		copyBlockKernel(dst.f64[d0:], ds, src.f64[s0:], ss, size)
	} else {
		copyBlockKernel(dst.f32[d0:], ds, src.f32[s0:], ss, size)
	}
}

func copyBlockKernel[T Float](dst []T, ds []int, src []T, ss []int, size []int) {
	inner := 1
	if n := len(size); n > 0 {
		inner = size[n-1]
	}
	parallelForCost(numel(size)/inner, inner, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			do, so := rowOffset(r, size, ds), rowOffset(r, size, ss)
			copy(dst[do:do+inner], src[so:so+inner])
		}
	})
}
