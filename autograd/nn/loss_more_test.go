package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// The losses of loss_prob.go and loss_margin.go against reference loops
// written from PyTorch's documented formulas (torch.nn.functional's
// kl_div, gaussian_nll_loss, poisson_nll_loss, margin_ranking_loss,
// hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss,
// multilabel_soft_margin_loss), and their gradients against float64 central
// differences.

// refMean reduces per-element losses as PyTorch's reductions do.
func refMean(losses []float64, r Reduction) []float64 {
	return refReduce(losses, r, float64(len(losses)))
}

// signs returns a [shape] tensor of ±1 labels.
func signs(rng *rand.Rand, shape ...int) *autograd.Tensor {
	t := autograd.Zeros(autograd.Float64, shape...)
	for i := range t.Len() {
		t.SetAt(i, float64(2*rng.IntN(2)-1))
	}
	return t
}

// TestKLDivLoss: kl_div(input, target) = target·(log target - input), 0
// where target = 0; log_target: e^target·(target - input); 'batchmean'
// divides the sum by input.size(0).
func TestKLDivLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 40))
	input := autograd.LogSoftmax(uniform(rng, -2, 2, 3, 4), 1)
	target := autograd.Softmax(uniform(rng, -2, 2, 3, 4), 1)
	target.SetAt(5, 0) // xlogy's 0·log 0 = 0
	x, y := input.Float64s(), target.Float64s()
	for _, logTarget := range []bool{false, true} {
		var per []float64
		for i := range x {
			if logTarget {
				per = append(per, math.Exp(y[i])*(y[i]-x[i]))
			} else if y[i] == 0 {
				per = append(per, 0)
			} else {
				per = append(per, y[i]*(math.Log(y[i])-x[i]))
			}
		}
		for _, r := range reductions() {
			o := KLDivOptions{Reduction: r, LogTarget: logTarget}
			near(t, "KLDiv", KLDivLoss(input, target, o).Float64s(), refMean(per, r), 1e-12)
		}
		sum := refMean(per, ReduceSum)[0]
		near(t, "KLDiv batchmean", KLDivLoss(input, target, KLDivOptions{BatchMean: true, LogTarget: logTarget}).Float64s(), []float64{sum / 3}, 1e-12)
	}
	// Gradients through input and target (positive targets: the target's
	// gradient log t + 1 - x is singular at 0).
	pos := autograd.Softmax(uniform(rng, -2, 2, 3, 4), 1)
	for _, o := range []KLDivOptions{{}, {Reduction: ReduceSum}, {Reduction: ReduceNone}, {BatchMean: true}, {LogTarget: true}, {LogTarget: true, BatchMean: true}} {
		f := func(in []*autograd.Tensor) *autograd.Tensor { return KLDivLoss(in[0], in[1], o) }
		if err := autograd.CheckGrad(f, []*autograd.Tensor{input, pos}, 1e-6, 1e-6); err != nil {
			t.Fatalf("KLDiv %+v: %v", o, err)
		}
	}
	// At a target of 0 the input's gradient is -t = 0 and the target's is
	// -input: its t·log t term adds 0 (PyTorch's xlogy adds 0/0 = NaN).
	in, tg := vec(-1, -2).SetRequiresGrad(true), vec(0, 0.5).SetRequiresGrad(true)
	if err := KLDivLoss(in, tg, KLDivOptions{Reduction: ReduceSum}).Backward(); err != nil {
		t.Fatal(err)
	}
	near(t, "KLDiv d/dinput", in.Grad().Float64s(), []float64{0, -0.5}, 1e-15)
	near(t, "KLDiv d/dtarget", tg.Grad().Float64s(), []float64{1, math.Log(0.5) + 1 + 2}, 1e-15)
}

// TestGaussianNLLLoss: ½(log max(var, eps) + (x - t)²/max(var, eps)) (+
// ½log 2π with full), the variance in any of PyTorch's three shapes, and
// the clamp's gradient taken as if unclamped (PyTorch clamps under no_grad).
func TestGaussianNLLLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 41))
	x, tg := uniform(rng, -2, 2, 3, 4), uniform(rng, -2, 2, 3, 4)
	full := uniform(rng, 0.1, 2, 3, 4)
	full.SetAt(2, 1e-9) // below eps: clamped
	short, one := uniform(rng, 0.1, 2, 3), uniform(rng, 0.1, 2, 3, 1)
	ref := func(v func(i int) float64, o GaussianNLLOptions) []float64 {
		var per []float64
		for i := range 12 {
			vi := math.Max(v(i), o.Eps)
			l := 0.5 * (math.Log(vi) + (x.At(i)-tg.At(i))*(x.At(i)-tg.At(i))/vi)
			if o.Full {
				l += 0.5 * math.Log(2*math.Pi)
			}
			per = append(per, l)
		}
		return per
	}
	vars := []struct {
		name string
		v    *autograd.Tensor
		at   func(i int) float64
	}{
		{"heteroscedastic", full, func(i int) float64 { return full.At(i) }},
		{"[N]", short, func(i int) float64 { return short.At(i / 4) }},
		{"[N, 1]", one, func(i int) float64 { return one.At(i / 4) }},
	}
	for _, v := range vars {
		for _, r := range reductions() {
			for _, isFull := range []bool{false, true} {
				o := DefaultGaussianNLL()
				o.Reduction, o.Full = r, isFull
				near(t, "GaussianNLL "+v.name, GaussianNLLLoss(x, tg, v.v, o).Float64s(), refMean(ref(v.at, o), r), 1e-12)
				f := func(in []*autograd.Tensor) *autograd.Tensor { return GaussianNLLLoss(in[0], in[1], in[2], o) }
				vGrad := v.v
				if v.name == "heteroscedastic" {
					vGrad = uniform(rng, 0.1, 2, 3, 4) // finite differences cannot cross the clamp
				}
				if err := autograd.CheckGrad(f, []*autograd.Tensor{x, tg, vGrad}, 1e-6, 1e-6); err != nil {
					t.Fatalf("GaussianNLL %s %+v: %v", v.name, o, err)
				}
			}
		}
	}
	// Below eps the variance's gradient is ½(1/eps - d²/eps²), the
	// unclamped formula at eps.
	v := vec(1e-9).SetRequiresGrad(true)
	if err := GaussianNLLLoss(vec(0.001), vec(0), v, DefaultGaussianNLL()).Backward(); err != nil {
		t.Fatal(err)
	}
	near(t, "GaussianNLL clamped variance gradient", v.Grad().Float64s(), []float64{0.5 * (1/1e-6 - 1e-6/1e-12)}, 1e-9)
	mustPanic(t, "negative variance", func() { GaussianNLLLoss(vec(0, 1), vec(0, 1), vec(1, -1), DefaultGaussianNLL()) }, "nn: GaussianNLLLoss:", "negative")
	mustPanic(t, "variance shape", func() { GaussianNLLLoss(x, tg, vec(1, 2, 3, 4), DefaultGaussianNLL()) }, "nn: GaussianNLLLoss:", "variance [4]", "[3 4]")
}

// TestPoissonNLLLoss: e^x - t·x (log_input) or x - t·log(x + eps), plus
// with full Stirling's t·log t - t + ½log(2πt) where t > 1.
func TestPoissonNLLLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	x := uniform(rng, 0.1, 2, 3, 4)
	tg := uniform(rng, 0, 4, 3, 4)
	tg.SetAt(0, 0)
	tg.SetAt(1, 1) // the Stirling term's mask is t <= 1
	for _, logInput := range []bool{true, false} {
		for _, full := range []bool{false, true} {
			o := DefaultPoissonNLL()
			o.LogInput, o.Full = logInput, full
			var per []float64
			for i := range 12 {
				xi, ti := x.At(i), tg.At(i)
				l := xi - ti*math.Log(xi+o.Eps)
				if logInput {
					l = math.Exp(xi) - ti*xi
				}
				if full && ti > 1 {
					l += ti*math.Log(ti) - ti + 0.5*math.Log(2*math.Pi*ti)
				}
				per = append(per, l)
			}
			for _, r := range reductions() {
				o.Reduction = r
				near(t, "PoissonNLL", PoissonNLLLoss(x, tg, o).Float64s(), refMean(per, r), 1e-12)
				f := func(in []*autograd.Tensor) *autograd.Tensor { return PoissonNLLLoss(in[0], in[1], o) }
				// Targets away from the mask's edge at 1 for finite differences.
				if err := autograd.CheckGrad(f, []*autograd.Tensor{x, uniform(rng, 1.1, 4, 3, 4)}, 1e-6, 1e-6); err != nil {
					t.Fatalf("PoissonNLL %+v: %v", o, err)
				}
			}
		}
	}
	// The Stirling term gives no gradient (and no NaN) at a target of 0.
	tg0 := vec(0, 0.5).SetRequiresGrad(true)
	o := DefaultPoissonNLL()
	o.Full = true
	if err := PoissonNLLLoss(vec(0, 0), tg0, o).Backward(); err != nil {
		t.Fatal(err)
	}
	near(t, "PoissonNLL target gradient", tg0.Grad().Float64s(), []float64{0, 0}, 0)
}

// TestMarginLosses checks margin_ranking_loss, hinge_embedding_loss and
// cosine_embedding_loss against loops over their formulas, and their
// gradients.
func TestMarginLosses(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 43))
	x1, x2 := uniform(rng, -2, 2, 5, 3), uniform(rng, -2, 2, 5, 3)
	y := signs(rng, 5, 3)
	ySample := signs(rng, 5)
	for _, margin := range []float64{0, 0.5} {
		var rank, hinge []float64
		for i := range 15 {
			rank = append(rank, math.Max(0, -y.At(i)*(x1.At(i)-x2.At(i))+margin))
			if y.At(i) == 1 {
				hinge = append(hinge, x1.At(i))
			} else {
				hinge = append(hinge, math.Max(0, margin-x1.At(i)))
			}
		}
		var cosine []float64
		for n := range 5 {
			var dot, s1, s2 float64
			for d := range 3 {
				a, b := x1.At(n*3+d), x2.At(n*3+d)
				dot, s1, s2 = dot+a*b, s1+a*a, s2+b*b
			}
			cos := dot / math.Sqrt((s1+1e-12)*(s2+1e-12))
			if ySample.At(n) == 1 {
				cosine = append(cosine, 1-cos)
			} else {
				cosine = append(cosine, math.Max(0, cos-margin))
			}
		}
		for _, r := range reductions() {
			near(t, "MarginRanking", MarginRankingLoss(x1, x2, y, margin, r).Float64s(), refMean(rank, r), 1e-12)
			near(t, "HingeEmbedding", HingeEmbeddingLoss(x1, y, margin, r).Float64s(), refMean(hinge, r), 1e-12)
			near(t, "CosineEmbedding", CosineEmbeddingLoss(x1, x2, ySample, margin, r).Float64s(), refMean(cosine, r), 1e-12)
			grads := []struct {
				name string
				f    func(in []*autograd.Tensor) *autograd.Tensor
				in   []*autograd.Tensor
			}{
				{"MarginRanking", func(in []*autograd.Tensor) *autograd.Tensor { return MarginRankingLoss(in[0], in[1], in[2], margin, r) }, []*autograd.Tensor{x1, x2, y}},
				{"HingeEmbedding", func(in []*autograd.Tensor) *autograd.Tensor { return HingeEmbeddingLoss(in[0], y, margin, r) }, []*autograd.Tensor{x1}},
				{"CosineEmbedding", func(in []*autograd.Tensor) *autograd.Tensor {
					return CosineEmbeddingLoss(in[0], in[1], ySample, margin, r)
				}, []*autograd.Tensor{x1, x2}},
			}
			for _, g := range grads {
				if err := autograd.CheckGrad(g.f, g.in, 1e-6, 1e-6); err != nil {
					t.Fatalf("%s margin %v reduction %d: %v", g.name, margin, r, err)
				}
			}
		}
	}
	// PyTorch's clamp_min passes the gradient at exactly 0 (self >= min):
	// -y·(x1 - x2) + margin = -(1 - 0.5) + 0.5 = 0 gives d/dx1 = -y = -1.
	a := vec(1).SetRequiresGrad(true)
	if err := MarginRankingLoss(a, vec(0.5), vec(1), 0.5, ReduceSum).Backward(); err != nil {
		t.Fatal(err)
	}
	near(t, "MarginRanking gradient at the kink", a.Grad().Float64s(), []float64{-1}, 0)
	// A label that is neither 1 nor -1 gets both hinge terms, as PyTorch.
	near(t, "HingeEmbedding label 0", HingeEmbeddingLoss(vec(0.25), vec(0), 1, ReduceSum).Float64s(), []float64{0.25 + 0.75}, 1e-15)
	// One unbatched pair: [D] inputs with a 0-D label.
	u1, u2 := vec(1, 0), vec(1, 1)
	near(t, "CosineEmbedding unbatched", CosineEmbeddingLoss(u1, u2, autograd.Scalar64(1), 0, ReduceNone).Float64s(), []float64{1 - 1/math.Sqrt((1+1e-12)*(2+1e-12))}, 1e-12)
	mustPanic(t, "cosine label shape", func() { CosineEmbeddingLoss(x1, x2, y, 0, ReduceMean) }, "nn: CosineEmbeddingLoss:", "[5 3]")
	mustPanic(t, "ranking shapes", func() { MarginRankingLoss(x1, x2, ySample, 0, ReduceMean) }, "nn: MarginRankingLoss:", "[5]")
}

// TestTripletMarginLoss: max(0, margin + d(a, p) - d(a, n)) with d(x, y) =
// ‖x - y + eps‖_p, the swap taking min(d(a, n), d(p, n)).
func TestTripletMarginLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 44))
	a, p, n := uniform(rng, -1, 1, 4, 3), uniform(rng, -1, 1, 4, 3), uniform(rng, -1, 1, 4, 3)
	dist := func(x, y *autograd.Tensor, row int, pw, eps float64) float64 {
		var s, m float64
		for d := range 3 {
			v := math.Abs(x.At(row*3+d) - y.At(row*3+d) + eps)
			s += math.Pow(v, pw)
			m = math.Max(m, v)
		}
		if math.IsInf(pw, 1) {
			return m
		}
		return math.Pow(s, 1/pw)
	}
	for _, pw := range []float64{2, 1, 3, 1.5, math.Inf(1)} {
		for _, swap := range []bool{false, true} {
			o := DefaultTriplet()
			o.P, o.Swap, o.Margin = pw, swap, 0.3
			var per []float64
			for row := range 4 {
				neg := dist(a, n, row, pw, o.Eps)
				if swap {
					neg = math.Min(neg, dist(p, n, row, pw, o.Eps))
				}
				per = append(per, math.Max(0, o.Margin+dist(a, p, row, pw, o.Eps)-neg))
			}
			for _, r := range reductions() {
				o.Reduction = r
				near(t, "TripletMargin", TripletMarginLoss(a, p, n, o).Float64s(), refMean(per, r), 1e-12)
				f := func(in []*autograd.Tensor) *autograd.Tensor { return TripletMarginLoss(in[0], in[1], in[2], o) }
				if err := autograd.CheckGrad(f, []*autograd.Tensor{a, p, n}, 1e-6, 1e-6); err != nil {
					t.Fatalf("TripletMargin p=%v swap=%v reduction %d: %v", pw, swap, r, err)
				}
			}
		}
	}
	// One unbatched triplet [D]: a 0-D loss.
	if l := TripletMarginLoss(vec(0, 0), vec(1, 0), vec(0, 3), DefaultTriplet()); l.Dim() != 0 {
		t.Fatalf("unbatched triplet loss shape %v, want 0-D", l.Shape())
	}
	mustPanic(t, "triplet p", func() { o := DefaultTriplet(); o.P = 0; TripletMarginLoss(a, p, n, o) }, "nn: TripletMarginLoss:", "p 0")
	mustPanic(t, "triplet shapes", func() { TripletMarginLoss(a, p, vec(1, 2, 3), DefaultTriplet()) }, "nn: TripletMarginLoss:", "[4 3]", "[3]")
}

// TestMultiLabelSoftMarginLoss: -Σ_c w_c(y_c log σ(x_c) + (1-y_c) log
// σ(-x_c))/C per sample, then the reduction over samples.
func TestMultiLabelSoftMarginLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 45))
	x := uniform(rng, -3, 3, 4, 5)
	y := autograd.Zeros(autograd.Float64, 4, 5)
	for i := range y.Len() {
		y.SetAt(i, float64(rng.IntN(2)))
	}
	w := uniform(rng, 0.5, 2, 5)
	logSigmoid := func(v float64) float64 { return -math.Log1p(math.Exp(-v)) }
	for _, weight := range []*autograd.Tensor{nil, w} {
		var per []float64
		for row := range 4 {
			s := 0.0
			for c := range 5 {
				xi, yi := x.At(row*5+c), y.At(row*5+c)
				wc := 1.0
				if weight != nil {
					wc = weight.At(c)
				}
				s -= wc * (yi*logSigmoid(xi) + (1-yi)*logSigmoid(-xi))
			}
			per = append(per, s/5)
		}
		for _, r := range reductions() {
			near(t, "MultiLabelSoftMargin", MultiLabelSoftMarginLoss(x, y, weight, r).Float64s(), refMean(per, r), 1e-12)
			f := func(in []*autograd.Tensor) *autograd.Tensor { return MultiLabelSoftMarginLoss(in[0], in[1], weight, r) }
			if err := autograd.CheckGrad(f, []*autograd.Tensor{x, uniform(rng, 0, 1, 4, 5)}, 1e-6, 1e-6); err != nil {
				t.Fatalf("MultiLabelSoftMargin reduction %d: %v", r, err)
			}
		}
	}
	if l := MultiLabelSoftMarginLoss(vec(1, -1), vec(1, 0), nil, ReduceNone); l.Dim() != 0 {
		t.Fatalf("unbatched loss shape %v, want 0-D", l.Shape())
	}
	mustPanic(t, "weight", func() { MultiLabelSoftMarginLoss(x, y, vec(1, 2), ReduceMean) }, "nn: MultiLabelSoftMarginLoss:", "weight [2]")
}

// TestGradGradMoreLosses: the new losses are compositions of autograd ops,
// so their gradients are differentiable again (autograd.CheckGradGrad).
func TestGradGradMoreLosses(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 46))
	a, b, c := uniform(rng, -1, 1, 3, 4), uniform(rng, -1, 1, 3, 4), uniform(rng, -1, 1, 3, 4)
	y, ySample := signs(rng, 3, 4), signs(rng, 3)
	pos := uniform(rng, 0.2, 2, 3, 4)
	triplet := DefaultTriplet()
	triplet.Swap, triplet.Margin = true, 2 // a margin that keeps every triplet active
	cases := []struct {
		name string
		f    func(x []*autograd.Tensor) *autograd.Tensor
		in   []*autograd.Tensor
	}{
		{"KLDiv", func(x []*autograd.Tensor) *autograd.Tensor {
			return KLDivLoss(autograd.LogSoftmax(x[0], 1), x[1], KLDivOptions{BatchMean: true})
		}, []*autograd.Tensor{a, pos}},
		{"KLDiv log target", func(x []*autograd.Tensor) *autograd.Tensor {
			return KLDivLoss(x[0], x[1], KLDivOptions{LogTarget: true})
		}, []*autograd.Tensor{a, b}},
		{"GaussianNLL", func(x []*autograd.Tensor) *autograd.Tensor {
			return GaussianNLLLoss(x[0], x[1], x[2], DefaultGaussianNLL())
		}, []*autograd.Tensor{a, b, pos}},
		{"PoissonNLL", func(x []*autograd.Tensor) *autograd.Tensor {
			o := DefaultPoissonNLL()
			o.LogInput, o.Full = false, true
			return PoissonNLLLoss(x[0], x[1], o)
		}, []*autograd.Tensor{pos, autograd.AddScalar(pos, 1)}},
		{"MarginRanking", func(x []*autograd.Tensor) *autograd.Tensor {
			return autograd.Square(MarginRankingLoss(x[0], x[1], y, 3, ReduceNone))
		}, []*autograd.Tensor{a, b}},
		{"HingeEmbedding", func(x []*autograd.Tensor) *autograd.Tensor {
			return autograd.Square(HingeEmbeddingLoss(x[0], y, 2, ReduceNone))
		}, []*autograd.Tensor{a}},
		{"CosineEmbedding", func(x []*autograd.Tensor) *autograd.Tensor {
			return CosineEmbeddingLoss(x[0], x[1], ySample, -1, ReduceSum)
		}, []*autograd.Tensor{a, b}},
		{"TripletMargin", func(x []*autograd.Tensor) *autograd.Tensor {
			return TripletMarginLoss(x[0], x[1], x[2], triplet)
		}, []*autograd.Tensor{a, b, c}},
		{"MultiLabelSoftMargin", func(x []*autograd.Tensor) *autograd.Tensor {
			return MultiLabelSoftMarginLoss(x[0], x[1], vec(1, 2, 0.5, 1), ReduceMean)
		}, []*autograd.Tensor{a, autograd.Sigmoid(b)}},
	}
	for _, c := range cases {
		checkGradGrad(t, c.name, c.f, c.in...)
	}
}
