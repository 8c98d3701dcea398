package autograd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradGradOps checks, for every op of unary.go, activation.go,
// reduce.go, cumulative.go and index.go, the gradient of sum(gradient·w)
// against central differences of the gradient (CheckGradGrad): the
// backward rules are themselves differentiable. Inputs stay away from kinks
// and ties, where the second derivative is not defined.
func TestGradGradOps(t *testing.T) {
	for _, c := range gradGradCases() {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(17, 19))
			if err := CheckGradGrad(c.f, c.in(rng), 1e-6, 1e-5); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func gradGradCases() []gradCase {
	gen := func(f func(r *rand.Rand, shape ...int) *Tensor, shape ...int) func(*rand.Rand) []*Tensor {
		return func(r *rand.Rand) []*Tensor { return []*Tensor{f(r, shape...)} }
	}
	u := func(r *rand.Rand, shape ...int) *Tensor { return uniform(r, -1, 1, shape...) }
	wide := func(r *rand.Rand, shape ...int) *Tensor { return uniform(r, -4, 4, shape...) }
	pos := func(r *rand.Rand, shape ...int) *Tensor { return uniform(r, 0.5, 2, shape...) }
	offGrid := func(r *rand.Rand, shape ...int) *Tensor {
		return AddScalar(Floor(uniform(r, -3, 3, shape...)), 0.3)
	}
	// zeros puts exact zeros at the second and last elements.
	zeros := func(r *rand.Rand, shape ...int) *Tensor {
		x := uniform(r, 0.5, 1.5, shape...)
		x.SetAt(1, 0)
		x.SetAt(x.Len()-1, 0)
		return x
	}
	oneZero := func(r *rand.Rand, shape ...int) *Tensor {
		x := uniform(r, 0.5, 1.5, shape...)
		x.SetAt(2, 0)
		return x
	}
	one := func(f func(*Tensor) *Tensor) func([]*Tensor) *Tensor {
		return func(x []*Tensor) *Tensor { return f(x[0]) }
	}
	two := func(a, b func(*rand.Rand, ...int) *Tensor, sa, sb []int) func(*rand.Rand) []*Tensor {
		return func(r *rand.Rand) []*Tensor { return []*Tensor{a(r, sa...), b(r, sb...)} }
	}
	return []gradCase{
		// unary.go
		{"Abs", gen(awayFromZero, 6), one(Abs)},
		{"Sign", gen(awayFromZero, 6), one(Sign)},
		{"Exp", gen(u, 6), one(Exp)},
		{"Log", gen(pos, 6), one(Log)},
		{"Log2", gen(pos, 6), one(Log2)},
		{"Log10", gen(pos, 6), one(Log10)},
		{"Sqrt", gen(pos, 6), one(Sqrt)},
		{"Sin", gen(u, 6), one(Sin)},
		{"Cos", gen(u, 6), one(Cos)},
		{"Tanh", gen(u, 6), one(Tanh)},
		{"Sigmoid", gen(wide, 6), one(Sigmoid)},
		{"Relu", gen(awayFromZero, 6), one(Relu)},
		{"LeakyRelu", gen(awayFromZero, 6), one(func(a *Tensor) *Tensor { return LeakyRelu(a, 0.1) })},
		{"Gelu", gen(wide, 6), one(Gelu)},
		{"GeluTanh", gen(wide, 6), one(GeluTanh)},
		{"Silu", gen(wide, 6), one(Silu)},
		{"Softplus", gen(wide, 6), one(Softplus)},
		{"Floor", gen(offGrid, 6), one(Floor)},
		{"Ceil", gen(offGrid, 6), one(Ceil)},
		{"Round", gen(offGrid, 6), one(Round)},
		{"Trunc", gen(offGrid, 6), one(Trunc)},
		{"Clamp", gen(distinct, 8), one(func(a *Tensor) *Tensor { return Clamp(a, -0.45, 0.25) })},
		{"Where", two(u, u, []int{3, 4}, []int{4}), func(x []*Tensor) *Tensor {
			return Where(Gt(x[0], Zeros(Float64)), Square(x[0]), Exp(x[1]))
		}},

		// activation.go
		{"SoftplusWith", gen(wide, 8), one(func(a *Tensor) *Tensor { return SoftplusWith(a, 1.5, 3) })},
		{"Elu", gen(awayFromZero, 6), one(func(a *Tensor) *Tensor { return Elu(a, 0.7) })},
		{"Selu", gen(awayFromZero, 6), one(Selu)},
		{"Mish", gen(wide, 6), one(Mish)},
		{"Hardtanh", gen(distinct, 8), one(func(a *Tensor) *Tensor { return Hardtanh(a, -0.45, 0.25) })},
		{"Hardswish", gen(wide, 8), one(Hardswish)},

		// reduce.go
		{"Sum/axes 0,2", gen(u, 2, 3, 4), one(func(a *Tensor) *Tensor { return Sum(Square(a), false, 0, 2) })},
		{"Mean/axis 1", gen(u, 2, 3, 4), one(func(a *Tensor) *Tensor { return Mean(Square(a), true, 1) })},
		{"Var/axis 1", gen(u, 2, 5, 3), one(func(a *Tensor) *Tensor { return Var(a, 1, false, 1) })},
		{"Std/axes 0,2", gen(u, 3, 2, 4), one(func(a *Tensor) *Tensor { return Std(a, 1, false, 0, 2) })},
		{"Norm/1", gen(awayFromZero, 3, 4), one(func(a *Tensor) *Tensor { return Norm(a, 1, false, 1) })},
		{"Norm/2", gen(u, 3, 4), one(func(a *Tensor) *Tensor { return Norm(a, 2, true, 0) })},
		{"Norm/inf", gen(distinct, 3, 4), one(func(a *Tensor) *Tensor { return Norm(Square(a), math.Inf(1), false) })},
		{"Max/axis 0", gen(distinct, 4, 3), one(func(a *Tensor) *Tensor { return Max(Square(a), false, 0) })},
		{"Min/all", gen(distinct, 2, 3, 2), one(func(a *Tensor) *Tensor { return Min(Exp(a), false) })},
		{"MaxDim", gen(distinct, 4, 3), one(func(a *Tensor) *Tensor { v, _ := MaxDim(Square(a), 1, false); return v })},
		{"MinDim", gen(distinct, 4, 3), one(func(a *Tensor) *Tensor { v, _ := MinDim(Exp(a), 0, true); return v })},
		{"LogSumExp/axis 1", gen(u, 3, 4), one(func(a *Tensor) *Tensor { return LogSumExp(a, false, 1) })},
		{"LogSumExp/all", gen(u, 3, 4), one(func(a *Tensor) *Tensor { return LogSumExp(a, true) })},

		// cumulative.go
		{"Cumsum", gen(u, 2, 4, 3), one(func(a *Tensor) *Tensor { return Cumsum(Square(a), 1) })},
		{"Cumprod", gen(pos, 2, 4), one(func(a *Tensor) *Tensor { return Cumprod(a, 1) })},
		{"Cumprod/zeros", gen(zeros, 3, 4), one(func(a *Tensor) *Tensor { return Cumprod(a, -1) })},
		{"Prod", gen(pos, 2, 3), one(func(a *Tensor) *Tensor { return Prod(a, false, 1) })},
		{"Prod/one zero", gen(oneZero, 5), one(func(a *Tensor) *Tensor { return Prod(a, false) })},
		{"Prod/two zeros", gen(zeros, 2, 3), one(func(a *Tensor) *Tensor { return Prod(a, false, 0, 1) })},

		// index.go
		{"IndexSelect", gen(u, 4, 3), one(func(a *Tensor) *Tensor { return IndexSelect(Square(a), 0, []int{3, 0, 3, 1}) })},
		{"IndexAdd", two(u, u, []int{3, 2}, []int{4, 2}), func(x []*Tensor) *Tensor {
			return IndexAdd(Square(x[0]), 0, []int{0, 2, 0, 1}, Mul(x[1], x[1]))
		}},
		{"IndexAddAlpha", two(u, u, []int{3, 2}, []int{4, 2}), func(x []*Tensor) *Tensor {
			return IndexAddAlpha(x[0], 0, []int{0, 2, 0, 1}, Exp(x[1]), -1.5)
		}},
		{"Gather", gen(u, 3, 4), one(func(a *Tensor) *Tensor { return Gather(Square(a), 1, []int{3, 3, 0, 1, 2, 1}) })},
		{"GatherShaped", gen(u, 3, 4), one(func(a *Tensor) *Tensor { return GatherShaped(Exp(a), 1, []int{3, 0, 1, 1}, []int{2, 2}) })},
		{"ScatterAdd", two(u, u, []int{2, 4}, []int{2, 3}), func(x []*Tensor) *Tensor {
			return ScatterAdd(Square(x[0]), 1, []int{0, 0, 3, 1, 2, 1}, Exp(x[1]))
		}},
		{"ScatterAddShaped", two(u, u, []int{3, 4}, []int{3, 3}), func(x []*Tensor) *Tensor {
			return ScatterAddShaped(x[0], 0, []int{2, 0, 1, 2}, []int{2, 2}, Square(x[1]))
		}},
	}
}
