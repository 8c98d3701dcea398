package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// refNorm normalises the groups of x that key assigns (element index ->
// group) with each group's mean and biased variance, then applies
// y·w[ch(i)] + b[ch(i)] (w nil: no affine): the normalisation layers'
// documented formula as a plain loop.
func refNorm(x []float64, groups int, key, ch func(i int) int, eps float64, w, b []float64) []float64 {
	sum, sq, cnt := make([]float64, groups), make([]float64, groups), make([]float64, groups)
	for i, v := range x {
		sum[key(i)] += v
		cnt[key(i)]++
	}
	for i, v := range x {
		d := v - sum[key(i)]/cnt[key(i)]
		sq[key(i)] += d * d
	}
	out := make([]float64, len(x))
	for i, v := range x {
		g := key(i)
		out[i] = (v - sum[g]/cnt[g]) / math.Sqrt(sq[g]/cnt[g]+eps)
		if w != nil {
			out[i] = out[i]*w[ch(i)] + b[ch(i)]
		}
	}
	return out
}

// randomAffine gives a layer's weight and bias random values, so that the
// affine step is tested with more than ones and zeros.
func randomAffine(rng *rand.Rand, w, b *autograd.Tensor) (ws, bs []float64) {
	Uniform(w, 0.5, 2, rng)
	Uniform(b, -1, 1, rng)
	return w.Float64s(), b.Float64s()
}

// TestNormHandValues checks LayerNorm and BatchNorm on values worked out by
// hand: [1, 2, 3, 4] has mean 2.5 and biased variance 1.25.
func TestNormHandValues(t *testing.T) {
	want := make([]float64, 4)
	for i, v := range []float64{1, 2, 3, 4} {
		want[i] = (v - 2.5) / math.Sqrt(1.25+1e-5)
	}
	near(t, "LayerNorm", NewLayerNorm([]int{4}, 1e-5, true, autograd.Float64).Forward(autograd.New64([]float64{1, 2, 3, 4}, 1, 4)).Float64s(), want, 1e-12)

	bn := NewBatchNorm1d(1, DefaultBatchNorm(), autograd.Float64)
	near(t, "BatchNorm1d", bn.Forward(autograd.New64([]float64{1, 2, 3, 4}, 4, 1)).Float64s(), want, 1e-12)
	// running = 0.9·(0, 1) + 0.1·(2.5, unbiased variance 5/3).
	near(t, "running mean", bn.RunningMean.Float64s(), []float64{0.25}, 1e-12)
	near(t, "running var", bn.RunningVar.Float64s(), []float64{0.9 + 0.1*5.0/3}, 1e-12)
	near(t, "batches", bn.NumBatchesTracked.Float64s(), []float64{1}, 0)
	bn.SetTraining(false)
	rv := 0.9 + 0.1*5.0/3
	near(t, "BatchNorm1d eval", bn.Forward(autograd.New64([]float64{1.25}, 1, 1)).Float64s(), []float64{1 / math.Sqrt(rv+1e-5)}, 1e-12)
	near(t, "eval leaves running mean", bn.RunningMean.Float64s(), []float64{0.25}, 0)

	// Cumulative average (momentum=None): the plain mean of the batches'
	// statistics. Batches [1, 3] and [5, 9]: means 2 and 7, unbiased
	// variances 2 and 8.
	cfg := DefaultBatchNorm()
	cfg.CumulativeAverage = true
	cma := NewBatchNorm1d(1, cfg, autograd.Float64)
	cma.Forward(autograd.New64([]float64{1, 3}, 2, 1))
	cma.Forward(autograd.New64([]float64{5, 9}, 2, 1))
	near(t, "cumulative mean", cma.RunningMean.Float64s(), []float64{4.5}, 1e-12)
	near(t, "cumulative var", cma.RunningVar.Float64s(), []float64{5}, 1e-12)

	// Momentum 0 is honoured (the running statistics never move).
	cfg = DefaultBatchNorm()
	cfg.Momentum = 0
	still := NewBatchNorm1d(1, cfg, autograd.Float64)
	still.Forward(autograd.New64([]float64{1, 3}, 2, 1))
	near(t, "momentum 0", append(still.RunningMean.Float64s(), still.RunningVar.Float64s()...), []float64{0, 1}, 0)
}

// TestNormReference checks LayerNorm, GroupNorm and BatchNorm2d (training
// and evaluation, with and without running statistics) against refNorm.
func TestNormReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	x := uniform(rng, -2, 2, 2, 6, 3, 2) // [N, C, H, W]
	xs := x.Float64s()
	chOf := func(i int) int { return i / 6 % 6 }

	ln := NewLayerNorm([]int{3, 2}, 1e-5, true, autograd.Float64)
	lw, lb := randomAffine(rng, ln.Weight, ln.Bias)
	near(t, "LayerNorm", ln.Forward(x).Float64s(), refNorm(xs, 12, func(i int) int { return i / 6 }, func(i int) int { return i % 6 }, 1e-5, lw, lb), 1e-12)
	plain := NewLayerNorm([]int{6, 3, 2}, 0.1, false, autograd.Float64)
	near(t, "LayerNorm no affine", plain.Forward(x).Float64s(), refNorm(xs, 2, func(i int) int { return i / 36 }, nil, 0.1, nil, nil), 1e-12)

	gn := NewGroupNorm(3, 6, 1e-5, true, autograd.Float64)
	gw, gb := randomAffine(rng, gn.Weight, gn.Bias)
	// Group = sample·3 + channel/2; each group spans 2 channels of 6 values.
	near(t, "GroupNorm", gn.Forward(x).Float64s(), refNorm(xs, 6, func(i int) int { return i/36*3 + chOf(i)/2 }, chOf, 1e-5, gw, gb), 1e-12)

	bn := NewBatchNorm2d(6, DefaultBatchNorm(), autograd.Float64)
	bw, bb := randomAffine(rng, bn.Weight, bn.Bias)
	near(t, "BatchNorm2d train", bn.Forward(x).Float64s(), refNorm(xs, 6, chOf, chOf, 1e-5, bw, bb), 1e-12)
	// Evaluation: (x - running mean)/√(running var + eps), per channel.
	bn.SetTraining(false)
	rm, rv := bn.RunningMean.Float64s(), bn.RunningVar.Float64s()
	want := make([]float64, len(xs))
	for i, v := range xs {
		c := chOf(i)
		want[i] = (v-rm[c])/math.Sqrt(rv[c]+1e-5)*bw[c] + bb[c]
	}
	near(t, "BatchNorm2d eval", bn.Forward(x).Float64s(), want, 1e-12)

	cfg := DefaultBatchNorm()
	cfg.TrackRunningStats, cfg.Affine = false, false
	untracked := NewBatchNorm2d(6, cfg, autograd.Float64)
	untracked.SetTraining(false)
	near(t, "BatchNorm2d untracked eval uses the batch", untracked.Forward(x).Float64s(), refNorm(xs, 6, chOf, nil, 1e-5, nil, nil), 1e-12)
	if untracked.Parameters() != nil || untracked.Buffers() != nil {
		t.Fatal("BatchNorm without affine or tracking has parameters or buffers")
	}
	// BatchNorm1d on [N, C, L]: statistics over N and L.
	x3 := uniform(rng, -2, 2, 3, 2, 4)
	bn1 := NewBatchNorm1d(2, DefaultBatchNorm(), autograd.Float64)
	near(t, "BatchNorm1d [N, C, L]", bn1.Forward(x3).Float64s(), refNorm(x3.Float64s(), 2, func(i int) int { return i / 4 % 2 }, nil, 1e-5, nil, nil), 1e-12)
}

// TestRunningStatistics: five training batches give running statistics that
// match a loop over PyTorch's update rule, and they are buffers, not
// parameters.
func TestRunningStatistics(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	cfg := DefaultBatchNorm()
	cfg.Momentum = 0.3
	bn := NewBatchNorm2d(2, cfg, autograd.Float64)
	wantMean, wantVar := []float64{0, 0}, []float64{1, 1}
	for range 5 {
		x := uniform(rng, -1, 3, 3, 2, 2, 2)
		bn.Forward(x)
		xs := x.Float64s()
		for c := range 2 {
			var vals []float64
			for i, v := range xs {
				if i/4%2 == c {
					vals = append(vals, v)
				}
			}
			var m, ss float64
			for _, v := range vals {
				m += v / float64(len(vals))
			}
			for _, v := range vals {
				ss += (v - m) * (v - m)
			}
			wantMean[c] = 0.7*wantMean[c] + 0.3*m
			wantVar[c] = 0.7*wantVar[c] + 0.3*ss/float64(len(vals)-1)
		}
	}
	near(t, "running mean", bn.RunningMean.Float64s(), wantMean, 1e-12)
	near(t, "running var", bn.RunningVar.Float64s(), wantVar, 1e-12)
	near(t, "batches", bn.NumBatchesTracked.Float64s(), []float64{5}, 0)

	net := NewSequential(NewLinear(3, 2, true, autograd.Float64, rng), bn, NewLayerNorm([]int{2}, 1e-5, true, autograd.Float64))
	if ps := net.Parameters(); len(ps) != 6 {
		t.Fatalf("%d parameters, want 6 (Linear 2, BatchNorm 2, LayerNorm 2)", len(ps))
	}
	bs := Buffers(net)
	if len(bs) != 3 || bs[0] != bn.RunningMean || bs[1] != bn.RunningVar || bs[2] != bn.NumBatchesTracked {
		t.Fatalf("buffers %v, want BatchNorm's running mean, running var and count", bs)
	}
	for _, b := range bs {
		if b.RequiresGrad() {
			t.Fatal("a buffer requires a gradient")
		}
	}
	SetTraining(net, false)
	if bn.Training {
		t.Fatal("SetTraining(false) on the Sequential did not reach the BatchNorm")
	}
}

// TestEmbedding checks lookups, the padding index (zeroed, no gradient) and
// the weight gradient (a count of each row's uses times the upstream
// gradient).
func TestEmbedding(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	e := NewEmbedding(5, 3, autograd.Float64, rng).WithPadding(-1) // row 4
	if e.PaddingIdx != 4 {
		t.Fatalf("padding index -1 became %d, want 4", e.PaddingIdx)
	}
	w := e.Weight.Float64s()
	near(t, "padding row zeroed", w[12:], []float64{0, 0, 0}, 0)
	idx := autograd.New64([]float64{1, 4, 1, 0, 4, 2}, 2, 3)
	out := e.Forward(idx)
	if s := out.Shape(); len(s) != 3 || s[0] != 2 || s[1] != 3 || s[2] != 3 {
		t.Fatalf("shape %v, want [2 3 3]", s)
	}
	var want []float64
	for _, k := range []int{1, 4, 1, 0, 4, 2} {
		want = append(want, w[k*3:k*3+3]...)
	}
	near(t, "rows", out.Float64s(), want, 0)
	if err := autograd.Sum(out, false).Backward(); err != nil {
		t.Fatal(err)
	}
	// Row uses: 0 once, 1 twice, 2 once, 3 never, 4 (padding) none counted.
	near(t, "gradient", e.Weight.Grad().Float64s(), []float64{1, 1, 1, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0}, 0)

	plain := NewEmbedding(4, 2, autograd.Float64, rng)
	f := func(in []*autograd.Tensor) *autograd.Tensor {
		plain.Weight = in[0]
		return plain.Lookup([]int{3, 0, 3, 1}, 2, 2)
	}
	if err := autograd.CheckGrad(f, []*autograd.Tensor{plain.Weight}, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
}

// normCase builds a layer around inputs for the gradient checks: in[0] is
// the input, the rest are the layer's affine parameters.
type normCase struct {
	name string
	in   []*autograd.Tensor
	f    func(in []*autograd.Tensor) *autograd.Tensor
}

func normCases(rng *rand.Rand) []normCase {
	ln := NewLayerNorm([]int{3, 2}, 1e-5, true, autograd.Float64)
	gn := NewGroupNorm(2, 4, 1e-5, true, autograd.Float64)
	bn2 := NewBatchNorm2d(4, DefaultBatchNorm(), autograd.Float64)
	bn1 := NewBatchNorm1d(3, DefaultBatchNorm(), autograd.Float64)
	eval := NewBatchNorm2d(4, DefaultBatchNorm(), autograd.Float64)
	Uniform(eval.RunningMean, -1, 1, rng)
	Uniform(eval.RunningVar, 0.5, 2, rng)
	eval.SetTraining(false)
	cfg := DefaultBatchNorm()
	cfg.Affine = false
	bare := NewBatchNorm1d(3, cfg, autograd.Float64)
	affine := func(w, b **autograd.Tensor, fwd func(*autograd.Tensor) *autograd.Tensor) func([]*autograd.Tensor) *autograd.Tensor {
		return func(in []*autograd.Tensor) *autograd.Tensor {
			*w, *b = in[1], in[2]
			return fwd(in[0])
		}
	}
	x4 := func() *autograd.Tensor { return uniform(rng, -2, 2, 2, 4, 3, 2) }
	wb := func(shape ...int) []*autograd.Tensor {
		return []*autograd.Tensor{uniform(rng, 0.5, 2, shape...), uniform(rng, -1, 1, shape...)}
	}
	return []normCase{
		{"LayerNorm", append([]*autograd.Tensor{x4()}, wb(3, 2)...), affine(&ln.Weight, &ln.Bias, ln.Forward)},
		{"GroupNorm", append([]*autograd.Tensor{x4()}, wb(4)...), affine(&gn.Weight, &gn.Bias, gn.Forward)},
		{"BatchNorm2d train", append([]*autograd.Tensor{x4()}, wb(4)...), affine(&bn2.Weight, &bn2.Bias, bn2.Forward)},
		{"BatchNorm2d eval", append([]*autograd.Tensor{x4()}, wb(4)...), affine(&eval.Weight, &eval.Bias, eval.Forward)},
		{"BatchNorm1d train", append([]*autograd.Tensor{uniform(rng, -2, 2, 5, 3)}, wb(3)...), affine(&bn1.Weight, &bn1.Bias, bn1.Forward)},
		{"BatchNorm1d no affine", []*autograd.Tensor{uniform(rng, -2, 2, 2, 3, 4)}, func(in []*autograd.Tensor) *autograd.Tensor { return bare.Forward(in[0]) }},
	}
}

// TestNormGradients checks every normalisation layer by finite differences
// through the input, weight and bias.
func TestNormGradients(t *testing.T) {
	for _, c := range normCases(rand.New(rand.NewPCG(33, 33))) {
		if err := autograd.CheckGrad(c.f, c.in, 1e-6, 1e-6); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
}

// TestLayerBadInput: wrong shapes panic naming the layer and the shapes.
func TestLayerBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 34))
	x := autograd.Zeros(autograd.Float64, 2, 3, 4)
	cases := []struct {
		name  string
		f     func()
		parts []string
	}{
		{"LayerNorm shape", func() { NewLayerNorm([]int{3}, 1e-5, true, autograd.Float64).Forward(x) }, []string{"nn: LayerNorm:", "[2 3 4]", "[3]"}},
		{"LayerNorm empty", func() { NewLayerNorm(nil, 1e-5, true, autograd.Float64) }, []string{"nn: NewLayerNorm:"}},
		{"GroupNorm groups", func() { NewGroupNorm(2, 3, 1e-5, true, autograd.Float64) }, []string{"nn: NewGroupNorm:", "2 groups for 3 channels"}},
		{"GroupNorm channels", func() { NewGroupNorm(2, 4, 1e-5, true, autograd.Float64).Forward(x) }, []string{"nn: GroupNorm:", "[2 3 4]", "[N, 4, *]"}},
		{"BatchNorm2d rank", func() { NewBatchNorm2d(3, DefaultBatchNorm(), autograd.Float64).Forward(x) }, []string{"nn: BatchNorm2d:", "[2 3 4]"}},
		{"BatchNorm1d channels", func() { NewBatchNorm1d(4, DefaultBatchNorm(), autograd.Float64).Forward(x) }, []string{"nn: BatchNorm1d:", "[2 3 4]", "4 channels"}},
		{"BatchNorm one value", func() {
			NewBatchNorm1d(3, DefaultBatchNorm(), autograd.Float64).Forward(autograd.Zeros(autograd.Float64, 1, 3))
		}, []string{"nn: BatchNorm1d:", "[1 3]", "more than 1"}},
		{"Embedding index", func() { NewEmbedding(4, 2, autograd.Float64, rng).Lookup([]int{0, 4}) }, []string{"nn: Embedding:", "index 4", "[0, 4)", "[4 2]"}},
		{"Embedding fraction", func() { NewEmbedding(4, 2, autograd.Float64, rng).Forward(vec(0.5)) }, []string{"nn: Embedding:", "0.5"}},
		{"Embedding padding", func() { NewEmbedding(4, 2, autograd.Float64, rng).WithPadding(4) }, []string{"nn: Embedding:", "padding index 4"}},
		{"Embedding shape", func() { NewEmbedding(4, 2, autograd.Float64, rng).Lookup([]int{0, 1, 2}, 2, 2) }, []string{"nn: Embedding:", "[2 2]", "3 indices"}},
	}
	for _, c := range cases {
		mustPanic(t, c.name, c.f, c.parts...)
	}
}

// TestFloat32Layers: the layers and weighted losses run in float32 and agree
// with float64 to float32 precision, gradients included.
func TestFloat32Layers(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 35))
	x64 := uniform(rng, -2, 2, 3, 4, 2, 2)
	run := func(dt autograd.DType) (out, grad []float64) {
		x := autograd.Cast(x64, dt).Detach().SetRequiresGrad(true)
		h := NewBatchNorm2d(4, DefaultBatchNorm(), dt).Forward(x)
		h = NewGroupNorm(2, 4, 1e-5, true, dt).Forward(h)
		h = NewLayerNorm([]int{2, 2}, 1e-5, true, dt).Forward(h)
		w := autograd.Cast(vec(1, 2, 0.5, 1), dt)
		loss := CrossEntropyLossWith(h, []int{0, 1, 2, 3, 0, 1, 2, 3, 3, 2, 1, 0}, ClassOptions{Weight: w, LabelSmoothing: 0.1, Ignore: true, IgnoreIndex: 3})
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		return loss.Float64s(), x.Grad().Float64s()
	}
	out64, grad64 := run(autograd.Float64)
	out32, grad32 := run(autograd.Float32)
	near(t, "loss", out32, out64, 1e-5)
	near(t, "gradient", grad32, grad64, 1e-4)
}
