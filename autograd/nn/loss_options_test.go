package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// mustPanic runs f and fails unless it panics with a message containing
// every part.
func mustPanic(t *testing.T, name string, f func(), parts ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("%s: no panic", name)
		}
		msg, _ := r.(string)
		for _, p := range parts {
			if !strings.Contains(msg, p) {
				t.Fatalf("%s: panic %q does not mention %q", name, msg, p)
			}
		}
	}()
	f()
}

func reductions() []Reduction { return []Reduction{ReduceMean, ReduceSum, ReduceNone} }

// refClassLoss is PyTorch's documented cross_entropy / nll_loss for class
// targets, written as plain loops: x is [n, c, s] row-major (s = d1·...);
// logits says whether x holds logits (log-softmax taken here) or
// log-probabilities. w nil means all ones.
func refClassLoss(x []float64, n, c, s int, targets []int, w []float64, ignore bool, ignoreIndex int, eps float64, logits bool, r Reduction) []float64 {
	weight := func(k int) float64 {
		if w == nil {
			return 1
		}
		return w[k]
	}
	var losses []float64
	var total float64
	for i := 0; i < n; i++ {
		for j := 0; j < s; j++ {
			logp := make([]float64, c)
			lse := 0.0
			if logits {
				m := math.Inf(-1)
				for k := 0; k < c; k++ {
					m = math.Max(m, x[(i*c+k)*s+j])
				}
				for k := 0; k < c; k++ {
					lse += math.Exp(x[(i*c+k)*s+j] - m)
				}
				lse = m + math.Log(lse)
			}
			for k := 0; k < c; k++ {
				logp[k] = x[(i*c+k)*s+j] - lse
			}
			t := targets[i*s+j]
			l := 0.0
			if !ignore {
				ignoreIndex = -100 // PyTorch's default ignore_index
			}
			if t != ignoreIndex {
				smooth := 0.0
				for k := 0; k < c; k++ {
					smooth -= weight(k) * logp[k]
				}
				l = (1-eps)*(-weight(t)*logp[t]) + eps/float64(c)*smooth
				total += weight(t)
			}
			losses = append(losses, l)
		}
	}
	return refReduce(losses, r, total)
}

// refReduce applies reduction r to losses; the mean divides by denom.
func refReduce(losses []float64, r Reduction, denom float64) []float64 {
	sum := 0.0
	for _, l := range losses {
		sum += l
	}
	switch r {
	case ReduceNone:
		return losses
	case ReduceSum:
		return []float64{sum}
	}
	return []float64{sum / denom}
}

// refSoftLoss is cross_entropy with probability targets p (same layout as
// x): -Σ_k w_k·p'_k·logsoftmax(x)_k with p' = (1-ε)p + ε/c; the mean divides
// by n·s.
func refSoftLoss(x, p []float64, n, c, s int, w []float64, eps float64, r Reduction) []float64 {
	var losses []float64
	for i := 0; i < n; i++ {
		for j := 0; j < s; j++ {
			lse := 0.0
			for k := 0; k < c; k++ {
				lse += math.Exp(x[(i*c+k)*s+j])
			}
			l := 0.0
			for k := 0; k < c; k++ {
				wk := 1.0
				if w != nil {
					wk = w[k]
				}
				pk := (1-eps)*p[(i*c+k)*s+j] + eps/float64(c)
				l -= wk * pk * (x[(i*c+k)*s+j] - math.Log(lse))
			}
			losses = append(losses, l)
		}
	}
	return refReduce(losses, r, float64(n*s))
}

// TestClassLossHandValues checks the class-loss options on values worked
// out by hand.
func TestClassLossHandValues(t *testing.T) {
	logp := autograd.New64([]float64{-1, -2, -3, -4}, 2, 2)
	w := vec(2, 3)
	// softmax([0, ln 3]) = [1/4, 3/4].
	ln3 := math.Log(3)
	cases := []struct {
		name string
		got  *autograd.Tensor
		want []float64
	}{
		// losses 3·2 and 2·3; the mean divides by the weights 3 + 2.
		{"NLL weighted mean", NLLLossWith(logp, []int{1, 0}, ClassOptions{Weight: w}), []float64{12.0 / 5}},
		{"NLL weighted none", NLLLossWith(logp, []int{1, 0}, ClassOptions{Weight: w, Reduction: ReduceNone}), []float64{6, 6}},
		// class 0 ignored: only the first sample (loss 2, weight 1 or 3) counts.
		{"NLL ignore mean", NLLLossWith(logp, []int{1, 0}, ClassOptions{Ignore: true, IgnoreIndex: 0}), []float64{2}},
		{"NLL ignore weighted mean", NLLLossWith(logp, []int{1, 0}, ClassOptions{Ignore: true, Weight: w}), []float64{2}},
		{"NLL ignore none", NLLLossWith(logp, []int{1, 7}, ClassOptions{Ignore: true, IgnoreIndex: 7, Reduction: ReduceNone}), []float64{2, 0}},
		// ε = 0.5 over 2 classes turns target 1 into [0.25, 0.75].
		{"CE smoothing", CrossEntropyLossWith(autograd.New64([]float64{0, ln3}, 1, 2), []int{1}, ClassOptions{LabelSmoothing: 0.5}),
			[]float64{-0.75*math.Log(0.75) - 0.25*math.Log(0.25)}},
		{"CE soft target", CrossEntropyLossProbs(autograd.New64([]float64{0, ln3}, 1, 2), autograd.New64([]float64{0.25, 0.75}, 1, 2), ClassOptions{}),
			[]float64{-0.75*math.Log(0.75) - 0.25*math.Log(0.25)}},
		// Soft targets with weights: the mean divides by N = 2, not by weights.
		{"CE soft weighted mean", CrossEntropyLossProbs(autograd.New64([]float64{0, ln3, 0, ln3}, 2, 2), autograd.New64([]float64{0, 1, 1, 0}, 2, 2), ClassOptions{Weight: w}),
			[]float64{(-3*math.Log(0.75) - 2*math.Log(0.25)) / 2}},
		// [1, 2, 2]: position 0 has logits [0, ln 3], position 1 [ln 3, 0].
		{"CE extra dimension", CrossEntropyLossWith(autograd.New64([]float64{0, ln3, ln3, 0}, 1, 2, 2), []int{1, 1}, ClassOptions{Reduction: ReduceNone}),
			[]float64{-math.Log(0.75), -math.Log(0.25)}},
	}
	for _, c := range cases {
		near(t, c.name, c.got.Float64s(), c.want, 1e-12)
	}
	if s := CrossEntropyLossWith(autograd.Zeros(autograd.Float64, 2, 3, 4, 5), make([]int, 40), ClassOptions{Reduction: ReduceNone}).Shape(); len(s) != 3 || s[0] != 2 || s[1] != 4 || s[2] != 5 {
		t.Fatalf("'none' shape %v, want [2 4 5]", s)
	}
	// Every target ignored: the weighted mean is 0/0, NaN as in PyTorch.
	if v := NLLLossWith(logp, []int{1, 1}, ClassOptions{Ignore: true, IgnoreIndex: 1}).Item(); !math.IsNaN(v) {
		t.Fatalf("mean over no targets = %v, want NaN", v)
	}
	// An ignored position whose log-probability is -Inf stays 0, not NaN.
	inf := autograd.New64([]float64{math.Inf(-1), 0, 0, -1}, 2, 2)
	near(t, "ignored -Inf", NLLLossWith(inf, []int{0, 1}, ClassOptions{Ignore: true, IgnoreIndex: 0, Reduction: ReduceNone}).Float64s(), []float64{0, 1}, 0)
}

// classCase is one combination of class-loss options, checked against the
// reference loops for values and by finite differences for gradients.
type classCase struct {
	name    string
	shape   []int // [N, C, d...]
	targets []int
	opts    ClassOptions
}

func classCases() []classCase {
	w := vec(0.5, 2, 1.5)
	return []classCase{
		{"plain", []int{4, 3}, []int{2, 0, 1, 2}, ClassOptions{}},
		{"weight", []int{4, 3}, []int{2, 0, 1, 2}, ClassOptions{Weight: w}},
		{"ignore", []int{4, 3}, []int{2, 0, 1, 0}, ClassOptions{Ignore: true, IgnoreIndex: 0}},
		{"ignore out of range", []int{4, 3}, []int{2, -100, 1, 0}, ClassOptions{Ignore: true, IgnoreIndex: -100}},
		{"default ignore -100", []int{4, 3}, []int{2, -100, 1, -100}, ClassOptions{}},
		{"default ignore -100 weight smoothing", []int{4, 3}, []int{-100, 0, 1, 2}, ClassOptions{Weight: w, LabelSmoothing: 0.2}},
		{"weight ignore", []int{4, 3}, []int{2, 0, 1, 1}, ClassOptions{Weight: w, Ignore: true, IgnoreIndex: 1}},
		{"smoothing", []int{4, 3}, []int{2, 0, 1, 2}, ClassOptions{LabelSmoothing: 0.2}},
		{"smoothing weight ignore", []int{4, 3}, []int{2, 0, 1, 1}, ClassOptions{Weight: w, Ignore: true, IgnoreIndex: 1, LabelSmoothing: 0.3}},
		{"extra dims", []int{2, 3, 2, 2}, []int{0, 1, 2, 1, 2, 2, 0, 0}, ClassOptions{}},
		{"extra dims all options", []int{2, 3, 3}, []int{0, 1, 2, 1, 2, 0}, ClassOptions{Weight: w, Ignore: true, IgnoreIndex: 2, LabelSmoothing: 0.1}},
	}
}

// split returns N, C and the product of the extra dimensions.
func split(shape []int) (n, c, s int) {
	s = 1
	for _, d := range shape[2:] {
		s *= d
	}
	return shape[0], shape[1], s
}

func weightsOf(o ClassOptions) []float64 {
	if o.Weight == nil {
		return nil
	}
	return o.Weight.Float64s()
}

// TestClassLossReference checks cross-entropy, NLL and soft-target
// cross-entropy under every option and reduction against the reference
// loops.
func TestClassLossReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 20))
	for _, c := range classCases() {
		x := uniform(rng, -3, 3, c.shape...)
		n, nc, s := split(c.shape)
		for _, r := range reductions() {
			o := c.opts
			o.Reduction = r
			want := refClassLoss(x.Float64s(), n, nc, s, c.targets, weightsOf(o), o.Ignore, o.IgnoreIndex, o.LabelSmoothing, true, r)
			near(t, c.name+" CE", CrossEntropyLossWith(x, c.targets, o).Float64s(), want, 1e-12)
			if o.LabelSmoothing == 0 {
				want := refClassLoss(x.Float64s(), n, nc, s, c.targets, weightsOf(o), o.Ignore, o.IgnoreIndex, 0, false, r)
				near(t, c.name+" NLL", NLLLossWith(x, c.targets, o).Float64s(), want, 1e-12)
			}
			if !o.Ignore {
				p := autograd.Softmax(uniform(rng, -1, 1, c.shape...), 1)
				want := refSoftLoss(x.Float64s(), p.Float64s(), n, nc, s, weightsOf(o), o.LabelSmoothing, r)
				near(t, c.name+" soft CE", CrossEntropyLossProbs(x, p, o).Float64s(), want, 1e-12)
			}
		}
	}
}

// forClassLosses calls check with each class loss (cross-entropy; NLL
// without label smoothing; soft-target cross-entropy, through the targets
// too, without Ignore) under every case of classCases and every reduction.
func forClassLosses(seed uint64, check func(name string, f func([]*autograd.Tensor) *autograd.Tensor, in ...*autograd.Tensor)) {
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, c := range classCases() {
		x := uniform(rng, -3, 3, c.shape...)
		p := autograd.Softmax(uniform(rng, -1, 1, c.shape...), 1)
		for _, r := range reductions() {
			o := c.opts
			o.Reduction = r
			name := c.name + " " + [...]string{"mean", "sum", "none"}[r]
			check(name+" CE", func(in []*autograd.Tensor) *autograd.Tensor { return CrossEntropyLossWith(in[0], c.targets, o) }, x)
			if o.LabelSmoothing == 0 {
				check(name+" NLL", func(in []*autograd.Tensor) *autograd.Tensor { return NLLLossWith(in[0], c.targets, o) }, x)
			}
			if !o.Ignore {
				check(name+" soft CE", func(in []*autograd.Tensor) *autograd.Tensor { return CrossEntropyLossProbs(in[0], in[1], o) }, x, p)
			}
		}
	}
}

// TestClassLossGradients checks the class losses under every option and
// reduction by finite differences.
func TestClassLossGradients(t *testing.T) {
	forClassLosses(21, func(name string, f func([]*autograd.Tensor) *autograd.Tensor, in ...*autograd.Tensor) {
		if err := autograd.CheckGrad(f, in, 1e-6, 1e-6); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	})
}

// TestBinaryLossValues checks BCE with weight, BCE-with-logits with weight
// and pos_weight, and SmoothL1, on values worked out by hand.
func TestBinaryLossValues(t *testing.T) {
	ln2 := math.Ln2
	cases := []struct {
		name string
		got  *autograd.Tensor
		want []float64
	}{
		// -2·log 0.25 and -4·log 0.5; the mean divides by 2 elements.
		{"BCE weight", BCELossWith(vec(0.25, 0.5), vec(1, 0), BinaryOptions{Weight: vec(2, 4)}), []float64{4 * ln2}},
		{"BCE weight broadcast", BCELossWith(autograd.New64([]float64{0.5, 0.5, 0.5, 0.5}, 2, 2), autograd.New64([]float64{1, 0, 0, 1}, 2, 2),
			BinaryOptions{Weight: vec(1, 3), Reduction: ReduceNone}), []float64{ln2, 3 * ln2, ln2, 3 * ln2}},
		// σ(0) = ½: -3·log ½; -(3·½·log ½ + ½·log ½) = 2 log 2.
		{"logits pos_weight", BCEWithLogitsLossWith(vec(0, 0), vec(1, 0.5), BinaryOptions{PosWeight: vec(3), Reduction: ReduceNone}), []float64{3 * ln2, 2 * ln2}},
		// Huge logits stay finite: -2·log σ(-800) = 1600; -log(1 - σ(800)) = 800.
		{"logits pos_weight huge", BCEWithLogitsLossWith(vec(-800, 800), vec(1, 0), BinaryOptions{PosWeight: vec(2), Reduction: ReduceNone}), []float64{1600, 800}},
		{"logits weight and pos_weight", BCEWithLogitsLossWith(autograd.New64([]float64{0, 0}, 1, 2), autograd.New64([]float64{1, 1}, 1, 2),
			BinaryOptions{Weight: vec(2, 1), PosWeight: vec(1, 5), Reduction: ReduceSum}), []float64{2*ln2 + 5*ln2}},
		// beta 0.5: 0.1 -> ½·0.01/0.5; 2 -> 2 - 0.25; |0.5| is not < 0.5 -> 0.25.
		{"SmoothL1", SmoothL1Loss(vec(0.1, -2, 0.5), vec(0, 0, 0), 0.5, ReduceNone), []float64{0.01, 1.75, 0.25}},
		{"SmoothL1 beta 0 is L1", SmoothL1Loss(vec(0.1, -2), vec(0, 0), 0, ReduceSum), []float64{2.1}},
		{"SmoothL1 mean", SmoothL1Loss(vec(0.1, -2, 0.5), vec(0, 0, 0), 0.5, ReduceMean), []float64{2.01 / 3}},
	}
	for _, c := range cases {
		near(t, c.name, c.got.Float64s(), c.want, 1e-12)
	}
}

// TestBinaryLossReference checks BCE-with-logits under weight and pos_weight
// against PyTorch's documented (naive) formula
// -w·(pw·t·log σ(x) + (1-t)·log(1-σ(x))), and BCE with weight against
// -w·(t·log p + (1-t)·log(1-p)).
func TestBinaryLossReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	x, tgt := uniform(rng, -4, 4, 3, 4), uniform(rng, 0, 1, 3, 4)
	p := uniform(rng, 0.05, 0.95, 3, 4)
	w, pw := uniform(rng, 0.5, 2, 4), uniform(rng, 0.5, 3, 4)
	xs, ts, ps, ws, pws := x.Float64s(), tgt.Float64s(), p.Float64s(), w.Float64s(), pw.Float64s()
	var logits, bce []float64
	for i := range xs {
		s := 1 / (1 + math.Exp(-xs[i]))
		c := i % 4
		logits = append(logits, -ws[c]*(pws[c]*ts[i]*math.Log(s)+(1-ts[i])*math.Log(1-s)))
		bce = append(bce, -ws[c]*(ts[i]*math.Log(ps[i])+(1-ts[i])*math.Log(1-ps[i])))
	}
	near(t, "BCEWithLogits", BCEWithLogitsLossWith(x, tgt, BinaryOptions{Weight: w, PosWeight: pw, Reduction: ReduceNone}).Float64s(), logits, 1e-12)
	near(t, "BCE", BCELossWith(p, tgt, BinaryOptions{Weight: w, Reduction: ReduceNone}).Float64s(), bce, 1e-12)
}

// lossCase is one regression or binary loss with inputs for the gradient
// checks.
type lossCase struct {
	name string
	in   []*autograd.Tensor
	f    func(x []*autograd.Tensor, r Reduction) *autograd.Tensor
}

// lossCases covers the regression losses, BCE with weight and BCE-with-logits
// with weight and pos_weight (through the targets and weights too).
func lossCases(seed uint64) []lossCase {
	rng := rand.New(rand.NewPCG(seed, seed))
	x, tgt := uniform(rng, -4, 4, 3, 4), uniform(rng, 0, 1, 3, 4)
	p := uniform(rng, 0.05, 0.95, 3, 4)
	w, pw := uniform(rng, 0.5, 2, 4), uniform(rng, 0.5, 3, 4)
	// d away from the kinks at 0 and ±1 (Huber) and ±0.5 (SmoothL1 beta).
	d := autograd.New64([]float64{0.1, -0.3, 2, -3, 0.7, -0.05}, 2, 3)
	dz := []*autograd.Tensor{d, autograd.ZerosLike(d)}
	return []lossCase{
		{"MSE", dz, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return MSELoss(x[0], x[1], r) }},
		{"L1 squared", dz, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor {
			return autograd.Square(L1Loss(x[0], x[1], r))
		}},
		{"Huber", dz, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return HuberLoss(x[0], x[1], 1, r) }},
		{"SmoothL1", dz, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return SmoothL1Loss(x[0], x[1], 0.5, r) }},
		{"BCE", []*autograd.Tensor{p, tgt}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return BCELoss(x[0], x[1], r) }},
		{"BCE weight", []*autograd.Tensor{p, tgt, w}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor {
			return BCELossWith(x[0], x[1], BinaryOptions{Weight: x[2], Reduction: r})
		}},
		{"BCEWithLogits", []*autograd.Tensor{x, tgt}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor { return BCEWithLogitsLoss(x[0], x[1], r) }},
		{"BCEWithLogits weight pos_weight", []*autograd.Tensor{x, tgt, w, pw}, func(x []*autograd.Tensor, r Reduction) *autograd.Tensor {
			return BCEWithLogitsLossWith(x[0], x[1], BinaryOptions{Weight: x[2], PosWeight: x[3], Reduction: r})
		}},
	}
}

// TestBinaryLossGradients checks lossCases, every reduction, by finite
// differences.
func TestBinaryLossGradients(t *testing.T) {
	for _, c := range lossCases(23) {
		for _, r := range reductions() {
			f := func(x []*autograd.Tensor) *autograd.Tensor { return c.f(x, r) }
			if err := autograd.CheckGrad(f, c.in, 1e-6, 1e-6); err != nil {
				t.Fatalf("%s (reduction %d): %v", c.name, r, err)
			}
		}
	}
}

// TestLossBadInput: out-of-range targets, wrong shapes and weights of the
// wrong length panic with a message naming the loss and the shapes.
func TestLossBadInput(t *testing.T) {
	x := autograd.Zeros(autograd.Float64, 2, 3)
	cases := []struct {
		name  string
		f     func()
		parts []string
	}{
		{"target too big", func() { CrossEntropyLoss(x, []int{0, 3}, ReduceMean) }, []string{"nn: CrossEntropyLoss:", "target 3", "[0, 3)", "[2 3]"}},
		{"negative target", func() { NLLLoss(x, []int{-1, 0}, ReduceMean) }, []string{"nn: NLLLoss:", "target -1"}},
		{"-100 with another IgnoreIndex", func() { CrossEntropyLossWith(x, []int{-100, 0}, ClassOptions{Ignore: true, IgnoreIndex: 4}) }, []string{"nn: CrossEntropyLoss:", "target -100", "ignore_index is 4"}},
		{"other target with Ignore", func() { CrossEntropyLossWith(x, []int{5, 0}, ClassOptions{Ignore: true, IgnoreIndex: 4}) }, []string{"target 5"}},
		{"target count", func() { CrossEntropyLoss(x, []int{0}, ReduceMean) }, []string{"nn: CrossEntropyLoss:", "[2 3]", "1 targets"}},
		{"extra dims count", func() { NLLLoss(autograd.Zeros(autograd.Float64, 2, 3, 4), []int{0, 1}, ReduceMean) }, []string{"nn: NLLLoss:", "[2 3 4]", "want N·d1·... = 8"}},
		{"0-D input", func() { CrossEntropyLoss(autograd.Scalar64(1), []int{0}, ReduceMean) }, []string{"nn: CrossEntropyLoss:", "[]", "want [C], [N, C]"}},
		{"unbatched input, two targets", func() { CrossEntropyLoss(autograd.Zeros(autograd.Float64, 3), []int{0, 1}, ReduceMean) }, []string{"nn: CrossEntropyLoss:", "[1 3]", "2 targets"}},
		{"weight length", func() { CrossEntropyLossWith(x, []int{0, 1}, ClassOptions{Weight: vec(1, 2)}) }, []string{"nn: CrossEntropyLoss:", "weight [2]", "want [3]"}},
		{"soft weight length", func() { CrossEntropyLossProbs(x, x, ClassOptions{Weight: vec(1)}) }, []string{"nn: CrossEntropyLossProbs:", "weight [1]"}},
		{"soft shapes", func() { CrossEntropyLossProbs(x, autograd.Zeros(autograd.Float64, 3, 2), ClassOptions{}) }, []string{"nn: CrossEntropyLossProbs:", "[2 3]", "[3 2]"}},
		{"soft ignore", func() { CrossEntropyLossProbs(x, x, ClassOptions{Ignore: true}) }, []string{"nn: CrossEntropyLossProbs:", "Ignore"}},
		{"smoothing range", func() { CrossEntropyLossWith(x, []int{0, 1}, ClassOptions{LabelSmoothing: 1.5}) }, []string{"nn: CrossEntropyLoss:", "1.5"}},
		{"NLL smoothing", func() { NLLLossWith(x, []int{0, 1}, ClassOptions{LabelSmoothing: 0.1}) }, []string{"nn: NLLLoss:", "label smoothing"}},
		{"BCE weight", func() { BCELossWith(x, x, BinaryOptions{Weight: vec(1, 2)}) }, []string{"nn: BCELoss:", "weight [2]", "[2 3]"}},
		{"BCE pos_weight", func() { BCELossWith(x, x, BinaryOptions{PosWeight: vec(1, 2, 3)}) }, []string{"nn: BCELoss:", "PosWeight"}},
		{"BCE shapes", func() { BCELoss(x, vec(1, 2), ReduceMean) }, []string{"nn: BCELoss:", "[2 3]", "[2]"}},
		{"logits pos_weight", func() { BCEWithLogitsLossWith(x, x, BinaryOptions{PosWeight: vec(1, 2)}) }, []string{"nn: BCEWithLogitsLoss:", "pos_weight [2]", "[2 3]"}},
		{"logits weight", func() { BCEWithLogitsLossWith(x, x, BinaryOptions{Weight: autograd.Zeros(autograd.Float64, 4, 2, 3)}) }, []string{"nn: BCEWithLogitsLoss:", "weight [4 2 3]"}},
		{"SmoothL1 beta", func() { SmoothL1Loss(x, x, -1, ReduceMean) }, []string{"nn: SmoothL1Loss:", "beta -1"}},
		{"SmoothL1 shapes", func() { SmoothL1Loss(x, vec(1), 1, ReduceMean) }, []string{"nn: SmoothL1Loss:", "[2 3]", "[1]"}},
	}
	for _, c := range cases {
		mustPanic(t, c.name, c.f, c.parts...)
	}
}
