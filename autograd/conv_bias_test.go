package autograd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConv2dBiasSameBitsAsAddedAfter: the forward adds the bias inside its
// product (a row of ones), which must give the bits of the convolution
// without bias plus the bias broadcast over the planes, in float32 and
// float64, with and without groups, for products of fewer than 256 terms.
func TestConv2dBiasSameBitsAsAddedAfter(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	fill := func(x *Tensor) *Tensor {
		for i := range x.Len() {
			x.SetAt(i, rng.NormFloat64())
		}
		return x
	}
	for _, dt := range []DType{Float32, Float64} {
		for _, c := range []struct {
			x, w []int
			cfg  Conv2dConfig
		}{
			{[]int{3, 1, 9, 7}, []int{8, 1, 3, 3}, Conv2dConfig{Padding: [2]int{1, 1}}},
			{[]int{2, 8, 6, 6}, []int{16, 8, 3, 3}, Conv2dConfig{Padding: [2]int{1, 1}}},
			{[]int{2, 6, 5, 5}, []int{9, 2, 3, 3}, Conv2dConfig{Groups: 3, Stride: [2]int{2, 1}}},
		} {
			x, w, b := fill(Zeros(dt, c.x...)), fill(Zeros(dt, c.w...)), fill(Zeros(dt, c.w[0]))
			got := Conv2d(x, w, b, c.cfg)
			want := Add(Conv2d(x, w, nil, c.cfg), Reshape(b, c.w[0], 1, 1))
			for i := range got.Len() {
				if g, w := got.At(i), want.At(i); math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("%v x %v w %v: element %d is %v with the bias in the product, %v added after", dt, c.x, c.w, i, g, w)
				}
			}
		}
	}
}
