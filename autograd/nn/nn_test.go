package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
)

func vec(vals ...float64) *autograd.Tensor { return autograd.New64(vals, len(vals)) }

func uniform(rng *rand.Rand, lo, hi float64, shape ...int) *autograd.Tensor {
	t := autograd.Zeros(autograd.Float64, shape...)
	Uniform(t, lo, hi, rng)
	return t
}

func near(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", name, got, want)
	}
	for i := range got {
		if got[i] != want[i] && !(math.Abs(got[i]-want[i]) <= tol*max(1, math.Abs(want[i]))) {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
	}
}

// TestLossValues checks each loss against values worked out by hand.
func TestLossValues(t *testing.T) {
	pred, target := vec(1, -2, 0.5), vec(0, 0, 0)
	cases := []struct {
		name string
		got  *autograd.Tensor
		want []float64
	}{
		{"MSE none", MSELoss(pred, target, ReduceNone), []float64{1, 4, 0.25}},
		{"MSE mean", MSELoss(pred, target, ReduceMean), []float64{5.25 / 3}},
		{"MSE sum", MSELoss(pred, target, ReduceSum), []float64{5.25}},
		{"L1 sum", L1Loss(pred, target, ReduceSum), []float64{3.5}},
		// delta 1: |1| is not < 1, so 1·(1-0.5); 2 -> 1.5; 0.5 -> 0.125.
		{"Huber none", HuberLoss(pred, target, 1, ReduceNone), []float64{0.5, 1.5, 0.125}},
		// softmax([0, ln 3]) = [1/4, 3/4].
		{"CE", CrossEntropyLoss(autograd.New64([]float64{0, math.Log(3), 0, math.Log(3)}, 2, 2), []int{1, 0}, ReduceNone), []float64{-math.Log(0.75), -math.Log(0.25)}},
		{"NLL mean", NLLLoss(autograd.New64([]float64{-1, -2, -3, -4}, 2, 2), []int{1, 0}, ReduceMean), []float64{2.5}},
		{"BCE", BCELoss(vec(0.25, 0.5), vec(1, 0), ReduceNone), []float64{-math.Log(0.25), -math.Log(0.5)}},
		{"BCE at 0 and 1 is clamped", BCELoss(vec(0, 1, 0), vec(0, 1, 1), ReduceNone), []float64{0, 0, 100}},
		{"BCE with logits", BCEWithLogitsLoss(vec(0, 800, -800), vec(1, 1, 1), ReduceNone), []float64{math.Ln2, 0, 800}},
	}
	for _, c := range cases {
		near(t, c.name, c.got.Float64s(), c.want, 1e-12)
	}
}

// TestCrossEntropyHugeLogits: logits of 1e4 in float32 give exact, finite
// losses and gradients (softmax - onehot).
func TestCrossEntropyHugeLogits(t *testing.T) {
	logits := autograd.New([]float32{1e4, 0, -1e4, 1e4}, 2, 2).SetRequiresGrad(true)
	loss := CrossEntropyLoss(logits, []int{0, 0}, ReduceSum)
	near(t, "loss", loss.Float64s(), []float64{2e4}, 1e-6)
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	near(t, "grad", logits.Grad().Float64s(), []float64{0, 0, -1, 1}, 1e-6)
}

// TestLossGradients checks every loss and reduction by finite differences.
func TestLossGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	targets := []int{2, 0, 1, 2}
	prob := uniform(rng, 0.1, 0.9, 4, 3)
	cases := []struct {
		name string
		in   []*autograd.Tensor
		f    func(x []*autograd.Tensor, r Reduction) *autograd.Tensor
	}{
		{"MSE", []*autograd.Tensor{uniform(rng, -1, 1, 4, 3), uniform(rng, -1, 1, 4, 3)}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return MSELoss(x[0], x[1], r) }},
		{"L1", []*autograd.Tensor{uniform(rng, 0.1, 1, 4, 3), uniform(rng, -1, -0.1, 4, 3)}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return L1Loss(x[0], x[1], r) }},
		{"Huber", []*autograd.Tensor{vec(0.1, -0.3, 2, -3), vec(0, 0, 0, 0)}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return HuberLoss(x[0], x[1], 1, r) }},
		{"CrossEntropy", []*autograd.Tensor{uniform(rng, -3, 3, 4, 3)}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return CrossEntropyLoss(x[0], targets, r) }},
		{"NLL", []*autograd.Tensor{uniform(rng, -3, 0, 4, 3)}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return NLLLoss(x[0], targets, r) }},
		{"BCE", []*autograd.Tensor{prob, uniform(rng, 0, 1, 4, 3)}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return BCELoss(x[0], x[1], r) }},
		{"BCEWithLogits", []*autograd.Tensor{uniform(rng, -4, 4, 4, 3), uniform(rng, 0, 1, 4, 3)}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return BCEWithLogitsLoss(x[0], x[1], r) }},
	}
	for _, c := range cases {
		for _, r := range []Reduction{ReduceMean, ReduceSum, ReduceNone} {
			f := func(x []*autograd.Tensor) *autograd.Tensor { return c.f(x, r) }
			if err := autograd.CheckGrad(f, c.in, 1e-6, 1e-6); err != nil {
				t.Fatalf("%s (reduction %d): %v", c.name, r, err)
			}
		}
	}
}

// TestMLPGradient checks a two-layer perceptron with softmax cross-entropy
// by finite differences, through every weight and the input.
func TestMLPGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	in := []*autograd.Tensor{
		uniform(rng, -1, 1, 5, 4),                         // x
		uniform(rng, -1, 1, 6, 4), uniform(rng, -1, 1, 6), // layer 1
		uniform(rng, -1, 1, 3, 6), uniform(rng, -1, 1, 3), // layer 2
	}
	f := func(x []*autograd.Tensor) *autograd.Tensor {
		h := autograd.Tanh(autograd.Linear(x[0], x[1], x[2]))
		return CrossEntropyLoss(autograd.Linear(h, x[3], x[4]), []int{0, 2, 1, 1, 0}, ReduceMean)
	}
	if err := autograd.CheckGrad(f, in, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
}

// TestLinearRegression: a Linear(1, 1) layer trained on y = 2x + 3 recovers
// weight 2 and bias 3 within 1e-2.
func TestLinearRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	l := NewLinear(1, 1, true, autograd.Float32, rng)
	x := autograd.Zeros(autograd.Float32, 64, 1)
	Uniform(x, -1, 1, rng)
	y := autograd.AddScalar(autograd.MulScalar(x, 2), 3)
	opt := optim.NewSGD(l.Parameters(), optim.SGDConfig{LR: 0.3})
	for range 300 {
		opt.ZeroGrad()
		if err := MSELoss(l.Forward(x), y, ReduceMean).Backward(); err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
	}
	w, b := l.Weight.Item(), l.Bias.Item()
	if math.Abs(w-2) > 1e-2 || math.Abs(b-3) > 1e-2 {
		t.Fatalf("learned y = %.4fx + %.4f, want 2x + 3", w, b)
	}
}

// TestLinearWeightsMove: one optimiser step changes every weight of a
// Linear layer, and the weight gradient is dL/dW = gᵀx (not a pass-through).
func TestLinearWeightsMove(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	l := NewLinear(3, 2, true, autograd.Float64, rng)
	before := l.Weight.Float64s()
	x := vec(1, 2, 3)
	if err := autograd.Sum(l.Forward(autograd.Reshape(x, 1, 3)), false).Backward(); err != nil {
		t.Fatal(err)
	}
	// d(sum(Wx + b))/dW[i, j] = x[j] for every output i.
	near(t, "weight gradient", l.Weight.Grad().Float64s(), []float64{1, 2, 3, 1, 2, 3}, 0)
	near(t, "bias gradient", l.Bias.Grad().Float64s(), []float64{1, 1}, 0)
	if err := optim.NewSGD(l.Parameters(), optim.SGDConfig{LR: 0.1}).Step(); err != nil {
		t.Fatal(err)
	}
	for i, w := range l.Weight.Float64s() {
		if w == before[i] {
			t.Fatalf("weight %d did not move", i)
		}
	}
}

func TestConvModules(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	net := NewSequential(
		NewConv1d(2, 4, 3, autograd.Conv1dConfig{Padding: 1, Groups: 2}, true, autograd.Float64, rng),
		Func(func(x *autograd.Tensor) *autograd.Tensor { return autograd.Unsqueeze(x, 1) }),
		NewConv2d(1, 3, 3, autograd.Conv2dConfig{Padding: [2]int{1, 1}}, false, autograd.Float64, rng),
		ReLU,
		MaxPool2d{Kernel: 2},
		AvgPool2d{Kernel: 2},
		Flatten,
	)
	y := net.Forward(uniform(rng, -1, 1, 2, 2, 8))
	if s := y.Shape(); len(s) != 2 || s[0] != 2 || s[1] != 3*1*2 {
		t.Fatalf("output shape %v, want [2 6]", s)
	}
	ps := net.Parameters()
	if len(ps) != 3 || ps[0].Dim() != 3 || ps[1].Dim() != 1 || ps[2].Dim() != 4 {
		t.Fatalf("parameters in the wrong order or number: %d", len(ps))
	}
}

func TestDropoutModes(t *testing.T) {
	d := NewDropout(0.5, rand.New(rand.NewPCG(1, 1)))
	net := NewSequential(d)
	x := autograd.Ones(autograd.Float64, 1000)
	kept := 0
	for _, v := range net.Forward(x).Float64s() {
		switch v {
		case 2:
			kept++
		case 0:
		default:
			t.Fatalf("dropout value %v, want 0 or 2 (scaled by 1/(1-p))", v)
		}
	}
	if kept < 400 || kept > 600 {
		t.Fatalf("kept %d of 1000 at p = 0.5", kept)
	}
	SetTraining(net, false)
	if net.Forward(x) != x {
		t.Fatal("dropout in evaluation mode is not the identity")
	}
}

// TestInitBounds checks the bounds and spread of the initialisations on a
// [200, 300] weight (fan_in 300, fan_out 200).
func TestInitBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	w := autograd.Zeros(autograd.Float64, 200, 300)
	stats := func() (maxAbs, std float64) {
		var sq float64
		for _, v := range w.Float64s() {
			maxAbs = max(maxAbs, math.Abs(v))
			sq += v * v
		}
		return maxAbs, math.Sqrt(sq / float64(w.Len()))
	}
	cases := []struct {
		name          string
		init          func()
		bound, stdDev float64 // bound 0: unbounded (normal)
	}{
		{"kaiming uniform relu", func() { KaimingUniform(w, 0, rng) }, math.Sqrt(6.0 / 300), math.Sqrt(2.0 / 300)},
		{"kaiming normal relu", func() { KaimingNormal(w, 0, rng) }, 0, math.Sqrt(2.0 / 300)},
		{"xavier uniform", func() { XavierUniform(w, 1, rng) }, math.Sqrt(6.0 / 500), math.Sqrt(2.0 / 500)},
		{"xavier normal", func() { XavierNormal(w, 1, rng) }, 0, math.Sqrt(2.0 / 500)},
	}
	for _, c := range cases {
		c.init()
		maxAbs, std := stats()
		if c.bound > 0 && (maxAbs > c.bound || maxAbs < 0.99*c.bound) {
			t.Fatalf("%s: max |w| %v, want just under %v", c.name, maxAbs, c.bound)
		}
		if math.Abs(std-c.stdDev) > 0.02*c.stdDev {
			t.Fatalf("%s: standard deviation %v, want %v", c.name, std, c.stdDev)
		}
	}
}
