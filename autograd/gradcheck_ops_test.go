package autograd

import (
	"math/rand/v2"
	"testing"
)

// gradCase is one gradient check: f applied to inputs made by in.
type gradCase struct {
	name string
	in   func(rng *rand.Rand) []*Tensor
	f    func(x []*Tensor) *Tensor
}

func conv2d(cfg Conv2dConfig) func([]*Tensor) *Tensor {
	return func(x []*Tensor) *Tensor { return Conv2d(x[0], x[1], x[2], cfg) }
}

// TestGradCheckOps checks every op's backward rule against central finite
// differences in float64.
func TestGradCheckOps(t *testing.T) {
	for _, c := range gradCases() {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 11))
			if err := CheckGrad(c.f, c.in(rng), 1e-6, 1e-6); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func gradCases() []gradCase {
	u := func(shape ...int) func(*rand.Rand) *Tensor {
		return func(r *rand.Rand) *Tensor { return uniform(r, -1, 1, shape...) }
	}
	pos := func(shape ...int) func(*rand.Rand) *Tensor {
		return func(r *rand.Rand) *Tensor { return uniform(r, 0.5, 2, shape...) }
	}
	nz := func(shape ...int) func(*rand.Rand) *Tensor {
		return func(r *rand.Rand) *Tensor { return awayFromZero(r, shape...) }
	}
	offGrid := func(shape ...int) func(*rand.Rand) *Tensor {
		return func(r *rand.Rand) *Tensor { return AddScalar(MulScalar(Floor(uniform(r, -3, 3, shape...)), 1), 0.3) }
	}
	dist := func(shape ...int) func(*rand.Rand) *Tensor {
		return func(r *rand.Rand) *Tensor { return distinct(r, shape...) }
	}
	in := func(gens ...func(*rand.Rand) *Tensor) func(*rand.Rand) []*Tensor {
		return func(r *rand.Rand) []*Tensor {
			ts := make([]*Tensor, len(gens))
			for i, g := range gens {
				ts[i] = g(r)
			}
			return ts
		}
	}
	one := func(f func(*Tensor) *Tensor) func([]*Tensor) *Tensor {
		return func(x []*Tensor) *Tensor { return f(x[0]) }
	}
	two := func(f func(a, b *Tensor) *Tensor) func([]*Tensor) *Tensor {
		return func(x []*Tensor) *Tensor { return f(x[0], x[1]) }
	}
	return []gradCase{
		// Broadcasting arithmetic: d(a+b) sums back over broadcast axes.
		{"Add/same", in(u(2, 3), u(2, 3)), two(Add)},
		{"Add/[3,1,5]+[3,4,5]", in(u(3, 1, 5), u(3, 4, 5)), two(Add)},
		{"Add/[4]+[3,4]", in(u(4), u(3, 4)), two(Add)},
		{"Add/scalar+[2,3]", in(u(), u(2, 3)), two(Add)},
		{"Sub/[3,1]-[1,4]", in(u(3, 1), u(1, 4)), two(Sub)},
		{"Mul/[2,1,3]*[4,1]", in(u(2, 1, 3), u(4, 1)), two(Mul)},
		{"Div/[3,4]/[4]", in(u(3, 4), nz(4)), two(Div)},
		{"Pow/tensor exponent", in(pos(2, 3), u(2, 3)), two(Pow)},
		{"Pow/broadcast exponent", in(pos(2, 3), u(3)), two(Pow)},
		{"Maximum", in(dist(3, 4), u(4)), two(Maximum)},
		{"Minimum", in(dist(3, 4), u(3, 1)), two(Minimum)},
		{"Neg", in(u(5)), one(Neg)},
		{"AddScalar", in(u(2, 2)), one(func(a *Tensor) *Tensor { return AddScalar(a, 3) })},
		{"SubScalar", in(u(2, 2)), one(func(a *Tensor) *Tensor { return SubScalar(a, 3) })},
		{"RSubScalar", in(u(2, 2)), one(func(a *Tensor) *Tensor { return RSubScalar(a, 3) })},
		{"MulScalar", in(u(2, 2)), one(func(a *Tensor) *Tensor { return MulScalar(a, -2.5) })},
		{"DivScalar", in(u(2, 2)), one(func(a *Tensor) *Tensor { return DivScalar(a, 4) })},
		{"PowScalar/3", in(u(2, 2)), one(func(a *Tensor) *Tensor { return PowScalar(a, 3) })},
		{"PowScalar/0.5", in(pos(2, 2)), one(func(a *Tensor) *Tensor { return PowScalar(a, 0.5) })},
		{"Square", in(u(3)), one(Square)},
		{"Reused/a*a", in(u(4)), one(func(a *Tensor) *Tensor { return Mul(a, a) })},
		{"Reused/diamond", in(u(4)), one(func(a *Tensor) *Tensor { b := Exp(a); return Add(Mul(b, a), Sin(b)) })},

		// Elementwise.
		{"Abs", in(nz(6)), one(Abs)},
		{"Exp", in(u(6)), one(Exp)},
		{"Log", in(pos(6)), one(Log)},
		{"Log2", in(pos(6)), one(Log2)},
		{"Log10", in(pos(6)), one(Log10)},
		{"Sqrt", in(pos(6)), one(Sqrt)},
		{"Sin", in(u(6)), one(Sin)},
		{"Cos", in(u(6)), one(Cos)},
		{"Tanh", in(u(6)), one(Tanh)},
		{"Sigmoid", in(u(6)), one(Sigmoid)},
		{"Relu", in(nz(6)), one(Relu)},
		{"LeakyRelu", in(nz(6)), one(func(a *Tensor) *Tensor { return LeakyRelu(a, 0.1) })},
		{"Gelu", in(u(6)), one(Gelu)},
		{"GeluTanh", in(u(6)), one(GeluTanh)},
		{"Silu", in(u(6)), one(Silu)},
		{"Softplus", in(u(6)), one(Softplus)},
		// The rounding ops have zero gradient almost everywhere; inputs
		// stay away from the jumps.
		{"Sign", in(nz(6)), one(Sign)},
		{"Floor", in(offGrid(6)), one(Floor)},
		{"Ceil", in(offGrid(6)), one(Ceil)},
		{"Round", in(offGrid(6)), one(Round)},
		{"Trunc", in(offGrid(6)), one(Trunc)},
		{"Clamp", in(dist(8)), one(func(a *Tensor) *Tensor { return Clamp(a, -0.45, 0.25) })},
		{"Where", in(u(3, 4), u(4)), two(func(a, b *Tensor) *Tensor { return Where(Gt(a, Zeros(Float64)), a, b) })},

		// Reductions.
		{"Sum/all", in(u(2, 3, 4)), one(func(a *Tensor) *Tensor { return Sum(a, false) })},
		{"Sum/axes 0,2", in(u(2, 3, 4)), one(func(a *Tensor) *Tensor { return Sum(a, false, 0, 2) })},
		{"Sum/keepdim -1", in(u(2, 3, 4)), one(func(a *Tensor) *Tensor { return Sum(a, true, -1) })},
		{"Mean/axis 1", in(u(2, 3, 4)), one(func(a *Tensor) *Tensor { return Mean(a, false, 1) })},
		{"Var/axis 1", in(u(2, 5, 3)), one(func(a *Tensor) *Tensor { return Var(a, 1, false, 1) })},
		{"Var/all population", in(u(4, 3)), one(func(a *Tensor) *Tensor { return Var(a, 0, true) })},
		{"Max/axis 0", in(dist(4, 3)), one(func(a *Tensor) *Tensor { return Max(a, false, 0) })},
		{"Max/all", in(dist(2, 3, 2)), one(func(a *Tensor) *Tensor { return Max(a, false) })},
		{"Min/axes 1,2 keepdim", in(dist(2, 3, 2)), one(func(a *Tensor) *Tensor { return Min(a, true, 1, 2) })},
		{"LogSumExp/axis 1", in(u(3, 4)), one(func(a *Tensor) *Tensor { return LogSumExp(a, false, 1) })},
		{"LogSumExp/all keepdim", in(u(3, 4)), one(func(a *Tensor) *Tensor { return LogSumExp(a, true) })},
		{"Softmax/axis -1", in(u(3, 4)), one(func(a *Tensor) *Tensor { return Softmax(a, -1) })},
		{"Softmax/axis 0", in(u(3, 2, 2)), one(func(a *Tensor) *Tensor { return Softmax(a, 0) })},
		{"LogSoftmax/axis 1", in(u(2, 3, 2)), one(func(a *Tensor) *Tensor { return LogSoftmax(a, 1) })},

		// Shape and index ops.
		{"Reshape", in(u(2, 6)), one(func(a *Tensor) *Tensor { return Mul(Reshape(a, 3, -1), Reshape(a, 3, 4)) })},
		{"Narrow", in(u(3, 5)), one(func(a *Tensor) *Tensor { return Narrow(a, 1, 1, 3) })},
		{"Cat", in(u(2, 3), u(2, 1), u(2, 2)), func(x []*Tensor) *Tensor { return Cat(1, x[0], x[1], x[2]) }},
		{"Cat/axis 0", in(u(1, 3), u(2, 3)), two(func(a, b *Tensor) *Tensor { return Cat(0, a, b) })},
		{"Stack", in(u(2, 3), u(2, 3)), two(func(a, b *Tensor) *Tensor { return Stack(1, a, b) })},
		{"IndexSelect/repeats", in(u(4, 3)), one(func(a *Tensor) *Tensor { return IndexSelect(a, 0, []int{3, 0, 3, 1}) })},
		{"IndexSelect/axis 1", in(u(2, 4, 2)), one(func(a *Tensor) *Tensor { return IndexSelect(a, 1, []int{2, 2}) })},
		{"IndexAdd", in(u(3, 2), u(4, 2)), two(func(a, b *Tensor) *Tensor { return IndexAdd(a, 0, []int{0, 2, 0, 1}, b) })},
		{"Gather", in(u(3, 4)), one(func(a *Tensor) *Tensor { return Gather(a, 1, []int{3, 3, 0, 1, 2, 1}) })},
		{"ScatterAdd", in(u(2, 4), u(2, 3)), two(func(a, b *Tensor) *Tensor { return ScatterAdd(a, 1, []int{0, 0, 3, 1, 2, 1}, b) })},
		{"Permute", in(u(2, 3, 4)), one(func(a *Tensor) *Tensor { return Permute(a, 2, 0, 1) })},
		{"Transpose", in(u(2, 3)), one(func(a *Tensor) *Tensor { return Transpose(a, 0, 1) })},
		{"Expand", in(u(3, 1)), one(func(a *Tensor) *Tensor { return Expand(a, 2, 3, 4) })},
		{"MatMul/2-D", in(u(3, 4), u(4, 2)), two(MatMul)},
		{"MatMul/batched broadcast", in(u(2, 1, 3, 4), u(3, 4, 2)), two(MatMul)},
		{"MatMul/vector-matrix", in(u(4), u(4, 3)), two(MatMul)},
		{"MatMul/matrix-vector", in(u(2, 3, 4), u(4)), two(MatMul)},
		{"MatMul/vector-vector", in(u(4), u(4)), two(MatMul)},
		{"Dot", in(u(5), u(5)), two(Dot)},
		{"Outer", in(u(3), u(4)), two(Outer)},
		{"Linear", in(u(2, 3, 4), u(5, 4), u(5)), func(x []*Tensor) *Tensor { return Linear(x[0], x[1], x[2]) }},
		{"Conv2d/plain", in(u(2, 2, 5, 5), u(3, 2, 3, 3), u(3)), conv2d(Conv2dConfig{})},
		{"Conv2d/stride padding", in(u(2, 2, 6, 5), u(3, 2, 3, 2), u(3)), conv2d(Conv2dConfig{Stride: [2]int{2, 1}, Padding: [2]int{1, 2}})},
		{"Conv2d/dilation", in(u(1, 2, 7, 7), u(2, 2, 3, 3), u(2)), conv2d(Conv2dConfig{Dilation: [2]int{2, 3}, Padding: [2]int{1, 1}})},
		{"Conv2d/groups", in(u(5, 4, 5, 5), u(6, 2, 2, 3), u(6)), conv2d(Conv2dConfig{Groups: 2, Stride: [2]int{2, 2}, Padding: [2]int{1, 0}, Dilation: [2]int{1, 2}})},
		{"Conv1d", in(u(2, 4, 9), u(4, 2, 3), u(4)), func(x []*Tensor) *Tensor {
			return Conv1d(x[0], x[1], x[2], Conv1dConfig{Stride: 2, Padding: 1, Dilation: 2, Groups: 2})
		}},
		{"MaxPool2d", in(dist(2, 2, 5, 5)), one(func(a *Tensor) *Tensor { return MaxPool2d(a, 2, 2, 1) })},
		{"MaxPool2d/overlapping", in(dist(1, 2, 5, 4)), one(func(a *Tensor) *Tensor { return MaxPool2d(a, 3, 1, 0) })},
		{"AvgPool2d", in(u(2, 3, 5, 5)), one(func(a *Tensor) *Tensor { return AvgPool2d(a, 3, 2, 1) })},
		{"Dropout", in(u(4, 5)), one(func(a *Tensor) *Tensor { return Dropout(a, 0.4, true, rand.New(rand.NewPCG(3, 4))) })},
		{"Pad", in(u(2, 3)), one(func(a *Tensor) *Tensor { return Pad(a, 0.5, 1, 2, 0, 1) })},
		{"Flatten", in(u(2, 3, 2)), one(func(a *Tensor) *Tensor { return Mul(Flatten(a), Flatten(a)) })},
		{"CustomOp/Apply", in(u(3), u(3)), two(func(a, b *Tensor) *Tensor { return Apply(scaledProduct{}, a, b) })},
		{"Unsqueeze/Squeeze", in(u(2, 3)), one(func(a *Tensor) *Tensor { return Squeeze(Unsqueeze(Exp(a), 1), 1) })},
	}
}

// TestGradCheckCast checks Cast through float32 on a linear function, where
// a large eps keeps float32 rounding out of the finite difference.
func TestGradCheckCast(t *testing.T) {
	f := func(x []*Tensor) *Tensor { return Cast(MulScalar(Cast(x[0], Float32), 3), Float64) }
	if err := CheckGrad(f, []*Tensor{New64([]float64{0.5, -1, 2}, 3)}, 1e-2, 1e-4); err != nil {
		t.Fatal(err)
	}
}

// scaledProduct is a correct custom op, 3·a·b, with its own backward:
// d/da = 3b·g, d/db = 3a·g.
type scaledProduct struct{}

func (scaledProduct) Name() string { return "scaledProduct" }
func (scaledProduct) Forward(in []*Tensor) *Tensor {
	return MulScalar(Mul(in[0], in[1]), 3)
}
func (scaledProduct) Backward(g *Tensor, in []*Tensor, _ *Tensor) []*Tensor {
	return []*Tensor{MulScalar(Mul(g, in[1]), 3), MulScalar(Mul(g, in[0]), 3)}
}

// TestFusedAgainstComposed checks the hand-written forward kernels and
// backward rules of fused ops against the same function composed of
// simpler ops: values and gradients must agree.
func TestFusedAgainstComposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	cases := []struct {
		name            string
		in              []*Tensor
		fused, composed func(x []*Tensor) *Tensor
	}{
		{"Linear", []*Tensor{uniform(rng, -1, 1, 4, 3), uniform(rng, -1, 1, 5, 3), uniform(rng, -1, 1, 5)},
			func(x []*Tensor) *Tensor { return Linear(x[0], x[1], x[2]) },
			func(x []*Tensor) *Tensor { return Add(MatMul(x[0], Transpose(x[1], 0, 1)), x[2]) }},
		{"Softmax", []*Tensor{uniform(rng, -3, 3, 3, 4)},
			func(x []*Tensor) *Tensor { return Softmax(x[0], 1) },
			func(x []*Tensor) *Tensor { e := Exp(x[0]); return Div(e, Sum(e, true, 1)) }},
		{"LogSoftmax", []*Tensor{uniform(rng, -3, 3, 3, 4)},
			func(x []*Tensor) *Tensor { return LogSoftmax(x[0], 0) },
			func(x []*Tensor) *Tensor { return Log(Softmax(x[0], 0)) }},
		{"LogSumExp", []*Tensor{uniform(rng, -3, 3, 3, 4)},
			func(x []*Tensor) *Tensor { return LogSumExp(x[0], false, 1) },
			func(x []*Tensor) *Tensor { return Log(Sum(Exp(x[0]), false, 1)) }},
		{"Gelu", []*Tensor{uniform(rng, -3, 3, 8)},
			func(x []*Tensor) *Tensor { return Gelu(x[0]) },
			func(x []*Tensor) *Tensor { return Mul(x[0], Sigmoid(MulScalar(x[0], 1.702))) }}, // Hendrycks' approximation, within 0.02
		{"Silu", []*Tensor{uniform(rng, -3, 3, 8)},
			func(x []*Tensor) *Tensor { return Silu(x[0]) },
			func(x []*Tensor) *Tensor { return Mul(x[0], Sigmoid(x[0])) }},
		{"Softplus", []*Tensor{uniform(rng, -3, 3, 8)},
			func(x []*Tensor) *Tensor { return Softplus(x[0]) },
			func(x []*Tensor) *Tensor { return Log(AddScalar(Exp(x[0]), 1)) }},
		{"AvgPool2d", []*Tensor{uniform(rng, -1, 1, 1, 2, 4, 4)},
			func(x []*Tensor) *Tensor { return AvgPool2d(x[0], 2, 2, 0) },
			func(x []*Tensor) *Tensor {
				r := Reshape(x[0], 1, 2, 2, 2, 2, 2) // [n, c, i, ki, j, kj]
				return Mean(r, false, 3, 5)
			}},
	}
	for _, c := range cases {
		tol := 1e-12
		if c.name == "Gelu" {
			tol = 0.03
		}
		var vals [2][]float64
		var grads [2][][]float64
		for k, f := range []func([]*Tensor) *Tensor{c.fused, c.composed} {
			xs := make([]*Tensor, len(c.in))
			for i, x := range c.in {
				xs[i] = x.Clone().SetRequiresGrad(true)
			}
			y := f(xs)
			vals[k] = y.Float64s()
			if err := y.BackwardWith(Ones(Float64, y.shape...)); err != nil {
				t.Fatal(err)
			}
			for _, x := range xs {
				grads[k] = append(grads[k], x.Grad().Float64s())
			}
		}
		approxEqual(t, c.name+" value", vals[0], vals[1], tol)
		for i := range grads[0] {
			approxEqual(t, c.name+" gradient", grads[0][i], grads[1][i], tol*10)
		}
	}
}
