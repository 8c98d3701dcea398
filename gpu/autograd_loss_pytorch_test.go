package gpu

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
)

// The GPU twins of autograd/nn's pytorch_match_test.go: the cases where an
// independent comparison with PyTorch 1.13 once disagreed on this device.

// countReadbacks counts every readback from now until the test ends, through
// the readFault hook (which then fails none).
func countReadbacks(t *testing.T) *int {
	n := new(int)
	readFault = func() bool { *n++; return false }
	t.Cleanup(func() { readFault = nil })
	return n
}

// TestClassLossesReadNothingBack: with the logits, targets and class weights
// on the device, the class losses build their constants there: the forward
// and backward passes read nothing back (docs/gpu.md: "constants are built
// on the device"); only the final To(CPU) does.
func TestClassLossesReadNothingBack(t *testing.T) {
	a := testAutograd(t)
	w, err := autograd.New([]float32{0.5, 2, 1, 1.5}, 4).To(a)
	if err != nil {
		t.Fatal(err)
	}
	targets := []int{3, 0, -100, 1, 2}
	losses := map[string]func(x, p *autograd.Tensor) *autograd.Tensor{
		"CrossEntropyLossWith": func(x, _ *autograd.Tensor) *autograd.Tensor {
			return nn.CrossEntropyLossWith(x, targets, nn.ClassOptions{Weight: w, LabelSmoothing: 0.1})
		},
		"NLLLossWith": func(x, _ *autograd.Tensor) *autograd.Tensor {
			return nn.NLLLossWith(autograd.LogSoftmax(x, 1), targets, nn.ClassOptions{Weight: w})
		},
		"CrossEntropyLossProbs": func(x, p *autograd.Tensor) *autograd.Tensor {
			return nn.CrossEntropyLossProbs(x, autograd.Softmax(p, 1), nn.ClassOptions{Weight: w, LabelSmoothing: 0.2})
		},
	}
	for name, f := range losses {
		x, err := randTensor(3, -2, 2, 5, 4).To(a)
		if err != nil {
			t.Fatal(err)
		}
		p, err := randTensor(4, -2, 2, 5, 4).To(a)
		if err != nil {
			t.Fatal(err)
		}
		x.SetRequiresGrad(true)
		reads := countReadbacks(t)
		loss := f(x, p)
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		if *reads != 0 {
			t.Fatalf("%s: %d readbacks during forward and backward, want 0", name, *reads)
		}
		toCPU(t, x.Grad())
		if *reads != 1 {
			t.Fatalf("%s: %d readbacks after reading the gradient, want 1", name, *reads)
		}
	}
}

// TestCrossEntropyZeroWeightSumIsNaNOnDevice: the comparison's case on the
// device. PyTorch divides (1-ε)·Σ w[t]·nll (0 here) and ε/C·Σ smooth
// (positive) by the weight sum 0 separately: NaN + Inf = NaN.
func TestCrossEntropyZeroWeightSumIsNaNOnDevice(t *testing.T) {
	a := testAutograd(t)
	x, err := randTensor(5, -2, 2, 6, 5).To(a)
	if err != nil {
		t.Fatal(err)
	}
	w, err := autograd.New([]float32{0, 0, 1, 0, 0}, 5).To(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0.1, 0} {
		l := nn.CrossEntropyLossWith(x, []int{0, 1, 3, 4, 0, 1}, nn.ClassOptions{Weight: w, LabelSmoothing: eps})
		if v := toCPU(t, l).Item(); !math.IsNaN(v) {
			t.Fatalf("ε = %v: %v on %v, want NaN (PyTorch)", eps, v, a)
		}
	}
}

// TestBatchNormBuffersUpdateInPlaceOnDevice: as on the CPU and in PyTorch,
// training updates RunningMean and RunningVar in place on the device, so a
// list from nn.Buffers taken before the forward pass sees the new values.
func TestBatchNormBuffersUpdateInPlaceOnDevice(t *testing.T) {
	a := testAutograd(t)
	x := randTensor(6, -2, 3, 4, 3, 2, 2)
	var want []*autograd.Tensor
	for _, dev := range []autograd.Device{autograd.CPU, a} {
		bn := nn.NewBatchNorm2d(3, nn.DefaultBatchNorm(), autograd.Float32)
		if err := nn.To(bn, dev); err != nil {
			t.Fatal(err)
		}
		xd, err := x.To(dev)
		if err != nil {
			t.Fatal(err)
		}
		before := nn.Buffers(bn)
		bn.Forward(xd)
		bn.Forward(autograd.MulScalar(xd, 2))
		after := nn.Buffers(bn)
		for i := range before {
			if before[i] != after[i] {
				t.Fatalf("%v: buffer %d replaced by a new tensor; want it updated in place", dev, i)
			}
		}
		got := []*autograd.Tensor{toCPU(t, before[0]), toCPU(t, before[1])}
		if dev == autograd.CPU {
			want = got
			continue
		}
		closeTo(t, "running mean", got[0].Data32(), want[0].Data32(), tolReduce)
		closeTo(t, "running variance", got[1].Data32(), want[1].Data32(), tolReduce)
	}
}

// TestMoreLossParity holds the losses added for issue 29 (and the class
// losses' unbatched input and default ignore index) on the GPU, with the
// gradients of every input, to the CPU: each reduction and each loss's own
// options. They are compositions of autograd ops, so the device runs them
// with no kernel of their own.
func TestMoreLossParity(t *testing.T) {
	testAutograd(t)
	sign := autograd.Sign // ±1 labels from random inputs (no gradient)
	var cases []opCase
	for _, r := range []nn.Reduction{nn.ReduceMean, nn.ReduceSum, nn.ReduceNone} {
		gauss := nn.DefaultGaussianNLL()
		gauss.Reduction = r
		gaussFull := gauss
		gaussFull.Full = true
		poisson := nn.DefaultPoissonNLL()
		poisson.Reduction, poisson.Full = r, true
		rate := poisson
		rate.LogInput = false
		cases = append(cases,
			opCase{"KLDivLoss", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.KLDivLoss(autograd.LogSoftmax(xs[0], 1), autograd.Softmax(xs[1], 1), nn.KLDivOptions{Reduction: r})
			}},
			opCase{"KLDivLossLogTarget", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.KLDivLoss(autograd.LogSoftmax(xs[0], 1), autograd.LogSoftmax(xs[1], 1), nn.KLDivOptions{Reduction: r, LogTarget: true, BatchMean: r == nn.ReduceMean})
			}},
			opCase{"GaussianNLLLoss", [][]int{{7, 5}, {7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.GaussianNLLLoss(xs[0], xs[1], autograd.Exp(xs[2]), gauss)
			}},
			opCase{"GaussianNLLLossShared", [][]int{{7, 5}, {7, 5}, {7}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.GaussianNLLLoss(xs[0], xs[1], autograd.Exp(xs[2]), gaussFull)
			}},
			opCase{"PoissonNLLLoss", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.PoissonNLLLoss(xs[0], autograd.Exp(xs[1]), poisson)
			}},
			opCase{"PoissonNLLLossRate", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.PoissonNLLLoss(autograd.Exp(xs[0]), autograd.Exp(xs[1]), rate)
			}},
			opCase{"MarginRankingLoss", [][]int{{65}, {65}, {65}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.MarginRankingLoss(xs[0], xs[1], sign(xs[2]), 0.3, r)
			}},
			opCase{"HingeEmbeddingLoss", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.HingeEmbeddingLoss(xs[0], sign(xs[1]), 1, r)
			}},
			opCase{"CosineEmbeddingLoss", [][]int{{7, 5}, {7, 5}, {7}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.CosineEmbeddingLoss(xs[0], xs[1], sign(xs[2]), 0.2, r)
			}},
			opCase{"MultiLabelSoftMarginLoss", [][]int{{7, 5}, {7, 5}, {5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.MultiLabelSoftMarginLoss(xs[0], autograd.Sigmoid(xs[1]), autograd.Exp(xs[2].Detach()), r)
			}},
			opCase{"CrossEntropyLossUnbatched", [][]int{{5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.CrossEntropyLossWith(xs[0], []int{3}, nn.ClassOptions{Reduction: r, LabelSmoothing: 0.1})
			}},
			opCase{"NLLLossDefaultIgnore", [][]int{{7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.NLLLoss(autograd.LogSoftmax(xs[0], 1), []int{2, -100, 4, 4, -100, 3, 0}, r)
			}},
		)
		for _, p := range []float64{2, 1, 3, math.Inf(1)} {
			o := nn.DefaultTriplet()
			o.Reduction, o.P, o.Swap = r, p, p != 2
			cases = append(cases, opCase{"TripletMarginLoss", [][]int{{7, 5}, {7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
				return nn.TripletMarginLoss(xs[0], xs[1], xs[2], o)
			}})
		}
	}
	checkCases(t, tolReduce, cases)
}

// TestClipGradNormNonFiniteOnDevice: clip_grad_norm_'s default
// (error_if_nonfinite=False) scales device gradients by the NaN coefficient
// of a NaN norm without an error, as on the CPU; with ErrorIfNonfinite it
// returns an error and leaves them alone.
func TestClipGradNormNonFiniteOnDevice(t *testing.T) {
	a := testAutograd(t)
	for _, raise := range []bool{false, true} {
		p, err := autograd.New([]float32{1, 2}, 2).To(a)
		if err != nil {
			t.Fatal(err)
		}
		g, err := autograd.New([]float32{float32(math.NaN()), 5}, 2).To(a)
		if err != nil {
			t.Fatal(err)
		}
		p.SetGrad(g)
		norm, err := optim.ClipGradNormWith([]*autograd.Tensor{p}, 1, 2, optim.ClipNormOptions{ErrorIfNonfinite: raise})
		if !math.IsNaN(norm) || (err != nil) != raise {
			t.Fatalf("ErrorIfNonfinite %v: norm %v, err %v", raise, norm, err)
		}
		got := toCPU(t, p.Grad()).At(1)
		if raise && got != 5 || !raise && !math.IsNaN(got) {
			t.Fatalf("ErrorIfNonfinite %v: gradient %v, want 5 (left alone) or NaN (scaled by NaN)", raise, got)
		}
	}
}
