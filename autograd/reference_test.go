package autograd

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// The fused kernels (Gemm-based matmul, im2col convolution, pooling) are
// checked here against plain loops written from the definitions.

func naiveMatMul(a, b []float64, n, k, m int) []float64 {
	c := make([]float64, n*m)
	for i := range n {
		for j := range m {
			for p := range k {
				c[i*m+j] += a[i*k+p] * b[p*m+j]
			}
		}
	}
	return c
}

func TestMatMulReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	a, b := uniform(rng, -1, 1, 2, 3, 5), uniform(rng, -1, 1, 5, 4)
	got := MatMul(a, b)
	if !sameShape(got.shape, []int{2, 3, 4}) {
		t.Fatalf("shape %v, want [2 3 4]", got.shape)
	}
	for i := range 2 {
		want := naiveMatMul(a.f64[i*15:(i+1)*15], b.f64, 3, 5, 4)
		approxEqual(t, "batch", got.f64[i*12:(i+1)*12], want, 1e-12)
	}
	got32 := MatMul(Cast(a, Float32), Cast(b, Float32))
	approxEqual(t, "float32", got32.Float64s(), got.f64, 1e-5)
	mustPanic(t, "inner mismatch", func() { MatMul(a, a) }, "MatMul", "[2 3 5]")
}

// naiveConv2d convolves directly from the definition.
func naiveConv2d(x, w *Tensor, bias []float64, cfg Conv2dConfig) (out []float64, oh, ow int) {
	cfg = cfg.withDefaults()
	n, c, h, wd := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	o, cg, kh, kw := w.shape[0], w.shape[1], w.shape[2], w.shape[3]
	og := o / cfg.Groups
	oh = (h+2*cfg.Padding[0]-cfg.Dilation[0]*(kh-1)-1)/cfg.Stride[0] + 1
	ow = (wd+2*cfg.Padding[1]-cfg.Dilation[1]*(kw-1)-1)/cfg.Stride[1] + 1
	out = make([]float64, n*o*oh*ow)
	for b := range n {
		for oc := range o {
			grp := oc / og
			for i := range oh {
				for j := range ow {
					s := bias[oc]
					for ic := range cg {
						for ki := range kh {
							for kj := range kw {
								ih := i*cfg.Stride[0] - cfg.Padding[0] + ki*cfg.Dilation[0]
								iw := j*cfg.Stride[1] - cfg.Padding[1] + kj*cfg.Dilation[1]
								if ih >= 0 && ih < h && iw >= 0 && iw < wd {
									s += x.At(((b*c+grp*cg+ic)*h+ih)*wd+iw) * w.At(((oc*cg+ic)*kh+ki)*kw+kj)
								}
							}
						}
					}
					out[((b*o+oc)*oh+i)*ow+j] = s
				}
			}
		}
	}
	return out, oh, ow
}

func TestConv2dReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	cases := []struct {
		name   string
		x, w   []int
		config Conv2dConfig
	}{
		{"plain", []int{2, 3, 6, 6}, []int{4, 3, 3, 3}, Conv2dConfig{}},
		{"stride padding", []int{1, 2, 7, 6}, []int{3, 2, 3, 2}, Conv2dConfig{Stride: [2]int{2, 3}, Padding: [2]int{1, 2}}},
		{"dilation", []int{2, 1, 8, 8}, []int{2, 1, 3, 3}, Conv2dConfig{Dilation: [2]int{2, 3}}},
		{"groups", []int{3, 6, 5, 5}, []int{9, 2, 3, 3}, Conv2dConfig{Groups: 3, Padding: [2]int{1, 1}}},
		{"depthwise", []int{5, 4, 4, 4}, []int{4, 1, 2, 2}, Conv2dConfig{Groups: 4, Stride: [2]int{2, 2}}},
	}
	for _, c := range cases {
		x, w, b := uniform(rng, -1, 1, c.x...), uniform(rng, -1, 1, c.w...), uniform(rng, -1, 1, c.w[0])
		want, oh, ow := naiveConv2d(x, w, b.f64, c.config)
		got := Conv2d(x, w, b, c.config)
		if !sameShape(got.shape, []int{c.x[0], c.w[0], oh, ow}) {
			t.Fatalf("%s: shape %v", c.name, got.shape)
		}
		approxEqual(t, c.name, got.f64, want, 1e-12)
		got32 := Conv2d(Cast(x, Float32), Cast(w, Float32), Cast(b, Float32), c.config)
		approxEqual(t, c.name+" float32", got32.Float64s(), want, 1e-5)
	}
	x := Zeros(Float32, 1, 3, 4, 4)
	mustPanic(t, "channels", func() { Conv2d(x, Zeros(Float32, 2, 2, 3, 3), nil, Conv2dConfig{}) }, "Conv2d", "[1 3 4 4]", "[2 2 3 3]")
}

// TestConv2dDeterministic: the weight gradient, summed over samples in
// parallel blocks, is bit-identical with one CPU and with several.
func TestConv2dDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := Cast(uniform(rng, -1, 1, 37, 3, 12, 12), Float32)
	w0 := Cast(uniform(rng, -1, 1, 8, 3, 3, 3), Float32)
	run := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		w := w0.Clone().SetRequiresGrad(true)
		if err := Sum(Square(Conv2d(x, w, nil, Conv2dConfig{Padding: [2]int{1, 1}})), false).Backward(); err != nil {
			t.Fatal(err)
		}
		return w.Grad().f32
	}
	one, many := run(1), run(4)
	for i := range one {
		if one[i] != many[i] {
			t.Fatalf("weight gradient %d differs: %v with 1 CPU, %v with 4", i, one[i], many[i])
		}
	}
}

func TestPoolReference(t *testing.T) {
	x := New64([]float64{
		1, 2, 3, 4,
		5, 6, 7, 8,
		9, 10, 11, 12,
		13, 14, 15, 16,
	}, 1, 1, 4, 4)
	approxEqual(t, "max 2x2", MaxPool2d(x, 2, 0, 0).f64, []float64{6, 8, 14, 16}, 0)
	approxEqual(t, "avg 2x2", AvgPool2d(x, 2, 0, 0).f64, []float64{3.5, 5.5, 11.5, 13.5}, 1e-12)
	// Padding 1 with a 3x3 window, stride 2: windows centred on (0,0),
	// (0,2), (2,0), (2,2); the average counts the zero padding.
	approxEqual(t, "max padded", MaxPool2d(x, 3, 2, 1).f64, []float64{6, 8, 14, 16}, 0)
	approxEqual(t, "avg padded", AvgPool2d(x, 3, 2, 1).f64, []float64{14.0 / 9, 30.0 / 9, 57.0 / 9, 99.0 / 9}, 1e-12)
}
