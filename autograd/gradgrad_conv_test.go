package autograd

import (
	"math/rand/v2"
	"testing"
)

// convGradGeoms are geometries with groups, stride, dilation and
// asymmetric padding, for the backward ops of Conv2d.
var convGradGeoms = []convGeom{
	{n: 2, c: 4, h: 6, w: 5, o: 6, kh: 2, kw: 3, groups: 2, sh: 2, sw: 1, ph: 1, pw: 2, dh: 1, dw: 2, oh: 3, ow: 3},
	{n: 9, c: 2, h: 4, w: 4, o: 3, kh: 3, kw: 2, groups: 1, sh: 1, sw: 2, ph: 0, pw: 1, dh: 2, dw: 1, oh: 1, ow: 2},
}

// TestConvBackwardOpsGrad gradient-checks the input- and weight-gradient ops
// of Conv2d, whose backward rules (again convolutions) carry its second
// order: convInputGrad(gy, w) is x-shaped, convWeightGrad(x, gy) w-shaped.
func TestConvBackwardOpsGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for i, g := range convGradGeoms {
		x := uniform(rng, -1, 1, g.n, g.c, g.h, g.w)
		w := uniform(rng, -1, 1, g.o, g.cg(), g.kh, g.kw)
		gy := uniform(rng, -1, 1, g.n, g.o, g.oh, g.ow)
		input := func(in []*Tensor) *Tensor { return convInputGrad(g, in[0], in[1]) }
		if err := CheckGrad(input, []*Tensor{gy, w}, 1e-6, 1e-6); err != nil {
			t.Fatalf("geometry %d, input gradient: %v", i, err)
		}
		weight := func(in []*Tensor) *Tensor { return convWeightGrad(g, in[0], in[1]) }
		if err := CheckGrad(weight, []*Tensor{x, gy}, 1e-6, 1e-6); err != nil {
			t.Fatalf("geometry %d, weight gradient: %v", i, err)
		}
	}
}

// squared wraps a one-input op as op(x)², so that the op's backward rule
// receives a gradient that depends on x and a second-order check runs
// through that rule (the op alone is linear, its second derivative zero).
func squared(op func(*Tensor) *Tensor) func([]*Tensor) *Tensor {
	return func(in []*Tensor) *Tensor { return Square(op(in[0])) }
}

// TestGradGradConvPoolPad is the second-order check (CheckGradGrad) of every
// convolution, padding and pooling op and option.
func TestGradGradConvPoolPad(t *testing.T) {
	maxPool := func(cfg Pool2dConfig) func(*Tensor) *Tensor {
		return func(x *Tensor) *Tensor { out, _ := MaxPool2dWith(x, cfg); return out }
	}
	cases := []struct {
		name string
		in   func(rng *rand.Rand) []*Tensor
		f    func([]*Tensor) *Tensor
	}{
		{"Conv2d/groups dilation stride", func(rng *rand.Rand) []*Tensor {
			return []*Tensor{uniform(rng, -1, 1, 2, 4, 6, 5), uniform(rng, -1, 1, 6, 2, 2, 3), uniform(rng, -1, 1, 6)}
		}, func(x []*Tensor) *Tensor {
			return Square(Conv2d(x[0], x[1], x[2], Conv2dConfig{Groups: 2, Stride: [2]int{2, 1}, Dilation: [2]int{1, 2}, Padding: [2]int{1, 0}}))
		}},
		{"Conv2d/same reflect", func(rng *rand.Rand) []*Tensor {
			return []*Tensor{uniform(rng, -1, 1, 1, 2, 4, 5), uniform(rng, -1, 1, 2, 2, 2, 3)}
		}, func(x []*Tensor) *Tensor {
			return Square(Conv2d(x[0], x[1], nil, Conv2dConfig{Rule: PaddingSame, Mode: PadReflect}))
		}},
		{"Conv1d", func(rng *rand.Rand) []*Tensor {
			return []*Tensor{uniform(rng, -1, 1, 2, 4, 9), uniform(rng, -1, 1, 4, 2, 3), uniform(rng, -1, 1, 4)}
		}, func(x []*Tensor) *Tensor {
			return Square(Conv1d(x[0], x[1], x[2], Conv1dConfig{Stride: 2, Padding: 1, Dilation: 2, Groups: 2, Mode: PadCircular}))
		}},
		{"Pad/constant", oneInput(2, 3, 4), squared(func(x *Tensor) *Tensor { return Pad(x, 0.5, 1, -1, 2, 0) })},
		{"Pad/reflect", oneInput(2, 3, 4), squared(func(x *Tensor) *Tensor { return PadWith(x, PadReflect, 3, -1, 2, 1) })},
		{"Pad/replicate", oneInput(2, 3, 4), squared(func(x *Tensor) *Tensor { return PadWith(x, PadReplicate, 2, 2, -1, 3) })},
		{"Pad/circular", oneInput(2, 3, 4), squared(func(x *Tensor) *Tensor { return PadWith(x, PadCircular, 3, -1, 1, 2) })},
		{"MaxPool2d", func(rng *rand.Rand) []*Tensor { return []*Tensor{distinct(rng, 2, 2, 5, 6)} },
			squared(maxPool(Pool2dConfig{Kernel: [2]int{2, 3}, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}, Dilation: [2]int{2, 1}, CeilMode: true}))},
		{"AvgPool2d", oneInput(2, 3, 5, 6),
			squared(func(x *Tensor) *Tensor {
				return AvgPool2dWith(x, Pool2dConfig{Kernel: [2]int{2, 3}, Padding: [2]int{1, 1}, CeilMode: true, ExcludePad: true})
			})},
		{"MaxPool1d", func(rng *rand.Rand) []*Tensor { return []*Tensor{distinct(rng, 2, 2, 7)} },
			squared(func(x *Tensor) *Tensor {
				out, _ := MaxPool1d(x, Pool1dConfig{Kernel: 3, Stride: 2, Padding: 1})
				return out
			})},
		{"AvgPool1d", oneInput(2, 2, 7),
			squared(func(x *Tensor) *Tensor {
				return AvgPool1d(x, Pool1dConfig{Kernel: 2, CeilMode: true, DivisorOverride: 3})
			})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(12, 5))
			if err := CheckGradGrad(c.f, c.in(rng), 1e-6, 1e-5); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// oneInput makes one uniform input of the given shape.
func oneInput(shape ...int) func(rng *rand.Rand) []*Tensor {
	return func(rng *rand.Rand) []*Tensor { return []*Tensor{uniform(rng, -1, 1, shape...)} }
}
