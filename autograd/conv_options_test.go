package autograd

import (
	"math/rand/v2"
	"testing"
)

// TestConvPaddingByHand: x = [1 2 3] convolved with w = [1 1] under
// padding='same' (total padding 1, all of it after the input, as PyTorch),
// in every padding mode: the padded inputs are [1 2 3 0], [1 2 3 2],
// [1 2 3 3] and [1 2 3 1].
func TestConvPaddingByHand(t *testing.T) {
	x, w := New64([]float64{1, 2, 3}, 1, 1, 3), New64([]float64{1, 1}, 1, 1, 2)
	for _, c := range []struct {
		mode PadMode
		want []float64
	}{
		{PadConstant, []float64{3, 5, 3}},
		{PadReflect, []float64{3, 5, 5}},
		{PadReplicate, []float64{3, 5, 6}},
		{PadCircular, []float64{3, 5, 4}},
	} {
		got := Conv1d(x, w, nil, Conv1dConfig{Rule: PaddingSame, Mode: c.mode})
		approxEqual(t, c.mode.String(), got.f64, c.want, 0)
	}
	// padding='valid' is no padding: [1+2, 2+3].
	approxEqual(t, "valid", Conv1d(x, w, nil, Conv1dConfig{Rule: PaddingValid}).f64, []float64{3, 5}, 0)
	// Explicit padding 1 in reflect mode: [2 1 2 3 2].
	approxEqual(t, "reflect 1", Conv1d(x, w, nil, Conv1dConfig{Padding: 1, Mode: PadReflect}).f64, []float64{3, 3, 5, 5}, 0)
}

// convOptionCases cover the options beyond TestConv2dReference's: each
// names the padding (before, after) per axis that the options must give,
// worked out from PyTorch's rules, so the reference pads by them and
// convolves without padding.
var convOptionCases = []struct {
	name      string
	x, w      []int
	cfg       Conv2dConfig
	pads      [4]int // F.pad order: left, right, top, bottom
	oh, ow    int    // PyTorch's output size
	checkGrad bool
}{
	{"rectangular", []int{2, 2, 7, 9}, []int{3, 2, 3, 5}, Conv2dConfig{Stride: [2]int{2, 1}, Padding: [2]int{1, 2}, Dilation: [2]int{1, 2}},
		[4]int{2, 2, 1, 1}, 4, 5, true},
	// 'same': totals dil·(k-1) = 3 and 4 split as (1, 2) and (2, 2).
	{"same", []int{2, 2, 5, 6}, []int{3, 2, 4, 3}, Conv2dConfig{Rule: PaddingSame, Dilation: [2]int{1, 2}},
		[4]int{2, 2, 1, 2}, 5, 6, true},
	{"same even kernel", []int{1, 2, 4, 4}, []int{2, 1, 2, 2}, Conv2dConfig{Rule: PaddingSame, Groups: 2},
		[4]int{0, 1, 0, 1}, 4, 4, true},
	{"valid", []int{1, 2, 5, 6}, []int{2, 2, 3, 2}, Conv2dConfig{Rule: PaddingValid, Stride: [2]int{2, 3}},
		[4]int{0, 0, 0, 0}, 2, 2, false},
	{"reflect", []int{2, 2, 4, 6}, []int{3, 2, 3, 5}, Conv2dConfig{Padding: [2]int{1, 2}, Mode: PadReflect, Stride: [2]int{1, 2}},
		[4]int{2, 2, 1, 1}, 4, 3, true},
	{"replicate", []int{1, 3, 5, 5}, []int{3, 1, 3, 3}, Conv2dConfig{Padding: [2]int{2, 1}, Mode: PadReplicate, Groups: 3, Dilation: [2]int{2, 1}},
		[4]int{1, 1, 2, 2}, 5, 5, true},
	{"circular", []int{2, 2, 4, 5}, []int{2, 2, 3, 3}, Conv2dConfig{Padding: [2]int{2, 1}, Mode: PadCircular, Stride: [2]int{2, 2}},
		[4]int{1, 1, 2, 2}, 3, 3, true},
	{"same circular", []int{1, 2, 4, 5}, []int{2, 2, 2, 4}, Conv2dConfig{Rule: PaddingSame, Mode: PadCircular},
		[4]int{1, 2, 0, 1}, 4, 5, true},
	{"same reflect dilated", []int{1, 1, 6, 5}, []int{1, 1, 3, 2}, Conv2dConfig{Rule: PaddingSame, Mode: PadReflect, Dilation: [2]int{2, 3}},
		[4]int{1, 2, 2, 2}, 6, 5, true},
}

// TestConvOptionsReference checks each option's output shape against
// PyTorch's and its values against padding by naivePad (in the case's mode,
// by the case's pads) and convolving without padding by naiveConv2d, and
// gradient-checks it.
func TestConvOptionsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range convOptionCases {
		x, w, b := uniform(rng, -1, 1, c.x...), uniform(rng, -1, 1, c.w...), uniform(rng, -1, 1, c.w[0])
		padded, shape := naivePad(x, c.cfg.Mode, 0, c.pads[:]...)
		plain := c.cfg
		plain.Padding, plain.Rule, plain.Mode = [2]int{}, PaddingExplicit, PadConstant
		want, oh, ow := naiveConv2d(New64(padded, shape...), w, b.f64, plain)
		if oh != c.oh || ow != c.ow {
			t.Fatalf("%s: reference gives %dx%d, PyTorch %dx%d: the case's pads are wrong", c.name, oh, ow, c.oh, c.ow)
		}
		got := Conv2d(x, w, b, c.cfg)
		if !sameShape(got.shape, []int{c.x[0], c.w[0], c.oh, c.ow}) {
			t.Fatalf("%s: shape %v, want [%d %d %d %d]", c.name, got.shape, c.x[0], c.w[0], c.oh, c.ow)
		}
		approxEqual(t, c.name, got.f64, want, 1e-12)
		got32 := Conv2d(Cast(x, Float32), Cast(w, Float32), Cast(b, Float32), c.cfg)
		approxEqual(t, c.name+" float32", got32.Float64s(), want, 1e-5)
		if c.checkGrad {
			if err := CheckGrad(conv2d(c.cfg), []*Tensor{x, w, b}, 1e-6, 1e-6); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
	}
	// Conv1d passes the rule and mode through: 'same' reflect on a length
	// of 7 with kernel 4 pads (1, 2).
	x, w := uniform(rng, -1, 1, 2, 2, 7), uniform(rng, -1, 1, 3, 2, 4)
	got := Conv1d(x, w, nil, Conv1dConfig{Rule: PaddingSame, Mode: PadReflect})
	padded, shape := naivePad(x, PadReflect, 0, 1, 2)
	want, _, _ := naiveConv2d(New64(padded, shape[0], shape[1], 1, shape[2]), Reshape(w, 3, 2, 1, 4), make([]float64, 3), Conv2dConfig{})
	approxEqual(t, "Conv1d same reflect", got.f64, want, 1e-12)
	if !sameShape(got.shape, []int{2, 3, 7}) {
		t.Fatalf("Conv1d same: shape %v, want [2 3 7]", got.shape)
	}
}

func TestConvOptionPanics(t *testing.T) {
	x, w := Zeros(Float64, 1, 1, 4, 4), Zeros(Float64, 1, 1, 3, 3)
	mustPanic(t, "same with stride", func() { Conv2d(x, w, nil, Conv2dConfig{Rule: PaddingSame, Stride: [2]int{2, 1}}) }, "Conv2d", "stride")
	mustPanic(t, "valid with padding", func() { Conv2d(x, w, nil, Conv2dConfig{Rule: PaddingValid, Padding: [2]int{1, 0}}) }, "Conv2d", "padding")
	mustPanic(t, "reflect too long", func() { Conv2d(x, w, nil, Conv2dConfig{Padding: [2]int{4, 0}, Mode: PadReflect}) }, "PadWith", "reflect")
	// A kernel wider than the padded input is an error even where the
	// stride would round the output length up to 1 (as PyTorch).
	mustPanic(t, "kernel too wide", func() { Conv2d(x, Zeros(Float64, 1, 1, 1, 5), nil, Conv2dConfig{Stride: [2]int{2, 2}}) }, "Conv2d", "[1 1 1 5]")
}
