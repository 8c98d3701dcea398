package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// TestPReLU checks PReLU's values and gradients by hand (PyTorch's prelu
// backward: g·(x > 0 ? 1 : w) for the input, Σ g·x over x <= 0 for the
// slope, so x = 0 takes the slope's side), with one slope and with one per
// channel, and against finite differences to second order.
func TestPReLU(t *testing.T) {
	p := NewPReLU(1, autograd.Float64)
	near(t, "init", p.Weight.Float64s(), []float64{0.25}, 0)
	x := vec(-2, 0, 3, -1).SetRequiresGrad(true)
	y := p.Forward(x)
	near(t, "prelu", y.Float64s(), []float64{-0.5, 0, 3, -0.25}, 1e-15)
	if err := autograd.Sum(y, false).Backward(); err != nil {
		t.Fatal(err)
	}
	near(t, "input grad", x.Grad().Float64s(), []float64{0.25, 0.25, 1, 0.25}, 0)
	near(t, "slope grad", p.Weight.Grad().Float64s(), []float64{-3}, 0)

	// Per channel: x [2, 3, 2], slopes 0.1, 0.2, 0.3 along axis 1.
	pc := NewPReLU(3, autograd.Float64)
	pc.Weight = autograd.New64([]float64{0.1, 0.2, 0.3}, 3).SetRequiresGrad(true)
	xc := autograd.New64([]float64{-1, 1, -2, 2, -3, 3, 4, -4, 5, -5, 6, -6}, 2, 3, 2)
	yc := pc.Forward(xc)
	near(t, "per channel", yc.Float64s(), []float64{-0.1, 1, -0.4, 2, -0.9, 3, 4, -0.4, 5, -1, 6, -1.8}, 1e-15)
	if err := autograd.Sum(yc, false).Backward(); err != nil {
		t.Fatal(err)
	}
	near(t, "per-channel slope grad", pc.Weight.Grad().Float64s(), []float64{-5, -7, -9}, 0)
	mustPanic(t, "channels", func() { pc.Forward(autograd.Zeros(autograd.Float64, 2, 4)) }, "PReLU", "3 slopes")

	rng := rand.New(rand.NewPCG(5, 6))
	in := []*autograd.Tensor{uniform(rng, -1, 1, 2, 3, 4), uniform(rng, 0.1, 0.5, 3)}
	f := func(in []*autograd.Tensor) *autograd.Tensor {
		layer := &PReLU{Weight: in[1]}
		return autograd.Square(layer.Forward(in[0]))
	}
	if err := autograd.CheckGrad(f, in, 1e-6, 1e-6); err != nil {
		t.Fatal(err)
	}
	checkGradGrad(t, "PReLU", f, in...)
}

// TestConvTranspose2dLayer checks the layer's weight layout (PyTorch's
// [in, out/groups, k, k]), its initial bound (1/√fan_in with fan_in =
// out/groups·k·k, as torch.nn.ConvTranspose2d), and that Forward is the
// functional op.
func TestConvTranspose2dLayer(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cfg := autograd.ConvTranspose2dConfig{Stride: [2]int{2, 2}, Groups: 2}
	c := NewConvTranspose2d(4, 6, 3, cfg, true, autograd.Float64, rng)
	if !slices.Equal(c.Weight.Shape(), []int{4, 3, 3, 3}) || !slices.Equal(c.Bias.Shape(), []int{6}) {
		t.Fatalf("weight %v, bias %v; want [4 3 3 3] and [6]", c.Weight.Shape(), c.Bias.Shape())
	}
	bound := 1 / math.Sqrt(3*3*3)
	for _, p := range c.Parameters() {
		for _, v := range p.Float64s() {
			if math.Abs(v) > bound {
				t.Fatalf("initial value %v beyond ±%v", v, bound)
			}
		}
	}
	x := uniform(rng, -1, 1, 2, 4, 3, 3)
	y := c.Forward(x)
	if !slices.Equal(y.Shape(), []int{2, 6, 7, 7}) {
		t.Fatalf("output %v, want [2 6 7 7]", y.Shape())
	}
	near(t, "forward", y.Float64s(), autograd.ConvTranspose2d(x, c.Weight, c.Bias, cfg).Float64s(), 0)
	mustPanic(t, "groups", func() { NewConvTranspose2d(3, 4, 3, cfg, false, autograd.Float32, rng) }, "NewConvTranspose2d", "groups 2")
}

// TestAdaptiveAvgPool2dModule: to size 1 it is the mean over each plane.
func TestAdaptiveAvgPool2dModule(t *testing.T) {
	x := uniform(rand.New(rand.NewPCG(1, 2)), -1, 1, 2, 3, 5, 4)
	y := AdaptiveAvgPool2d{Size: [2]int{1, 1}}.Forward(x)
	near(t, "global average", y.Float64s(), autograd.Mean(x, true, 2, 3).Float64s(), 1e-12)
}

// TestCheckpointSequential: for every number of segments, the output and
// the gradients of the parameters and the input are bit for bit those of
// the plain forward pass; with data that needs no gradient, the
// parameters still get theirs (use_reentrant=False's behaviour).
func TestCheckpointSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	model := NewSequential(NewLinear(5, 8, true, autograd.Float64, rng), Func(autograd.Tanh),
		NewLinear(8, 8, true, autograd.Float64, rng), NewPReLU(1, autograd.Float64), NewLinear(8, 3, true, autograd.Float64, rng))
	data := uniform(rng, -1, 1, 4, 5)
	run := func(forward func(x *autograd.Tensor) *autograd.Tensor, inputGrad bool) [][]float64 {
		for _, p := range model.Parameters() {
			p.ZeroGrad()
		}
		x := data.Clone()
		if inputGrad {
			x.SetRequiresGrad(true)
		}
		y := forward(x)
		if err := autograd.Sum(autograd.Square(y), false).Backward(); err != nil {
			t.Fatal(err)
		}
		out := [][]float64{y.Float64s()}
		if inputGrad {
			out = append(out, x.Grad().Float64s())
		}
		for _, p := range model.Parameters() {
			out = append(out, p.Grad().Float64s())
		}
		return out
	}
	for _, inputGrad := range []bool{true, false} {
		want := run(model.Forward, inputGrad)
		for segments := 1; segments <= len(model.Layers); segments++ {
			got := run(func(x *autograd.Tensor) *autograd.Tensor { return CheckpointSequential(model.Layers, segments, x) }, inputGrad)
			for i := range want {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("%d segments, input grad %v: result %d differs: %v, want %v", segments, inputGrad, i, got[i], want[i])
				}
			}
		}
	}
	mustPanic(t, "segments", func() { CheckpointSequential(model.Layers, 6, data) }, "CheckpointSequential", "6 segments for 5 layers")
}
