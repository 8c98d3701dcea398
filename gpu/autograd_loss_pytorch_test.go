package gpu

import (
	"math"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
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
