package gpu

import (
	"fmt"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// Parity of autograd's matrix products, shape and index ops and
// convolutions on the GPU with the CPU, forward and every input gradient,
// on awkward shapes. Products and convolutions sum in another order than
// gonum's Gemm (tolReduce); the copies, gathers and scatters move or add
// values in the CPU's order (tolElementwise).

// opCase is one op on its inputs, named for the subtest.
type opCase struct {
	name   string
	inputs [][]int
	f      func(xs ...*autograd.Tensor) *autograd.Tensor
}

// checkCases runs checkParity on every case, with inputs drawn from
// [-2, 2).
func checkCases(t *testing.T, tol float64, cases []opCase) {
	testAutograd(t)
	for i, c := range cases {
		t.Run(c.name+fmt.Sprint(c.inputs), func(t *testing.T) {
			inputs := make([]*autograd.Tensor, len(c.inputs))
			for j, shape := range c.inputs {
				inputs[j] = randTensor(uint64(100*i+j), -2, 2, shape...)
			}
			checkParity(t, tol, c.f, inputs...)
		})
	}
}

// TestMatMulParity: the product, forward and both input gradients, on
// matMulCases (transposed operands included) and vectors.
func TestMatMulParity(t *testing.T) {
	matmul := func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.MatMul(xs[0], xs[1]) }
	transposed := func(xs ...*autograd.Tensor) *autograd.Tensor {
		return autograd.MatMul(autograd.Transpose(xs[0], -1, -2), autograd.Transpose(xs[1], -1, -2))
	}
	linear := func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Linear(xs[0], xs[1], xs[2]) }
	var cases []opCase
	for _, s := range matMulCases {
		cases = append(cases, opCase{"MatMul" + map[bool]string{true: "TransA"}[s.TransA] + map[bool]string{true: "TransB"}[s.TransB], [][]int{s.AShape, s.BShape}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			a, b := xs[0], xs[1]
			if s.TransA {
				a = autograd.Transpose(a, -1, -2)
			}
			if s.TransB {
				b = autograd.Transpose(b, -1, -2)
			}
			return autograd.MatMul(a, b)
		}})
	}
	cases = append(cases,
		opCase{"MatMul", [][]int{{7}, {7}}, matmul},
		opCase{"MatMul", [][]int{{65}, {65, 7}}, matmul},
		opCase{"MatMul", [][]int{{2, 63, 7}, {7}}, matmul},
		opCase{"MatMulTransposed", [][]int{{3, 7, 63}, {65, 7}}, transposed},
		opCase{"Linear", [][]int{{2, 5, 63}, {7, 63}, {7}}, linear},
		opCase{"Linear", [][]int{{0, 65}, {1, 65}, {1}}, linear},
	)
	checkCases(t, tolReduce, cases)
}

func TestShapeOpParity(t *testing.T) {
	checkCases(t, tolElementwise, []opCase{
		{"Narrow", [][]int{{7, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Narrow(xs[0], 1, 63, 2) }},
		{"Narrow", [][]int{{1000}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Narrow(xs[0], 0, 1, 0) }},
		{"Cat", [][]int{{2, 7}, {2, 0}, {2, 63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Cat(1, xs...) }},
		{"Cat", [][]int{{1}, {1000}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Cat(0, xs...) }},
		{"Stack", [][]int{{3, 5}, {3, 5}, {3, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Stack(1, xs...) }},
		{"Stack", [][]int{{}, {}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Stack(0, xs...) }},
		{"Pad", [][]int{{7, 63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Pad(xs[0], 0, 1, 2, 3, 0) }},
		{"PadValueCrop", [][]int{{65, 7}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Pad(xs[0], -1.5, -2, 3, 1, -1) }},
		{"PadScalar", [][]int{{}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Pad(xs[0], 0) }},
		{"PadReflect", [][]int{{2, 3, 7}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.PadWith(xs[0], autograd.PadReflect, 3, 2, 1, 2)
		}},
		{"PadCircular", [][]int{{2, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.PadWith(xs[0], autograd.PadCircular, 63, 1)
		}},
		{"Transpose", [][]int{{63, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Transpose(xs[0], 0, 1) }},
	})
}

func TestIndexOpParity(t *testing.T) {
	idx := []int{6, 0, 6, 3, 6, 1, 0}
	index := make([]int, 3*7*5)
	for i := range index {
		index[i] = (i * 7919) % 7
	}
	checkCases(t, tolElementwise, []opCase{
		{"IndexSelect", [][]int{{3, 7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.IndexSelect(xs[0], 1, idx) }},
		{"IndexSelectEmpty", [][]int{{7}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.IndexSelect(xs[0], 0, nil) }},
		{"IndexAdd", [][]int{{7, 65}, {7, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.IndexAdd(xs[0], 0, idx, xs[1]) }},
		{"Gather", [][]int{{3, 7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Gather(xs[0], 1, index) }},
		{"ScatterAdd", [][]int{{3, 7, 5}, {3, 7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.ScatterAdd(xs[0], 1, index, xs[1])
		}},
	})
}

func TestConvParity(t *testing.T) {
	conv2d := func(cfg autograd.Conv2dConfig) func(xs ...*autograd.Tensor) *autograd.Tensor {
		return func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Conv2d(xs[0], xs[1], xs[2], cfg) }
	}
	checkCases(t, tolReduce, []opCase{
		{"Conv2d", [][]int{{2, 3, 7, 9}, {5, 3, 3, 3}, {5}}, conv2d(autograd.Conv2dConfig{Padding: [2]int{1, 1}})},
		{"Conv2dGroups", [][]int{{3, 4, 9, 7}, {6, 2, 3, 2}, {6}}, conv2d(autograd.Conv2dConfig{
			Stride: [2]int{2, 1}, Padding: [2]int{2, 0}, Dilation: [2]int{1, 2}, Groups: 2})},
		{"Conv2dReflect", [][]int{{1, 2, 5, 6}, {2, 2, 3, 3}, {2}}, conv2d(autograd.Conv2dConfig{
			Padding: [2]int{1, 2}, Mode: autograd.PadReflect})},
		{"Conv2dEmpty", [][]int{{0, 2, 4, 4}, {3, 2, 3, 3}, {3}}, conv2d(autograd.Conv2dConfig{})},
		{"Conv1d", [][]int{{2, 4, 65}, {6, 2, 7}, {6}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.Conv1d(xs[0], xs[1], xs[2], autograd.Conv1dConfig{Stride: 2, Padding: 3, Dilation: 2, Groups: 2})
		}},
	})
}
