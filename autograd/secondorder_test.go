package autograd

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradOfGrad: y = x³ has dy/dx = 3x² and d²y/dx² = 6x, taken with Grad.
func TestGradOfGrad(t *testing.T) {
	x := New64([]float64{-1.5, 0.5, 2}, 3).SetRequiresGrad(true)
	y := Sum(Mul(Square(x), x), false)
	g, err := Grad(y, []*Tensor{x}, BackwardOptions{CreateGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "first", g[0].Float64s(), []float64{6.75, 0.75, 12}, 1e-15)
	if x.Grad() != nil {
		t.Fatal("Grad added into a leaf's Grad")
	}
	gg, err := Grad(Sum(g[0], false), []*Tensor{x}, BackwardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "second", gg[0].Float64s(), []float64{-9, 3, 12}, 1e-15)
	if gg[0].RequiresGrad() || gg[0].IsNoGrad() {
		t.Fatal("a gradient taken without CreateGraph is recorded or NoGrad")
	}
}

// TestBackwardCreateGraph: Backward with CreateGraph leaves a differentiable
// gradient in the leaf; a later plain Backward adds out of place, so the
// recorded gradient keeps its value.
func TestBackwardCreateGraph(t *testing.T) {
	x := Scalar64(3).SetRequiresGrad(true)
	if err := Square(x).BackwardWithOptions(BackwardOptions{CreateGraph: true}); err != nil {
		t.Fatal(err)
	}
	first := x.Grad() // 2x = 6, recorded
	if !first.RequiresGrad() {
		t.Fatal("the gradient of a CreateGraph pass is not recorded")
	}
	x.ZeroGrad()
	if err := first.Backward(); err != nil { // d(2x)/dx = 2
		t.Fatal(err)
	}
	approxEqual(t, "second", x.Grad().Float64s(), []float64{2}, 0)
	keep := x.Grad()
	x.ZeroGrad()
	if err := Square(x).BackwardWithOptions(BackwardOptions{CreateGraph: true}); err != nil {
		t.Fatal(err)
	}
	recorded := x.Grad()
	if err := Square(x).Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "recorded gradient untouched", recorded.Float64s(), []float64{6}, 0)
	approxEqual(t, "sum", x.Grad().Float64s(), []float64{12}, 0)
	approxEqual(t, "earlier", keep.Float64s(), []float64{2}, 0)
}

// TestGradInputs: Grad stops at non-leaf inputs, gives zeros for an unused
// input, refuses an input that needs no gradient, and leaves Grad alone.
func TestGradInputs(t *testing.T) {
	a := New64([]float64{1, 2}, 2).SetRequiresGrad(true)
	b := New64([]float64{3, 4}, 2).SetRequiresGrad(true)
	h := Mul(a, a) // a non-leaf input
	y := Sum(Mul(h, b), false)
	g, err := Grad(y, []*Tensor{h, b, New64([]float64{0}, 1).SetRequiresGrad(true)}, BackwardOptions{RetainGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "dy/dh", g[0].Float64s(), []float64{3, 4}, 0)
	approxEqual(t, "dy/db", g[1].Float64s(), []float64{1, 4}, 0)
	approxEqual(t, "unused", g[2].Float64s(), []float64{0}, 0)
	if a.Grad() != nil || b.Grad() != nil {
		t.Fatal("Grad touched a leaf's Grad")
	}
	if _, err := Grad(y, []*Tensor{New64([]float64{1}, 1)}, BackwardOptions{}); err == nil {
		t.Fatal("Grad accepted an input that requires no gradient")
	}
	// The graph was retained: Backward still runs through it.
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "dy/da", a.Grad().Float64s(), []float64{6, 16}, 0)
}

func TestRetainGrad(t *testing.T) {
	a := New64([]float64{1, -2}, 2).SetRequiresGrad(true)
	h := MulScalar(a, 3).RetainGrad()
	y := Sum(Square(h), false).RetainGrad()
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "dy/dh", h.Grad().Float64s(), []float64{6, -12}, 0) // 2h
	approxEqual(t, "dy/dy", y.Grad().Float64s(), []float64{1}, 0)
	approxEqual(t, "dy/da", a.Grad().Float64s(), []float64{18, -36}, 0)
	plain := MulScalar(a, 3)
	if err := Sum(plain, false).Backward(); err != nil {
		t.Fatal(err)
	}
	if plain.Grad() != nil {
		t.Fatal("a non-leaf kept its gradient without RetainGrad")
	}
}

// firstOrderSquare is x² with a correct gradient computed from raw data,
// recorded with RecordFirstOrder.
func firstOrderSquare(x *Tensor) *Tensor {
	out := mapUnary(x, func(v float64) float64 { return v * v })
	return RecordFirstOrder("firstOrderSquare", out, []*Tensor{x}, func(g *Tensor) []*Tensor {
		return []*Tensor{mapBinary("firstOrderSquare", g, x, func(g, v float64) float64 { return 2 * g * v })}
	})
}

// TestFirstOrderRules: a rule outside the graph gives correct first
// derivatives, and an error (never a silent zero) when differentiated
// again; the same for a CustomOp. CheckGradGrad catches a rule recorded
// with Record that is not differentiable.
func TestFirstOrderRules(t *testing.T) {
	x := New64([]float64{0.5, -1}, 2)
	if err := CheckGrad(func(xs []*Tensor) *Tensor { return firstOrderSquare(xs[0]) }, []*Tensor{x}, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*Tensor) *Tensor{
		"RecordFirstOrder": firstOrderSquare,
		"CustomOp":         func(x *Tensor) *Tensor { return Apply(scaledProduct{}, x, x) },
	} {
		xs := x.Clone().SetRequiresGrad(true)
		g, err := Grad(Sum(f(xs), false), []*Tensor{xs}, BackwardOptions{CreateGraph: true})
		if err != nil {
			t.Fatal(name, err)
		}
		if err := Sum(g[0], false).Backward(); !errors.Is(err, ErrNoSecondOrder) {
			t.Fatalf("%s: second derivative through a first-order rule: %v, want ErrNoSecondOrder", name, err)
		}
	}
	raw := func(xs []*Tensor) *Tensor {
		x := xs[0]
		out := mapUnary(x, func(v float64) float64 { return v * v })
		return Record("rawSquare", out, []*Tensor{x}, func(g *Tensor) []*Tensor {
			return []*Tensor{mapBinary("rawSquare", g, x, func(g, v float64) float64 { return 2 * g * v })}
		})
	}
	if err := CheckGrad(raw, []*Tensor{x}, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
	if err := CheckGradGrad(raw, []*Tensor{x}, 1e-6, 1e-5); err == nil {
		t.Fatal("CheckGradGrad accepted a rule that is not differentiable")
	}
}

// TestGradGradCore checks second derivatives of the core's own ops (the
// arithmetic, products, softmax and shape ops) against finite differences.
func TestGradGradCore(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	u := func(shape ...int) *Tensor { return uniform(rng, -1, 1, shape...) }
	pos := func(shape ...int) *Tensor { return uniform(rng, 0.5, 2, shape...) }
	cases := []struct {
		name string
		in   []*Tensor
		f    func(x []*Tensor) *Tensor
	}{
		{"Add broadcast", []*Tensor{u(3, 1, 2), u(4, 2)}, func(x []*Tensor) *Tensor { return Square(Add(x[0], x[1])) }},
		{"Sub", []*Tensor{u(2, 3), u(3)}, func(x []*Tensor) *Tensor { return Mul(Sub(x[0], x[1]), x[0]) }},
		{"Mul", []*Tensor{u(2, 3), u(2, 1)}, func(x []*Tensor) *Tensor { return Mul(x[0], x[1]) }},
		{"Div", []*Tensor{u(2, 3), pos(3)}, func(x []*Tensor) *Tensor { return Div(x[0], x[1]) }},
		{"Pow", []*Tensor{pos(2, 3), u(3)}, func(x []*Tensor) *Tensor { return Pow(x[0], x[1]) }},
		{"Maximum", []*Tensor{u(2, 3), u(2, 3)}, func(x []*Tensor) *Tensor { return Mul(Maximum(x[0], x[1]), x[0]) }},
		{"Minimum", []*Tensor{u(2, 3), u(3)}, func(x []*Tensor) *Tensor { return Mul(Minimum(x[0], x[1]), x[1]) }},
		{"scalar ops", []*Tensor{pos(4)}, func(x []*Tensor) *Tensor {
			return DivScalar(RSubScalar(MulScalar(AddScalar(PowScalar(x[0], 2.5), 1), 3), 2), 7)
		}},
		{"Square", []*Tensor{u(5)}, func(x []*Tensor) *Tensor { return Square(x[0]) }},
		{"MatMul", []*Tensor{u(3, 4), u(4, 2)}, func(x []*Tensor) *Tensor { return Square(MatMul(x[0], x[1])) }},
		{"MatMul batched broadcast", []*Tensor{u(2, 1, 3, 4), u(3, 4, 2)}, func(x []*Tensor) *Tensor { return Square(MatMul(x[0], x[1])) }},
		{"MatMul vector", []*Tensor{u(4), u(4, 3)}, func(x []*Tensor) *Tensor { return Square(MatMul(x[0], x[1])) }},
		{"Linear", []*Tensor{u(2, 3, 4), u(5, 4), u(5)}, func(x []*Tensor) *Tensor { return Square(Linear(x[0], x[1], x[2])) }},
		{"Softmax", []*Tensor{u(3, 4)}, func(x []*Tensor) *Tensor { return Softmax(x[0], 1) }},
		{"LogSoftmax", []*Tensor{u(3, 4)}, func(x []*Tensor) *Tensor { return Square(LogSoftmax(x[0], 0)) }},
		{"shape ops", []*Tensor{u(2, 3, 4)}, func(x []*Tensor) *Tensor {
			y := Transpose(Permute(x[0], 2, 0, 1), 0, 1)
			return Square(Reshape(Expand(Unsqueeze(y, 0), 2, 2, 4, 3), 4, -1))
		}},
		{"Narrow Cat Stack", []*Tensor{u(3, 4), u(3, 2)}, func(x []*Tensor) *Tensor {
			c := Cat(1, Narrow(x[0], 1, 1, 2), x[1])
			return Square(Stack(0, c, Mul(c, c)))
		}},
		{"Where", []*Tensor{u(2, 3), u(3)}, func(x []*Tensor) *Tensor {
			return Square(Where(Gt(x[0], Zeros(Float64)), x[0], Mul(x[1], x[1])))
		}},
		{"Sum Mean", []*Tensor{u(2, 3)}, func(x []*Tensor) *Tensor { return Square(Add(Sum(x[0], true, 1), Mean(x[0], false))) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := CheckGradGrad(c.f, c.in, 1e-6, 1e-5); err != nil {
				t.Fatal(err)
			}
		})
	}
	// Through float32 the differences need a wider step: the function is a
	// quadratic, for which central differences are exact up to rounding.
	cast := func(x []*Tensor) *Tensor { return Cast(Square(Cast(x[0], Float32)), Float64) }
	if err := CheckGradGrad(cast, []*Tensor{u(2, 3)}, 1e-2, 1e-4); err != nil {
		t.Fatal("Cast: ", err)
	}
}

// mlp is a two-layer perceptron with a smooth rational activation,
// h/(1+h²), on parameters [W1, b1, W2, b2].
func mlp(x *Tensor, p []*Tensor) *Tensor {
	h := Linear(x, p[0], p[1])
	a := Div(h, AddScalar(Square(h), 1))
	return Linear(a, p[2], p[3])
}

// TestHessianVectorProduct: H·v of an MLP's loss, from a gradient taken
// with CreateGraph, equals central differences of the gradient along v.
func TestHessianVectorProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := uniform(rng, -1, 1, 8, 3), uniform(rng, -1, 1, 8, 2)
	params := []*Tensor{uniform(rng, -1, 1, 5, 3), uniform(rng, -1, 1, 5), uniform(rng, -1, 1, 2, 5), uniform(rng, -1, 1, 2)}
	vs := make([]*Tensor, len(params))
	for i, p := range params {
		p.SetRequiresGrad(true)
		vs[i] = uniform(rng, -1, 1, p.shape...)
	}
	loss := func(p []*Tensor) *Tensor { return Mean(Square(Sub(mlp(x, p), y)), false) }
	gradAt := func(shift float64) []*Tensor {
		moved := make([]*Tensor, len(params))
		for i, p := range params {
			moved[i] = Add(p.Detach(), MulScalar(vs[i], shift)).SetRequiresGrad(true)
		}
		g, err := Grad(loss(moved), moved, BackwardOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g, err := Grad(loss(params), params, BackwardOptions{CreateGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	gv := Scalar64(0)
	for i := range g {
		gv = Add(gv, Sum(Mul(g[i], vs[i]), false))
	}
	hv, err := Grad(gv, params, BackwardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1e-5
	plus, minus := gradAt(eps), gradAt(-eps)
	for i := range params {
		want := DivScalar(Sub(plus[i], minus[i]), 2*eps).Float64s()
		approxEqual(t, "Hv", hv[i].Float64s(), want, 1e-7)
	}
}

// TestGradientPenaltyTrains trains an MLP on a regression loss plus a
// gradient penalty, mean over samples of (|∂f/∂x|² - 1)², as WGAN-GP does:
// the penalty's own gradient needs second derivatives. The penalty's
// gradient is checked against finite differences, and training lowers it.
func TestGradientPenaltyTrains(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	x := uniform(rng, -1, 1, 16, 2)
	params := []*Tensor{uniform(rng, -1, 1, 6, 2), uniform(rng, -1, 1, 6), uniform(rng, -1, 1, 1, 6), uniform(rng, -1, 1, 1)}
	penalty := func(p []*Tensor) *Tensor {
		xi := x.Detach().SetRequiresGrad(true)
		g, err := Grad(Sum(mlp(xi, p), false), []*Tensor{xi}, BackwardOptions{CreateGraph: true})
		if err != nil {
			t.Fatal(err)
		}
		return Mean(Square(AddScalar(Sum(Square(g[0]), false, 1), -1)), false)
	}
	if err := CheckGrad(penalty, params, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		p.SetRequiresGrad(true)
	}
	first := penalty(params).Item()
	for range 200 {
		pen := penalty(params)
		if err := pen.Backward(); err != nil {
			t.Fatal(err)
		}
		for _, p := range params {
			if p.Grad() == nil { // the output bias does not move ∂f/∂x
				continue
			}
			for i, gi := range p.Grad().f64 {
				p.f64[i] -= 0.05 * gi
			}
			p.ZeroGrad()
		}
	}
	last := penalty(params).Item()
	if !(last < first/10) {
		t.Fatalf("gradient penalty went from %.4g to %.4g in 200 steps; want a tenth", first, last)
	}
}

// TestCheckpoint: gradients through Checkpoint are bit for bit those of the
// plain function, for its inputs and for a parameter it closes over; the
// forward pass records nothing inside; Grad through it is an error.
func TestCheckpoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	w := Cast(uniform(rng, -1, 1, 4, 4), Float32)
	x0 := Cast(uniform(rng, -1, 1, 3, 4), Float32)
	f := func(w *Tensor) func(xs []*Tensor) *Tensor {
		return func(xs []*Tensor) *Tensor {
			h := xs[0]
			for range 5 {
				h = Div(Linear(h, w, nil), AddScalar(Square(h), 1))
			}
			return h
		}
	}
	run := func(checkpointed bool) (gx, gw []float64) {
		x := x0.Clone().SetRequiresGrad(true)
		wl := w.Clone().SetRequiresGrad(true)
		h := Square(x)
		var out *Tensor
		if checkpointed {
			out = Checkpoint(f(wl), h)
			if len(out.node.inputs) != 1 || out.node.inputs[0] != h {
				t.Fatalf("the checkpoint recorded inputs %v", out.node.inputs)
			}
		} else {
			out = f(wl)([]*Tensor{h})
		}
		if err := Sum(Square(out), false).Backward(); err != nil {
			t.Fatal(err)
		}
		return x.Grad().Float64s(), wl.Grad().Float64s()
	}
	px, pw := run(false)
	cx, cw := run(true)
	approxEqual(t, "input gradient", cx, px, 0)
	approxEqual(t, "parameter gradient", cw, pw, 0)

	x := x0.Clone().SetRequiresGrad(true)
	if _, err := Grad(Sum(Checkpoint(f(w), x), false), []*Tensor{x}, BackwardOptions{}); err == nil {
		t.Fatal("Grad through a Checkpoint returned no error")
	}
}

// TestNoGradIsScoped runs a training loop and, in another goroutine, an
// evaluation on NoGrad values, side by side (run with -race): the
// training's gradients are exactly those of the same loop run alone.
func TestNoGradIsScoped(t *testing.T) {
	train := func(evaluate bool) []float64 {
		rng := rand.New(rand.NewPCG(4, 4))
		x, y := uniform(rng, -1, 1, 8, 3), uniform(rng, -1, 1, 8, 2)
		params := []*Tensor{uniform(rng, -1, 1, 5, 3), uniform(rng, -1, 1, 5), uniform(rng, -1, 1, 2, 5), uniform(rng, -1, 1, 2)}
		other := make([]*Tensor, len(params))
		for i, p := range params {
			other[i] = p.Clone().SetRequiresGrad(true) // the evaluator's own model
			p.SetRequiresGrad(true)
		}
		stop := make(chan struct{})
		done := make(chan bool)
		if evaluate {
			go func() {
				recorded := false
				for {
					select {
					case <-stop:
						done <- recorded
						return
					default:
					}
					out := mlp(x.NoGrad(), other)
					recorded = recorded || out.RequiresGrad() || !out.IsNoGrad()
				}
			}()
		}
		var losses []float64
		for range 50 {
			loss := Mean(Square(Sub(mlp(x, params), y)), false)
			if err := loss.Backward(); err != nil {
				t.Fatal(err)
			}
			losses = append(losses, loss.Item())
			for _, p := range params {
				for i, g := range p.Grad().f64 {
					p.f64[i] -= 0.1 * g
				}
				p.ZeroGrad()
			}
		}
		if evaluate {
			close(stop)
			if <-done {
				t.Error("the evaluation on NoGrad values recorded a graph")
			}
		}
		return append(losses, params[0].f64...)
	}
	alone, beside := train(false), train(true)
	approxEqual(t, "losses and weights", beside, alone, 0)
	if math.IsNaN(alone[0]) {
		t.Fatal("NaN loss")
	}
}
