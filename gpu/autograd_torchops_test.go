package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// TestTorchOpsParity holds the PyTorch ops composed from other ops
// (rearrange.go, einsum.go, quantile.go, activation_composed.go,
// conv_transpose.go, adaptive_pool.go of autograd) to the CPU: output and
// every input's gradient.
func TestTorchOpsParity(t *testing.T) {
	type f = func(xs ...*autograd.Tensor) *autograd.Tensor
	einsum := func(subs string) f {
		return func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Einsum(subs, xs...) }
	}
	convT := func(cfg autograd.ConvTranspose2dConfig) f {
		return func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.ConvTranspose2d(xs[0], xs[1], xs[2], cfg)
		}
	}
	quantiles := func(cfg autograd.QuantileConfig) f {
		return func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.Quantiles(xs[0], []float64{0, 0.3, 0.5, 1}, cfg)
		}
	}
	cases := []opCase{
		{"Flip", [][]int{{3, 7, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Flip(xs[0], 0, -1) }},
		{"Roll", [][]int{{7, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Roll(xs[0], []int{-2, 64}, 0, 1) }},
		{"RollFlat", [][]int{{3, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Roll(xs[0], []int{4}) }},
		{"Repeat", [][]int{{3, 7}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Repeat(xs[0], 2, 3, 10) }},
		{"Split", [][]int{{7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			p := autograd.Split(xs[0], 3, 0)
			return autograd.Cat(0, autograd.MulScalar(p[2], 3), p[0])
		}},
		{"SplitSizes", [][]int{{2, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			p := autograd.SplitSizes(xs[0], []int{60, 5}, 1)
			return autograd.Cat(1, p[1], autograd.Exp(p[0]))
		}},
		{"Chunk", [][]int{{13, 3}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			p := autograd.Chunk(xs[0], 6, 0) // 3, 3, 3, 3, 1
			return autograd.Cat(0, p[4], autograd.Square(p[1]))
		}},
		{"Einsum", [][]int{{7, 65}, {65, 5}}, einsum("ij,jk->ik")},
		{"Einsum", [][]int{{2, 7, 9}, {2, 9, 5}}, einsum("bij,bjk->bik")},
		{"Einsum", [][]int{{7, 65}}, einsum("ij->ji")},
		{"Einsum", [][]int{{9, 9}}, einsum("ii->")},
		{"Einsum", [][]int{{7}, {65}}, einsum("i,j->ij")},
		{"Einsum", [][]int{{7, 65}}, einsum("ij->j")},
		{"Einsum", [][]int{{2, 3}, {4, 3, 5}, {2, 5}}, einsum("bn,anm,bm->ba")},
		{"Einsum", [][]int{{3, 3, 2}, {2, 4}}, einsum("iij,jk->ik")},
		{"Median", [][]int{{7, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Median(xs[0]) }},
		{"MedianDim", [][]int{{7, 64}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			m, _ := autograd.MedianDim(xs[0], 1, true)
			return m
		}},
		{"Quantile", [][]int{{65}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.Quantile(xs[0], 0.37, autograd.QuantileConfig{})
		}},
		{"Quantiles", [][]int{{5, 7}}, quantiles(autograd.QuantileConfig{AlongAxis: true, Axis: 0})},
		{"QuantilesNearest", [][]int{{5, 7}}, quantiles(autograd.QuantileConfig{AlongAxis: true, Axis: 1, Keepdim: true, Interpolation: autograd.InterpolateNearest})},
		{"QuantilesMidpoint", [][]int{{3, 2, 9}}, quantiles(autograd.QuantileConfig{Interpolation: autograd.InterpolateMidpoint})},
		{"Relu6", [][]int{{1000}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Relu6(autograd.MulScalar(xs[0], 4)) }},
		{"Softsign", [][]int{{1000}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Softsign(xs[0]) }},
		{"Softmin", [][]int{{7, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Softmin(xs[0], 1) }},
		{"ConvTranspose2d", [][]int{{2, 3, 5, 6}, {3, 2, 3, 3}, {2}}, convT(autograd.ConvTranspose2dConfig{})},
		{"ConvTranspose2dStrided", [][]int{{2, 4, 5, 4}, {4, 3, 3, 2}, {6}}, convT(autograd.ConvTranspose2dConfig{
			Stride: [2]int{2, 3}, Padding: [2]int{1, 0}, OutputPadding: [2]int{1, 2}, Groups: 2})},
		{"ConvTranspose2dDilated", [][]int{{1, 2, 4, 4}, {2, 2, 2, 3}, {2}}, convT(autograd.ConvTranspose2dConfig{
			Dilation: [2]int{3, 2}, OutputPadding: [2]int{2, 1}})},
		{"AdaptiveAvgPool2d", [][]int{{2, 3, 7, 9}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.AdaptiveAvgPool2d(xs[0], [2]int{3, 4})
		}},
		{"PReLU", [][]int{{2, 3, 7}, {3}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return (&nn.PReLU{Weight: xs[1]}).Forward(xs[0])
		}},
	}
	checkCases(t, tolReduce, cases)

	// The flattened ArgMax reads the device's values back: the same index.
	x := randTensor(5, -2, 2, 7, 65)
	want := autograd.ArgMaxAll(x)
	for i, dev := range []autograd.Device{autograd.CPU, testAutograd(t)} {
		xd, err := x.To(dev)
		if err != nil {
			t.Fatal(err)
		}
		if got := autograd.ArgMaxAll(xd); got != want {
			t.Fatalf("device %d: ArgMaxAll %d, want %d", i, got, want)
		}
		if got, want := autograd.ArgMinAll(xd), autograd.ArgMinAll(x); got != want {
			t.Fatalf("device %d: ArgMinAll %d, want %d", i, got, want)
		}
	}
}

// TestTorchModulesParity runs the new layers of autograd/nn on both
// devices from the same initial weights (output and input gradient), and
// CheckpointSequential, whose second forward pass runs in the backward
// pass on the device.
func TestTorchModulesParity(t *testing.T) {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(11, 12)) }
	f32 := autograd.Float32
	modules := []struct {
		name  string
		shape []int
		make  func() nn.Module
	}{
		{"ConvTranspose2d", []int{2, 4, 5, 5}, func() nn.Module {
			var layer *nn.ConvTranspose2d = nn.NewConvTranspose2d(4, 2, 3, autograd.ConvTranspose2dConfig{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}}, true, f32, rng())
			return layer
		}},
		{"AdaptiveAvgPool2d", []int{2, 3, 9, 7}, func() nn.Module { return nn.AdaptiveAvgPool2d{Size: [2]int{4, 0}} }},
		{"PReLU", []int{7, 65}, func() nn.Module { return nn.NewPReLU(1, f32) }},
	}
	var cases []opCase
	for _, m := range modules {
		cases = append(cases, opCase{m.name, [][]int{m.shape}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			layer := m.make()
			if err := nn.To(layer, xs[0].Device()); err != nil {
				t.Fatal(err)
			}
			return layer.Forward(xs[0])
		}})
	}
	cases = append(cases, opCase{"CheckpointSequential", [][]int{{7, 9}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
		model := nn.NewSequential(nn.NewLinear(9, 8, true, f32, rng()), nn.Func(autograd.Tanh), nn.NewLinear(8, 5, true, f32, rng()),
			nn.NewPReLU(1, f32), nn.NewLinear(5, 3, false, f32, rng()))
		if err := nn.To(model, xs[0].Device()); err != nil {
			t.Fatal(err)
		}
		return nn.CheckpointSequential(model.Layers, 3, xs[0])
	}})
	checkCases(t, tolReduce, cases)
}
