package nn

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn/tensorfile"
	"github.com/dlca/dlca/internal/torchtest"
)

// roundTripModelA and roundTripModelB are the architectures of
// testdata/torch/roundtrip.py's model_a and model_b.
func roundTripModelA(rng *rand.Rand) *Sequential {
	f := autograd.Float32
	return NewSequential(NewLinear(4, 8, true, f, rng), NewBatchNorm1d(8, DefaultBatchNorm(), f), ReLU,
		NewLinear(8, 6, true, f, rng), NewLayerNorm([]int{6}, 1e-5, true, f), NewLinear(6, 3, true, f, rng))
}

func roundTripModelB(rng *rand.Rand) *Sequential {
	f := autograd.Float64
	return NewSequential(NewConv2d(2, 3, 3, autograd.Conv2dConfig{Padding: [2]int{1, 1}}, true, f, rng),
		NewBatchNorm2d(3, DefaultBatchNorm(), f), Tanh, Flatten, NewLinear(48, 2, true, f, rng))
}

func randomTensor(dtype autograd.DType, rng *rand.Rand, shape ...int) *autograd.Tensor {
	t := autograd.Zeros(dtype, shape...)
	for i := range t.Len() {
		t.SetAt(i, rng.NormFloat64())
	}
	return t
}

// TestTorchRoundTrip writes two models from Go (a float32 MLP with
// BatchNorm1d and LayerNorm as torch.save's format, a float64 CNN with
// BatchNorm2d as safetensors), loads them in PyTorch and compares the
// outputs on the same inputs to 1e-6; then loads models PyTorch saved
// with torch.save and compares Go's outputs with PyTorch's to 1e-6. One
// python start does PyTorch's half of both directions.
func TestTorchRoundTrip(t *testing.T) {
	torchtest.Require(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	a, b := roundTripModelA(rng), roundTripModelB(rng)
	// One training batch moves the running statistics off 0 and 1.
	a.Forward(randomTensor(autograd.Float32, rng, 5, 4))
	b.Forward(randomTensor(autograd.Float64, rng, 3, 2, 4, 4))
	SetTraining(a, false)
	SetTraining(b, false)
	xa, xb := randomTensor(autograd.Float32, rng, 6, 4), randomTensor(autograd.Float64, rng, 2, 2, 4, 4)
	io := tensorfile.StateDict{}
	for _, nt := range []NamedTensor{{"x_a", xa}, {"y_a", a.Forward(xa)}, {"x_b", xb}, {"y_b", b.Forward(xb)}} {
		e, err := tensorfile.EntryOf(nt.Name, nt.Tensor)
		if err != nil {
			t.Fatal(err)
		}
		io = append(io, e)
	}
	writeStateDict(t, filepath.Join(dir, "io.pt"), io)
	if err := SaveTorch(filepath.Join(dir, "go_a.pt"), a); err != nil {
		t.Fatal(err)
	}
	if err := SaveSafetensors(filepath.Join(dir, "go_b.safetensors"), b); err != nil {
		t.Fatal(err)
	}

	torchtest.Run(t, "testdata/torch/roundtrip.py", dir)

	ta, tb := roundTripModelA(rng), roundTripModelB(rng)
	SetTraining(ta, false)
	SetTraining(tb, false)
	if err := LoadTorch(filepath.Join(dir, "torch_a.pt"), ta); err != nil {
		t.Fatal(err)
	}
	if err := LoadTorch(filepath.Join(dir, "torch_b.pt"), tb); err != nil {
		t.Fatal(err)
	}
	want, err := readTorchFile(filepath.Join(dir, "torch_io.pt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  *autograd.Tensor
	}{{"y_a", ta.Forward(xa)}, {"y_b", tb.Forward(xb)}} {
		e, ok := want.Get(c.name)
		if !ok {
			t.Fatalf("torch_io.pt has no %q", c.name)
		}
		w := e.Float64s()
		g := c.got.Float64s()
		if len(g) != len(w) {
			t.Fatalf("%s: %d values, PyTorch's %d", c.name, len(g), len(w))
		}
		for i := range w {
			if d := math.Abs(g[i] - w[i]); !(d <= 1e-6) {
				t.Errorf("%s[%d] = %v, PyTorch's %v (differs by %g > 1e-6)", c.name, i, g[i], w[i], d)
			}
		}
	}
}

func writeStateDict(t *testing.T, path string, sd tensorfile.StateDict) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := tensorfile.WriteTorch(f, sd); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
