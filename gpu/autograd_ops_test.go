package gpu

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// Parity of autograd's elementwise and reduction ops on the GPU with the
// CPU, forward and every input gradient, on awkward shapes.

// unaryCases are the functions of one tensor checked by TestUnaryParity,
// each with the range its inputs are drawn from.
var unaryCases = []struct {
	name   string
	lo, hi float64
	f      func(*autograd.Tensor) *autograd.Tensor
}{
	{"Neg", -3, 3, autograd.Neg},
	{"Abs", -3, 3, autograd.Abs},
	{"Sign", -3, 3, autograd.Sign},
	{"Exp", -3, 3, autograd.Exp},
	{"Log", 0.1, 5, autograd.Log},
	{"Log2", 0.1, 5, autograd.Log2},
	{"Log10", 0.1, 5, autograd.Log10},
	{"Sqrt", 0.1, 5, autograd.Sqrt},
	{"Sin", -3, 3, autograd.Sin},
	{"Cos", -3, 3, autograd.Cos},
	{"Tanh", -3, 3, autograd.Tanh},
	{"Sigmoid", -6, 6, autograd.Sigmoid},
	{"Relu", -3, 3, autograd.Relu},
	{"Gelu", -4, 4, autograd.Gelu},
	{"GeluTanh", -4, 4, autograd.GeluTanh},
	{"Silu", -4, 4, autograd.Silu},
	{"Softplus", -6, 6, autograd.Softplus},
	{"Floor", -3, 3, autograd.Floor},
	{"Ceil", -3, 3, autograd.Ceil},
	{"Round", -3, 3, autograd.Round},
	{"Trunc", -3, 3, autograd.Trunc},
	{"Square", -3, 3, autograd.Square},
	{"AddScalar", -3, 3, func(t *autograd.Tensor) *autograd.Tensor { return autograd.AddScalar(t, 0.25) }},
	{"MulScalar", -3, 3, func(t *autograd.Tensor) *autograd.Tensor { return autograd.MulScalar(t, -1.5) }},
	{"DivScalar", -3, 3, func(t *autograd.Tensor) *autograd.Tensor { return autograd.DivScalar(t, 3) }},
	{"PowScalar", 0.1, 3, func(t *autograd.Tensor) *autograd.Tensor { return autograd.PowScalar(t, 2.5) }},
	{"PowScalarOdd", -3, 3, func(t *autograd.Tensor) *autograd.Tensor { return autograd.PowScalar(t, 3) }},
	{"LeakyRelu", -3, 3, func(t *autograd.Tensor) *autograd.Tensor { return autograd.LeakyRelu(t, 0.1) }},
	{"Clamp", -3, 3, func(t *autograd.Tensor) *autograd.Tensor { return autograd.Clamp(t, -1, 0.5) }},
	{"Std", -3, 3, func(t *autograd.Tensor) *autograd.Tensor { return autograd.Std(t, 0, false) }},
}

func TestUnaryParity(t *testing.T) {
	testAutograd(t)
	for i, c := range unaryCases {
		t.Run(c.name, func(t *testing.T) {
			for _, shape := range awkwardShapes {
				f := func(xs ...*autograd.Tensor) *autograd.Tensor { return c.f(xs[0]) }
				tol := tolElementwise
				if c.name == "Std" {
					tol = tolReduce
				}
				checkParity(t, tol, f, randTensor(uint64(i), c.lo, c.hi, shape...))
			}
		})
	}
}

// binaryCases are the functions of two tensors checked by
// TestBinaryParity, with the range of their operands.
var binaryCases = []struct {
	name   string
	lo, hi float64
	f      func(a, b *autograd.Tensor) *autograd.Tensor
}{
	{"Add", -3, 3, autograd.Add},
	{"Sub", -3, 3, autograd.Sub},
	{"Mul", -3, 3, autograd.Mul},
	{"Div", 0.5, 3, autograd.Div},
	{"Pow", 0.5, 2, autograd.Pow},
	{"Maximum", -3, 3, autograd.Maximum},
	{"Minimum", -3, 3, autograd.Minimum},
	{"Gt", -3, 3, autograd.Gt},
	{"Ge", -3, 3, autograd.Ge},
	{"Lt", -3, 3, autograd.Lt},
	{"Le", -3, 3, autograd.Le},
	{"Eq", -3, 3, autograd.Eq},
	{"Where", -3, 3, func(a, b *autograd.Tensor) *autograd.Tensor { return autograd.Where(autograd.Gt(a, b), a, b) }},
}

// broadcastPairs are the operand shapes of the binary ops: equal shapes,
// PyTorch's broadcasts both ways, scalars, empty tensors.
var broadcastPairs = [][2][]int{
	{{7}, {7}}, {{65}, {65}}, {{3, 1, 5}, {4, 5}}, {{4, 5}, {3, 1, 5}}, {{}, {63}}, {{63}, {}},
	{{}, {}}, {{2, 0, 3}, {3}}, {{1000}, {1}}, {{5, 1}, {1, 7}},
}

func TestBinaryParity(t *testing.T) {
	testAutograd(t)
	for i, c := range binaryCases {
		t.Run(c.name, func(t *testing.T) {
			for j, p := range broadcastPairs {
				a := randTensor(uint64(10*i+j), c.lo, c.hi, p[0]...)
				b := randTensor(uint64(10*i+j+1000), c.lo, c.hi, p[1]...)
				if c.name == "Maximum" || c.name == "Eq" {
					// Ties: equal elements where the shapes agree.
					if n := min(a.Len(), b.Len()); n > 1 {
						copy(b.Data32()[:n/2], a.Data32()[:n/2])
					}
				}
				checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return c.f(xs[0], xs[1]) }, a, b)
			}
		})
	}
}

// reduceCases are the reductions checked by TestReduceParity over several
// axis sets, with keepdim both ways.
var reduceCases = []struct {
	name string
	f    func(t *autograd.Tensor, keepdim bool, axes ...int) *autograd.Tensor
}{
	{"Sum", autograd.Sum},
	{"Mean", autograd.Mean},
	{"Var", func(t *autograd.Tensor, keepdim bool, axes ...int) *autograd.Tensor {
		return autograd.Var(t, 1, keepdim, axes...)
	}},
	{"Max", autograd.Max},
	{"Min", autograd.Min},
	{"LogSumExp", autograd.LogSumExp},
}

func TestReduceParity(t *testing.T) {
	testAutograd(t)
	shapes := []struct {
		shape []int
		axes  [][]int
	}{
		{[]int{}, [][]int{nil}},
		{[]int{1000}, [][]int{nil, {0}}},
		{[]int{3, 7, 5}, [][]int{nil, {1}, {0, 2}, {-1}}},
		{[]int{65, 1}, [][]int{{0}, {1}}},
		{[]int{3, 700, 2}, [][]int{{1}, {0, 1}}}, // long axes: a workgroup per output
	}
	for i, c := range reduceCases {
		t.Run(c.name, func(t *testing.T) {
			for _, s := range shapes {
				x := randTensor(uint64(i), -2, 2, s.shape...)
				if c.name == "Max" || c.name == "Min" {
					// Ties split the gradient: make some.
					for j := range x.Data32() {
						if j%3 == 0 {
							x.Data32()[j] = 1.5
						}
					}
				}
				for _, ax := range s.axes {
					for _, keep := range []bool{false, true} {
						t.Run(fmt.Sprint(s.shape, ax, keep), func(t *testing.T) {
							checkParity(t, tolReduce, func(xs ...*autograd.Tensor) *autograd.Tensor { return c.f(xs[0], keep, ax...) }, x)
						})
					}
				}
			}
		})
	}
}

func TestSoftmaxParity(t *testing.T) {
	testAutograd(t)
	// [3, 300, 2] and [2, 1000] along their long axes take
	// softmax_wide.wgsl (a workgroup per slice), the rest softmax.wgsl.
	for _, shape := range [][]int{{}, {7}, {3, 65}, {4, 1, 6}, {3, 300, 2}, {2, 1000}} {
		for axis := range max(len(shape), 1) {
			x := randTensor(3, -5, 5, shape...)
			t.Run(fmt.Sprint(shape, axis), func(t *testing.T) {
				checkParity(t, tolReduce, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Softmax(xs[0], axis) }, x)
				checkParity(t, tolReduce, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.LogSoftmax(xs[0], axis) }, x)
			})
		}
	}
}

func TestArgReduceParity(t *testing.T) {
	a := testAutograd(t)
	x := randTensor(5, -2, 2, 4, 65, 3)
	for i := range x.Data32() {
		switch {
		case i%7 == 0:
			x.Data32()[i] = 1.9 // ties: the first wins
		case i == 200:
			x.Data32()[i] = float32(math.NaN()) // a NaN wins its slice
		}
	}
	d, err := x.To(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    func(*autograd.Tensor, int) []int
	}{{"ArgMax", autograd.ArgMax}, {"ArgMin", autograd.ArgMin}} {
		for axis := range 3 {
			want, got := c.f(x, axis), c.f(d, axis)
			if !slices.Equal(got, want) {
				t.Errorf("%s along %d: GPU %v, CPU %v", c.name, axis, got, want)
			}
		}
	}
}

// TestSpecialValuesParity checks the ops whose results at 0, ±Inf and NaN
// the CPU defines (docs/autograd.md, Special values) on the GPU: the same
// infinities and NaNs, in the outputs and the gradients.
func TestSpecialValuesParity(t *testing.T) {
	testAutograd(t)
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	x := autograd.New([]float32{0, float32(math.Copysign(0, -1)), 1, -1, inf, -inf, nan, 100, -100, 2}, 10)
	y := autograd.New([]float32{0, 1, 1, nan, inf, 3, 2, -inf, -100, 2}, 10)
	unary := map[string]func(*autograd.Tensor) *autograd.Tensor{
		"Log": autograd.Log, "Sqrt": autograd.Sqrt, "Relu": autograd.Relu, "Abs": autograd.Abs,
		"Exp": autograd.Exp, "Sigmoid": autograd.Sigmoid, "Tanh": autograd.Tanh, "Sign": autograd.Sign,
		"Softplus": autograd.Softplus, "Gelu": autograd.Gelu, "Silu": autograd.Silu,
		"Clamp":   func(t *autograd.Tensor) *autograd.Tensor { return autograd.Clamp(t, -1, 1) },
		"Max":     func(t *autograd.Tensor) *autograd.Tensor { return autograd.Max(t, false) },
		"PowZero": func(t *autograd.Tensor) *autograd.Tensor { return autograd.PowScalar(t, 0) },
		"Div":     func(t *autograd.Tensor) *autograd.Tensor { return autograd.Div(autograd.Scalar(1), t) },
	}
	for _, name := range slices.Sorted(maps.Keys(unary)) {
		t.Run(name, func(t *testing.T) {
			checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return unary[name](xs[0]) }, x)
		})
	}
	t.Run("Maximum", func(t *testing.T) {
		checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Maximum(xs[0], xs[1]) }, x, y)
	})
	t.Run("Softmax", func(t *testing.T) {
		logits := autograd.New([]float32{-inf, -inf, 0, 1, -inf, inf, 2, 3}, 4, 2)
		checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Softmax(xs[0], 1) }, logits)
		checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.LogSoftmax(xs[0], 1) }, logits)
	})
	t.Run("SoftmaxWide", func(t *testing.T) {
		// Rows long enough for softmax_wide.wgsl: all -Inf, one +Inf, a
		// NaN late in the row, and finite values.
		const n = 300
		rows := make([]float32, 4*n)
		for i := range n {
			rows[i] = -inf
			rows[n+i], rows[2*n+i], rows[3*n+i] = float32(i%7), float32(i%5)-2, float32(i%11)/3
		}
		rows[n+250] = inf
		rows[2*n+299] = nan
		x := autograd.New(rows, 4, n)
		checkParity(t, tolReduce, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Softmax(xs[0], 1) }, x)
		checkParity(t, tolReduce, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.LogSoftmax(xs[0], 1) }, x)
	})
	t.Run("Std", func(t *testing.T) {
		zeros := autograd.New([]float32{2, 2, 2}, 3)
		checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Std(xs[0], 0, false) }, zeros)
	})
}

// TestStridedParity checks the copies of Expand, Permute and Transpose, and
// Reshape's view, with their gradients (sums back over broadcast axes).
func TestStridedParity(t *testing.T) {
	testAutograd(t)
	cases := map[string]struct {
		f func(*autograd.Tensor) *autograd.Tensor
		x *autograd.Tensor
	}{
		"Expand":    {func(x *autograd.Tensor) *autograd.Tensor { return autograd.Expand(x, 4, 3, 65, 5) }, randTensor(1, -1, 1, 3, 1, 5)},
		"Expand0D":  {func(x *autograd.Tensor) *autograd.Tensor { return autograd.Expand(x, 7, 2) }, randTensor(2, -1, 1)},
		"Permute":   {func(x *autograd.Tensor) *autograd.Tensor { return autograd.Permute(x, 2, 0, 1) }, randTensor(3, -1, 1, 3, 7, 65)},
		"Transpose": {func(x *autograd.Tensor) *autograd.Tensor { return autograd.Transpose(x, 0, 1) }, randTensor(4, -1, 1, 63, 7)},
		"Reshape":   {func(x *autograd.Tensor) *autograd.Tensor { return autograd.Exp(autograd.Reshape(x, 5, -1)) }, randTensor(5, -1, 1, 3, 1, 5)},
		"Empty": {func(x *autograd.Tensor) *autograd.Tensor {
			return autograd.Permute(autograd.Expand(x, 2, 0, 3), 1, 2, 0)
		}, randTensor(6, -1, 1, 0, 3)},
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			checkParity(t, tolElementwise, func(xs ...*autograd.Tensor) *autograd.Tensor { return c.f(xs[0]) }, c.x)
		})
	}
}

// TestSecondOrderParity differentiates a gradient computed with CreateGraph
// on both devices: backward rules are ops, so they run, and differentiate,
// on the GPU too.
func TestSecondOrderParity(t *testing.T) {
	testAutograd(t)
	f := func(xs ...*autograd.Tensor) *autograd.Tensor {
		y := autograd.Sum(autograd.Mul(autograd.Tanh(xs[0]), autograd.Softmax(xs[1], -1)), false)
		g, err := autograd.Grad(y, xs, autograd.BackwardOptions{CreateGraph: true})
		if err != nil {
			t.Fatal(err)
		}
		return autograd.Add(autograd.Square(g[0]), g[1])
	}
	checkParity(t, tolReduce, f, randTensor(1, -2, 2, 3, 7), randTensor(2, -2, 2, 7))
}
