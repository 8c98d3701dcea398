package autograd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPoolOptionsByHand: x = 1..15 as a 3x5 plane, kernel 2, stride 2,
// padding (1, 0), ceil_mode. Rows: windows {-1, 0} and {1, 2}; a third
// would start at row 3, in the bottom padding, so ceil_mode drops it.
// Columns: {0, 1}, {2, 3} and the partial {4} that ceil_mode adds.
func TestPoolOptionsByHand(t *testing.T) {
	x := Zeros(Float64, 1, 1, 3, 5)
	for i := range x.f64 {
		x.f64[i] = float64(i + 1)
	}
	cfg := Pool2dConfig{Kernel: [2]int{2, 2}, Padding: [2]int{1, 0}, CeilMode: true}
	mx, idx := MaxPool2dWith(x, cfg)
	if !sameShape(mx.shape, []int{1, 1, 2, 3}) {
		t.Fatalf("ceil_mode shape %v, want [1 1 2 3]", mx.shape)
	}
	approxEqual(t, "max", mx.f64, []float64{2, 4, 5, 12, 14, 15}, 0)
	for i, want := range []int{1, 3, 4, 11, 13, 14} {
		if idx[i] != want {
			t.Fatalf("indices %v, want [1 3 4 11 13 14]", idx)
		}
	}
	// Divisors counting the padding: rows 2 and 2 (row -1 is padding),
	// columns 2, 2 and 1 (column 5 is past the input and its padding).
	approxEqual(t, "avg", AvgPool2dWith(x, cfg).f64, []float64{3.0 / 4, 7.0 / 4, 5.0 / 2, 36.0 / 4, 44.0 / 4, 25.0 / 2}, 1e-15)
	cfg.ExcludePad = true
	approxEqual(t, "avg exclude pad", AvgPool2dWith(x, cfg).f64, []float64{3.0 / 2, 7.0 / 2, 5, 36.0 / 4, 44.0 / 4, 25.0 / 2}, 1e-15)
	cfg.DivisorOverride = 3
	approxEqual(t, "avg divisor 3", AvgPool2dWith(x, cfg).f64, []float64{1, 7.0 / 3, 5.0 / 3, 12, 44.0 / 3, 25.0 / 3}, 1e-15)

	// 1-D: [1 3 2 5 4], kernel 2, ceil_mode: windows [1 3] [2 5] [4].
	v := New64([]float64{1, 3, 2, 5, 4}, 1, 1, 5)
	m1, i1 := MaxPool1d(v, Pool1dConfig{Kernel: 2, CeilMode: true})
	approxEqual(t, "max 1d", m1.f64, []float64{3, 5, 4}, 0)
	if i1[0] != 1 || i1[1] != 3 || i1[2] != 4 {
		t.Fatalf("1-d indices %v, want [1 3 4]", i1)
	}
	approxEqual(t, "avg 1d", AvgPool1d(v, Pool1dConfig{Kernel: 2, CeilMode: true}).f64, []float64{2, 3.5, 4}, 0)
	// Dilation 2, kernel 2: windows {0, 2}, {1, 3}, {2, 4}.
	m2, _ := MaxPool1d(v, Pool1dConfig{Kernel: 2, Stride: 1, Dilation: 2})
	approxEqual(t, "max 1d dilated", m2.f64, []float64{2, 5, 4}, 0)
}

// TestMaxPoolEdges: ties keep the first cell, NaN wins, and a window wholly
// in the padding gives -Inf, index -1 and no gradient.
func TestMaxPoolEdges(t *testing.T) {
	x := New64([]float64{7, 7, math.NaN(), 1}, 1, 1, 1, 4)
	out, idx := MaxPool2dWith(x, Pool2dConfig{Kernel: [2]int{1, 2}})
	if out.f64[0] != 7 || idx[0] != 0 || !math.IsNaN(out.f64[1]) || idx[1] != 2 {
		t.Fatalf("got %v %v, want [7 NaN] [0 2]", out.f64, idx)
	}
	// Rows -1 and 2 of a 2-row plane: kernel 2, padding 1, dilation 3.
	y := New64([]float64{1, 2}, 1, 1, 2, 1).SetRequiresGrad(true)
	out, idx = MaxPool2dWith(y, Pool2dConfig{Kernel: [2]int{2, 1}, Stride: [2]int{1, 1}, Padding: [2]int{1, 0}, Dilation: [2]int{3, 1}})
	if !sameShape(out.shape, []int{1, 1, 1, 1}) || !math.IsInf(out.f64[0], -1) || idx[0] != -1 {
		t.Fatalf("empty window: %v %v, want [-Inf] [-1]", out.f64, idx)
	}
	if err := out.BackwardWith(Ones(Float64, 1, 1, 1, 1)); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "empty window gradient", y.Grad().f64, []float64{0, 0}, 0)
}

// naiveMaxPool2d takes each window's maximum from the definition: cells
// (i·s - p + k·d) inside the plane, the first of equal values.
func naiveMaxPool2d(x *Tensor, cfg Pool2dConfig, oh, ow int) ([]float64, []int) {
	planes, h, w := x.shape[0]*x.shape[1], x.shape[2], x.shape[3]
	out, idx := make([]float64, planes*oh*ow), make([]int, planes*oh*ow)
	for p := range planes {
		for i := range oh {
			for j := range ow {
				best, at := math.Inf(-1), -1
				for ki := range cfg.Kernel[0] {
					for kj := range cfg.Kernel[1] {
						r := i*cfg.Stride[0] - cfg.Padding[0] + ki*cfg.Dilation[0]
						c := j*cfg.Stride[1] - cfg.Padding[1] + kj*cfg.Dilation[1]
						if r >= 0 && r < h && c >= 0 && c < w && x.f64[p*h*w+r*w+c] > best {
							best, at = x.f64[p*h*w+r*w+c], r*w+c
						}
					}
				}
				out[(p*oh+i)*ow+j], idx[(p*oh+i)*ow+j] = best, at
			}
		}
	}
	return out, idx
}

// naiveAvgPool2d averages each window as PyTorch's avg_pool2d kernel does:
// the window clipped to the input and its padding sets the divisor (unless
// padding is excluded or the divisor overridden), the window clipped to the
// input the sum.
func naiveAvgPool2d(x *Tensor, cfg Pool2dConfig, oh, ow int) []float64 {
	planes, h, w := x.shape[0]*x.shape[1], x.shape[2], x.shape[3]
	out := make([]float64, planes*oh*ow)
	for p := range planes {
		for i := range oh {
			for j := range ow {
				r0, c0 := i*cfg.Stride[0]-cfg.Padding[0], j*cfg.Stride[1]-cfg.Padding[1]
				r1, c1 := min(r0+cfg.Kernel[0], h+cfg.Padding[0]), min(c0+cfg.Kernel[1], w+cfg.Padding[1])
				div := float64((r1 - r0) * (c1 - c0))
				r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, h), min(c1, w)
				if cfg.ExcludePad {
					div = float64((r1 - r0) * (c1 - c0))
				}
				if cfg.DivisorOverride > 0 {
					div = float64(cfg.DivisorOverride)
				}
				s := 0.0
				for r := r0; r < r1; r++ {
					for c := c0; c < c1; c++ {
						s += x.f64[p*h*w+r*w+c]
					}
				}
				out[(p*oh+i)*ow+j] = s / div
			}
		}
	}
	return out
}

// TestPoolOptionsReference checks MaxPool2dWith and AvgPool2dWith against
// the naive loops on x [2, 3, 7, 6], output sizes worked out by hand from
// PyTorch's rule, and gradient-checks each case.
func TestPoolOptionsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	cases := []struct {
		name   string
		cfg    Pool2dConfig // Stride and Dilation given in full
		oh, ow int
		max    bool
	}{
		// (7+2-2-1)/2+1 = 4, (6+2-2·1-1)/1+1 = 6.
		{"rectangular dilated", Pool2dConfig{Kernel: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}, Dilation: [2]int{1, 2}}, 4, 6, true},
		// Rows ⌈6/2⌉+1 = 4; columns ⌈3/2⌉+1 = 3 where the floor gives 2.
		{"ceil", Pool2dConfig{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 0}, Dilation: [2]int{1, 1}, CeilMode: true}, 4, 3, true},
		// Rows: ⌈7/3⌉+1 = 4, but window 4 starts at 9-1 = 8 >= 7, so 3.
		{"ceil drops", Pool2dConfig{Kernel: [2]int{2, 3}, Stride: [2]int{3, 2}, Padding: [2]int{1, 1}, Dilation: [2]int{1, 1}, CeilMode: true}, 3, 4, true},
		{"ceil exclude pad", Pool2dConfig{Kernel: [2]int{2, 3}, Stride: [2]int{3, 2}, Padding: [2]int{1, 1}, Dilation: [2]int{1, 1}, CeilMode: true, ExcludePad: true}, 3, 4, false},
		{"divisor override", Pool2dConfig{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 0}, Dilation: [2]int{1, 1}, CeilMode: true, DivisorOverride: 5}, 4, 3, false},
	}
	for _, c := range cases {
		for _, isMax := range []bool{false, true} {
			if isMax && !c.max {
				continue
			}
			if !isMax && c.cfg.Dilation != [2]int{1, 1} {
				continue // avg_pool2d has no dilation
			}
			x := distinct(rng, 2, 3, 7, 6)
			var got *Tensor
			var want []float64
			if isMax {
				var idx []int
				got, idx = MaxPool2dWith(x, c.cfg)
				var wantIdx []int
				want, wantIdx = naiveMaxPool2d(x, c.cfg, c.oh, c.ow)
				for i := range wantIdx {
					if idx[i] != wantIdx[i] {
						t.Fatalf("%s: index %d is %d, want %d", c.name, i, idx[i], wantIdx[i])
					}
				}
			} else {
				got, want = AvgPool2dWith(x, c.cfg), naiveAvgPool2d(x, c.cfg, c.oh, c.ow)
			}
			if !sameShape(got.shape, []int{2, 3, c.oh, c.ow}) {
				t.Fatalf("%s (max %v): shape %v, want [2 3 %d %d]", c.name, isMax, got.shape, c.oh, c.ow)
			}
			approxEqual(t, c.name, got.f64, want, 1e-12)
			x32 := Cast(x, Float32)
			var got32 *Tensor
			if isMax {
				got32, _ = MaxPool2dWith(x32, c.cfg)
			} else {
				got32 = AvgPool2dWith(x32, c.cfg)
			}
			approxEqual(t, c.name+" float32", got32.Float64s(), want, 1e-6)
			f := func(in []*Tensor) *Tensor { return AvgPool2dWith(in[0], c.cfg) }
			if isMax {
				f = func(in []*Tensor) *Tensor { out, _ := MaxPool2dWith(in[0], c.cfg); return out }
			}
			if err := CheckGrad(f, []*Tensor{x}, 1e-6, 1e-6); err != nil {
				t.Fatalf("%s (max %v): %v", c.name, isMax, err)
			}
		}
	}
}

func TestPoolOptionPanics(t *testing.T) {
	x := Zeros(Float64, 1, 1, 4, 4)
	mustPanic(t, "padding over half", func() { MaxPool2dWith(x, Pool2dConfig{Kernel: [2]int{3, 2}, Padding: [2]int{1, 2}}) }, "MaxPool2dWith", "[1 1 4 4]")
	mustPanic(t, "no kernel", func() { AvgPool2dWith(x, Pool2dConfig{Kernel: [2]int{0, 2}}) }, "AvgPool2dWith", "[1 1 4 4]")
	mustPanic(t, "avg dilation", func() { AvgPool2dWith(x, Pool2dConfig{Kernel: [2]int{2, 2}, Dilation: [2]int{2, 2}}) }, "AvgPool2dWith", "dilation")
	mustPanic(t, "too large", func() { MaxPool2dWith(x, Pool2dConfig{Kernel: [2]int{3, 3}, Dilation: [2]int{2, 1}}) }, "MaxPool2dWith", "[1 1 4 4]")
	mustPanic(t, "1-d shape", func() { MaxPool1d(x, Pool1dConfig{Kernel: 2}) }, "MaxPool1d", "[1 1 4 4]")
}
