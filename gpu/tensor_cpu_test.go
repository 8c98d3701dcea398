package gpu

import (
	"math/rand/v2"
	"slices"

	"github.com/dlca/dlca/autograd"
)

// The CPU twins of the tensor kernels (tensorKernels): autograd's own ops,
// on copies of the host slices.

// MatMul is autograd.MatMul of the (transposed) operands, summed to
// s.OutBatch.
func (CPUTwin) MatMul(a, b []float32, s MatMulSpec) ([]float32, error) {
	x, y := autograd.New(slices.Clone(a), s.AShape...), autograd.New(slices.Clone(b), s.BShape...)
	if s.TransA {
		x = autograd.Transpose(x, -1, -2)
	}
	if s.TransB {
		y = autograd.Transpose(y, -1, -2)
	}
	return sumTo(autograd.MatMul(x, y), s.OutShape()).Data32(), nil
}

// sumTo sums t over the leading dimensions it has beyond shape and over
// those that are 1 in shape, as autograd sums a broadcast operand's
// gradient.
func sumTo(t *autograd.Tensor, shape []int) *autograd.Tensor {
	lead := t.Dim() - len(shape)
	var axes []int
	for d, size := range t.Shape() {
		if d < lead || shape[d-lead] == 1 && size != 1 {
			axes = append(axes, d)
		}
	}
	if len(axes) == 0 {
		return t
	}
	return autograd.Reshape(autograd.Sum(t, false, axes...), shape...)
}

// tensor returns a float32 tensor holding a copy of x.
func tensor(x []float32, shape []int) *autograd.Tensor {
	return autograd.New(slices.Clone(x), shape...)
}

// Permute is autograd.Permute.
func (CPUTwin) Permute(x []float32, shape, perm []int) ([]float32, error) {
	return autograd.Permute(tensor(x, shape), perm...).Data32(), nil
}

// Expand is autograd.Expand.
func (CPUTwin) Expand(x []float32, shape, to []int) ([]float32, error) {
	return autograd.Expand(tensor(x, shape), to...).Data32(), nil
}

// Narrow is autograd.Narrow.
func (CPUTwin) Narrow(x []float32, shape []int, axis, start, length int) ([]float32, error) {
	return autograd.Narrow(tensor(x, shape), axis, start, length).Data32(), nil
}

// Cat is autograd.Cat.
func (CPUTwin) Cat(xs [][]float32, shapes [][]int, axis int) ([]float32, error) {
	ts := make([]*autograd.Tensor, len(xs))
	for i, x := range xs {
		ts[i] = tensor(x, shapes[i])
	}
	return autograd.Cat(axis, ts...).Data32(), nil
}

// Stack is autograd.Stack.
func (CPUTwin) Stack(xs [][]float32, shape []int, axis int) ([]float32, error) {
	ts := make([]*autograd.Tensor, len(xs))
	for i, x := range xs {
		ts[i] = tensor(x, shape)
	}
	return autograd.Stack(axis, ts...).Data32(), nil
}

// PadZero is autograd.Pad with value 0.
func (CPUTwin) PadZero(x []float32, shape, before, after []int) ([]float32, error) {
	var pads []int // (before, after) pairs from the last axis
	for d := len(shape) - 1; d >= 0; d-- {
		pads = append(pads, before[d], after[d])
	}
	return autograd.Pad(tensor(x, shape), 0, pads...).Data32(), nil
}

// SumTo is autograd.Sum over the summed axes.
func (CPUTwin) SumTo(x []float32, shape, to []int) ([]float32, error) {
	return sumTo(tensor(x, shape), to).Data32(), nil
}

// IndexSelect is autograd.IndexSelect.
func (CPUTwin) IndexSelect(x []float32, shape []int, axis int, idx []int) ([]float32, error) {
	return autograd.IndexSelect(tensor(x, shape), axis, idx).Data32(), nil
}

// Gather is autograd.GatherShaped.
func (CPUTwin) Gather(x []float32, shape []int, axis int, index, indexShape []int) ([]float32, error) {
	return autograd.GatherShaped(tensor(x, shape), axis, index, indexShape).Data32(), nil
}

// ScatterAdd is autograd.ScatterAddShaped.
func (CPUTwin) ScatterAdd(t []float32, shape []int, axis int, index, indexShape []int, src []float32) ([]float32, error) {
	return autograd.ScatterAddShaped(tensor(t, shape), axis, index, indexShape, tensor(src, indexShape)).Data32(), nil
}

// IndexAdd is autograd.IndexAdd.
func (CPUTwin) IndexAdd(t []float32, shape []int, axis int, idx []int, src []float32) ([]float32, error) {
	return autograd.IndexAdd(tensor(t, shape), axis, idx, tensor(src, selectShape(shape, axis, idx))).Data32(), nil
}

// selectShape is shape with axis of length len(idx).
func selectShape(shape []int, axis int, idx []int) []int {
	s := slices.Clone(shape)
	s[axis] = len(idx)
	return s
}

// MaxPool is autograd.MaxPool2dWith.
func (CPUTwin) MaxPool(x []float32, shape []int, cfg autograd.Pool2dConfig) ([]float32, []int, error) {
	out, idx := autograd.MaxPool2dWith(tensor(x, shape), cfg)
	return out.Data32(), idx, nil
}

// DropoutMask is autograd.Dropout of ones.
func (CPUTwin) DropoutMask(n int, p float64, rng *rand.Rand) ([]float32, error) {
	return autograd.Dropout(autograd.Ones(autograd.Float32, n), p, true, rng).Data32(), nil
}

// Conv2d is autograd.Conv2d.
func (CPUTwin) Conv2d(x, w []float32, xShape, wShape []int, cfg autograd.Conv2dConfig) ([]float32, error) {
	return autograd.Conv2d(tensor(x, xShape), tensor(w, wShape), nil, cfg).Data32(), nil
}

// Conv2dInputGrad is the gradient of autograd.Conv2d's input.
func (CPUTwin) Conv2dInputGrad(gy, w []float32, xShape, wShape []int, cfg autograd.Conv2dConfig) ([]float32, error) {
	x := autograd.Zeros(autograd.Float32, xShape...).SetRequiresGrad(true)
	y := autograd.Conv2d(x, tensor(w, wShape), nil, cfg)
	if err := y.BackwardWith(tensor(gy, y.Shape())); err != nil {
		return nil, err
	}
	return x.Grad().Data32(), nil
}

// MaxPoolBackward is the gradient of autograd.MaxPool2dWith's input.
func (CPUTwin) MaxPoolBackward(x, gy []float32, shape []int, cfg autograd.Pool2dConfig) ([]float32, error) {
	xt := tensor(x, shape).SetRequiresGrad(true)
	out, _ := autograd.MaxPool2dWith(xt, cfg)
	if err := out.BackwardWith(tensor(gy, out.Shape())); err != nil {
		return nil, err
	}
	return xt.Grad().Data32(), nil
}

// MaxPoolGather is autograd.Gather of h's planes at MaxPool2dWith's
// indices, 0 where a window chose none.
func (CPUTwin) MaxPoolGather(x, h []float32, shape []int, cfg autograd.Pool2dConfig) ([]float32, error) {
	out, idx := autograd.MaxPool2dWith(tensor(x, shape), cfg)
	g := autograd.Pool2dGeometry(shape, cfg)
	at, keep := make([]int, len(idx)), autograd.Zeros(autograd.Float32, len(idx))
	for i, k := range idx {
		at[i] = max(k, 0)
		if k >= 0 {
			keep.SetAt(i, 1)
		}
	}
	planes := autograd.Reshape(tensor(h, shape), g.Planes, g.H*g.W)
	picked := autograd.Mul(autograd.Reshape(autograd.Gather(planes, 1, at), len(idx)), keep)
	return autograd.Reshape(picked, out.Shape()...).Data32(), nil
}
